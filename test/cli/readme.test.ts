/**
 * The README's two commands, run as written from a clean clone on a machine whose only Node is older than 22.19:
 * `npm install && npx pm scan --memory-dir examples/memory` and `npm test` (here narrowed to one small test file, so
 * the suite does not run itself). Both must fetch a Node 22 from the npm registry, say so in one line, and work.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { tempDir } from "../support/tmp.ts"

const repoRoot = resolve(import.meta.dirname, "../..")

const versionOf = (node: string): string => execFileSync(node, ["--version"], { encoding: "utf8" }).trim()
const isOld = (version: string): boolean => {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number)
  return major < 22 || (major === 22 && minor < 19)
}

/** A Node older than 22.19: the machine's own when it is old, else Node 20 from the npm registry. */
const oldNodeBin = (): string => {
  for (const candidate of ["/usr/bin/node", "/usr/local/bin/node"]) {
    if (existsSync(candidate) && isOld(versionOf(candidate))) return join(candidate, "..")
  }
  const prefix = tempDir("pm-node20-")
  const pkg = `node-${process.platform}-${process.arch}`
  execFileSync("npm", ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", `${pkg}@20`], { stdio: "ignore" })
  return join(prefix, "node_modules", pkg, "bin")
}

describe("the README's commands on a machine with an old Node", () => {
  it("install, run pm scan, and run the tests, each under a Node 22 fetched from the npm registry", () => {
    const oldBin = oldNodeBin()
    // npm's own script is a Node program: it must come from the same old Node, so the old directory goes first and
    // nothing newer is on PATH.
    const env = {
      HOME: process.env["HOME"] ?? "/root",
      PATH: `${oldBin}:/usr/bin:/bin`,
      PM_NODE_CACHE: join(tempDir("pm-node22-cache-"), "node22"),
      npm_config_cache: process.env["npm_config_cache"] ?? join(process.env["HOME"] ?? "/root", ".npm")
    }
    expect(isOld(spawnSync("node", ["--version"], { env, encoding: "utf8" }).stdout.trim())).toBe(true)

    const clone = join(tempDir("pm-clone-"), "pi-project-memory")
    execFileSync("git", ["clone", "-q", repoRoot, clone])

    const install = spawnSync("sh", ["-c", "npm install --no-audit --no-fund && npx pm scan --memory-dir examples/memory"], {
      cwd: clone, env, encoding: "utf8"
    })
    expect(install.status, install.stderr).toBe(0)
    expect(install.stdout).toContain("Topics: 4")
    expect(install.stderr).toMatch(/older than the 22\.19 this package needs: installing Node 22 from the npm registry/)
    expect(install.stderr).toMatch(/pm: Node v\d+\.\d+\.\d+ is older than 22\.19; running under /)
    expect(install.stderr).not.toMatch(/globSync|ERR_|SyntaxError/)

    const test = spawnSync("npm", ["test", "--", "test/readpath/projectKey.test.ts"], { cwd: clone, env, encoding: "utf8" })
    expect(test.status, test.stdout + test.stderr).toBe(0)
    expect(test.stderr).toMatch(/running under Node v22\./)
    expect(test.stdout).toMatch(/Test Files\s+1 passed/)
  }, 900_000)
})
