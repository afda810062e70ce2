// Runs a command under a Node >= 22.19 (Pi 1.x and this package need it), even on a machine whose own Node is
// older: the current Node when it is recent enough, else a Node 22 from the npm registry's `node-<os>-<arch>`
// package, installed once into a cache outside the repository. Written for old Nodes too (no newer syntax or APIs).
//
//   node scripts/node22.mjs COMMAND [ARGS...]    run COMMAND with that Node first on PATH
//   node scripts/node22.mjs --print              print the path of that Node's binary
//
// The cache is $PM_NODE_CACHE, else ~/.cache/pi-project-memory/node22 (the same one `.ci/run` and `pm` use).
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync } from "node:fs"
import { homedir } from "node:os"
import { delimiter, dirname, join } from "node:path"

const NEEDED = [22, 19]

function recentEnough(version) {
  const [major, minor] = version.replace(/^v/, "").split(".").map(Number)
  return major > NEEDED[0] || (major === NEEDED[0] && minor >= NEEDED[1])
}

function cacheDir() {
  return process.env.PM_NODE_CACHE || join(homedir(), ".cache", "pi-project-memory", "node22")
}

function packageName() {
  const os = process.platform === "win32" ? "win" : process.platform
  return "node-" + os + "-" + process.arch
}

function cachedBinary() {
  const base = join(cacheDir(), "node_modules", packageName())
  return process.platform === "win32" ? join(base, "bin", "node.exe") : join(base, "bin", "node")
}

function nodeBinary() {
  if (recentEnough(process.versions.node)) return process.execPath
  const binary = cachedBinary()
  if (!existsSync(binary)) {
    process.stderr.write(
      "Node " + process.version + " is older than the 22.19 this package needs: installing Node 22 from the npm registry into " +
        cacheDir() + "\n"
    )
    mkdirSync(cacheDir(), { recursive: true })
    const npm = process.platform === "win32" ? "npm.cmd" : "npm"
    const result = spawnSync(
      npm,
      ["install", "--prefix", cacheDir(), "--no-save", "--no-audit", "--no-fund", "--no-package-lock", packageName() + "@22"],
      { stdio: ["ignore", "ignore", "inherit"], shell: process.platform === "win32" }
    )
    if (result.status !== 0 || !existsSync(binary)) {
      process.stderr.write("could not install " + packageName() + "@22; install Node >= 22.19 yourself\n")
      process.exit(2)
    }
  }
  return binary
}

const args = process.argv.slice(2)
if (args.length === 0) {
  process.stderr.write("usage: node scripts/node22.mjs COMMAND [ARGS...] | --print\n")
  process.exit(2)
}
const binary = nodeBinary()
if (args[0] === "--print") {
  process.stdout.write(binary + "\n")
  process.exit(0)
}
if (binary !== process.execPath) {
  const found = spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout.trim()
  process.stderr.write("running under Node " + found + " from " + dirname(binary) + " (this machine's Node is " + process.version + ")\n")
}
const env = Object.assign({}, process.env, { PATH: dirname(binary) + delimiter + (process.env.PATH || "") })
const result = spawnSync(args[0], args.slice(1), { stdio: "inherit", env: env, shell: process.platform === "win32" })
if (result.error) {
  process.stderr.write(String(result.error.message) + "\n")
  process.exit(2)
}
process.exit(result.status === null ? 1 : result.status)
