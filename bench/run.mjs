// Runs every benchmark in bench/ one after another (npm run bench). Each prints its own table with baselines.
import { spawnSync } from "node:child_process"
import { readdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const only = process.argv.slice(2)
const files = readdirSync(here)
  .filter((f) => f.endsWith(".ts") && !f.startsWith("_"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort()
let failed = 0
for (const file of files) {
  console.log(`\n=== ${file} ===`)
  const r = spawnSync(process.execPath, [join(here, file)], { stdio: "inherit" })
  if (r.status !== 0) failed++
}
process.exit(failed === 0 ? 0 : 1)
