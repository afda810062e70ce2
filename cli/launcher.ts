/**
 * `pm`'s executable: checks the Node version before loading the CLI, whose modules need Node >= 22.19 and would
 * otherwise fail with a module-linking trace. On an older Node it re-runs itself under the Node 22 kept in the cache
 * that `scripts/node22.mjs` shares, installing it there from the npm registry first when it is missing (saying so in
 * one line: nothing runs at `npm install` time, so the first `pm` is what fetches it), or says in one line what is
 * needed. Nothing here may need a newer Node than the one it is checking for.
 */
import * as Module from "node:module"

const NEEDED_MAJOR = 22
const NEEDED_MINOR = 19

const recentEnough = (version: string): boolean => {
  const [major = 0, minor = 0] = version.split(".").map(Number)
  return major > NEEDED_MAJOR || (major === NEEDED_MAJOR && minor >= NEEDED_MINOR)
}

if (recentEnough(process.versions.node)) {
  // Compiled code of the bundle is cached across runs (Node >= 22.1): a faster cold start for every command.
  ;(Module as { enableCompileCache?: () => unknown }).enableCompileCache?.()
  // A computed specifier: the bundler leaves the CLI as its own file, loaded only after the check above.
  const main = "./pm-main.js"
  await import(main)
} else {
  // Loaded only on this path: on a recent Node, no command pays for starting child_process.
  const { spawnSync } = await import("node:child_process")
  const { existsSync, mkdirSync } = await import("node:fs")
  const { homedir } = await import("node:os")
  const { join } = await import("node:path")
  const cache = process.env["PM_NODE_CACHE"] || join(homedir(), ".cache", "pi-project-memory", "node22")
  const nodePackage = `node-${process.platform === "win32" ? "win" : process.platform}-${process.arch}`
  const bin = join(cache, "node_modules", nodePackage, "bin")
  const node = process.platform === "win32" ? join(bin, "node.exe") : join(bin, "node")
  if (process.env["PM_REEXEC"] !== "1" && !existsSync(node)) {
    process.stderr.write(
      `pm: Node ${process.version} is older than the ${NEEDED_MAJOR}.${NEEDED_MINOR} this package needs: installing Node 22 ` +
        `from the npm registry into ${cache}\n`
    )
    mkdirSync(cache, { recursive: true })
    const args = ["install", "--prefix", cache, "--no-save", "--no-audit", "--no-fund", "--no-package-lock", `${nodePackage}@22`]
    spawnSync(process.platform === "win32" ? "npm.cmd" : "npm", args, { stdio: ["ignore", "ignore", "inherit"], shell: process.platform === "win32" })
  }
  if (process.env["PM_REEXEC"] !== "1" && existsSync(node)) {
    process.stderr.write(`pm: Node ${process.version} is older than ${NEEDED_MAJOR}.${NEEDED_MINOR}; running under ${node}\n`)
    const result = spawnSync(node, process.argv.slice(1), { stdio: "inherit", env: { ...process.env, PM_REEXEC: "1" } })
    process.exit(result.status ?? 1)
  }
  process.stderr.write(
    `pm: needs Node >= ${NEEDED_MAJOR}.${NEEDED_MINOR}, found ${process.version}; install Node 22, or fetch one ` +
      `for pm with: npm install --prefix ${cache} ${nodePackage}@22\n`
  )
  process.exit(2)
}
