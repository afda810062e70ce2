// Pi's second entry for pi-project-memory (package.json `pi.extensions`), for a checkout that was never built: the
// first entry, dist/extension.ts, is written by `npm install` (or `npm run build`), and Pi silently skips an entry
// that does not exist. While it is missing this file says so in one line; once it exists this file does nothing.
// Plain JavaScript that imports nothing of Pi's; it is not in the published package (package.json `files`), where
// dist/ always exists.
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const checkout = dirname(fileURLToPath(import.meta.url))

export default function unbuiltCheckout(pi) {
  if (existsSync(join(checkout, "dist", "extension.ts"))) return
  const message = `pi-project-memory is not built, so project memory is off: run npm install in ${checkout} (it builds dist/), then start pi again.`
  pi.on("session_start", (_event, ctx) => {
    if (ctx.hasUI) ctx.ui.notify(message, "warning")
    else process.stderr.write(`${message}\n`)
  })
}
