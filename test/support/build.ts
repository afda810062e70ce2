/** Whether dist/ is current: dist/pm.js at least as new as every source. No vitest imports (the global setup uses it). */
import { existsSync, readdirSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const pmPath = join(repoRoot, "dist", "pm.js")

const newestSource = (): number => {
  let newest = 0
  const visit = (path: string): void => {
    const st = statSync(path)
    if (st.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name))
    } else if (path.endsWith(".ts") || path.endsWith(".mjs") || path.endsWith(".json")) {
      newest = Math.max(newest, st.mtimeMs)
    }
  }
  for (const top of ["src", "layers", "cli", "extension", "scripts", "package.json"]) {
    const p = join(repoRoot, top)
    if (existsSync(p)) visit(p)
  }
  return newest
}

export const isFresh = (): boolean => existsSync(pmPath) && statSync(pmPath).mtimeMs >= newestSource()

