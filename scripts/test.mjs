// The test command: build the bundles, type-check, then run vitest with any extra arguments (`npm test -- ...`).
import { spawnSync } from "node:child_process"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const require = createRequire(import.meta.url)
const run = (args) => {
  const result = spawnSync(process.execPath, args, { stdio: "inherit", cwd: root })
  if (result.status !== 0) process.exit(result.status ?? 1)
}
run([join(root, "scripts/build.mjs")])
// Incremental: tsc keeps what it learned in node_modules/.cache and re-checks only what changed since (the same
// errors as a full check; the first run in a checkout is a full one).
run([require.resolve("typescript/bin/tsc"), "--noEmit", "--incremental", "--tsBuildInfoFile", join(root, "node_modules/.cache/pi-project-memory/tsc.tsbuildinfo")])
run([join(dirname(require.resolve("vitest/package.json")), "vitest.mjs"), "run", ...process.argv.slice(2)])
