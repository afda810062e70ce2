/**
 * The README's two commands, run as written from a clean clone on a machine whose only Node is older than 22.19:
 * `npm install && npx pm scan --memory-dir examples/memory` and `npm test` (here narrowed to one small test file, so
 * the suite does not run itself). Both must fetch a Node 22 from the npm registry, say so in one line, and work.
 */
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdtempSync } from "node:fs"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const repoRoot = resolve(import.meta.dirname, "../..")

const versionOf = (node: string): string => execFileSync(node, ["--version"], { encoding: "utf8" }).trim()
const isOld = (version: string): boolean => {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number)
  return major < 22 || (major === 22 && minor < 19)
}

/** A Node older than 22.19: the machine's own when it is old, else Node 20 from the npm registry. */
const oldNodeBin = async (work: string): Promise<string> => {
  for (const candidate of ["/usr/bin/node", "/usr/local/bin/node"]) {
    if (existsSync(candidate) && isOld(versionOf(candidate))) return join(candidate, "..")
  }
  const prefix = join(work, "node20")
  const pkg = `node-${process.platform}-${process.arch}`
  const installed = await run("npm", ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", `${pkg}@20`], {
    env: process.env
  })
  expect(installed.status, installed.stderr).toBe(0)
  return join(prefix, "node_modules", pkg, "bin")
}

/** Runs a command without blocking the test worker (a synchronous spawn of minutes stalls vitest's own messaging). */
const run = (command: string, args: ReadonlyArray<string>, options: { cwd?: string; env: NodeJS.ProcessEnv }) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    child.on("error", fail)
    child.on("close", (status) => done({ status, stdout, stderr }))
  })

describe("the README's commands on a machine with an old Node", () => {
  it("install, run pm scan, and run the tests, each under a Node 22 fetched from the npm registry", async () => {
    // Everything this test creates (the clone with its node_modules, the Node 22 cache) is removed at its end,
    // asynchronously: a synchronous removal in an afterAll hook would stall the test worker for a minute.
    const work = mkdtempSync(join(tmpdir(), "pm-readme-"))
    try {
      await readmeCommands(work)
    } finally {
      await rm(work, { recursive: true, force: true })
    }
  }, 900_000)
})

const readmeCommands = async (work: string) => {
  const oldBin = await oldNodeBin(work)
  // npm's own script is a Node program: it must come from the same old Node, so the old directory goes first and
  // nothing newer is on PATH.
  const env = {
    HOME: process.env["HOME"] ?? "/root",
    PATH: `${oldBin}:/usr/bin:/bin`,
    PM_NODE_CACHE: join(work, "node22"),
    npm_config_cache: process.env["npm_config_cache"] ?? join(process.env["HOME"] ?? "/root", ".npm")
  }
  expect(isOld((await run("node", ["--version"], { env })).stdout.trim())).toBe(true)

  const clone = join(work, "pi-project-memory")
  execFileSync("git", ["clone", "-q", repoRoot, clone])

  const install = await run("sh", ["-c", "npm install --no-audit --no-fund && npx pm scan --memory-dir examples/memory"], {
    cwd: clone,
    env
  })
  expect(install.status, install.stderr).toBe(0)
  expect(install.stdout).toContain("Topics: 4")
  expect(install.stderr).toMatch(/older than the 22\.19 this package needs: installing Node 22 from the npm registry/)
  expect(install.stderr).toMatch(/pm: Node v\d+\.\d+\.\d+ is older than 22\.19; running under /)
  expect(install.stderr).not.toMatch(/globSync|ERR_|SyntaxError/)

  const test = await run("npm", ["test", "--", "test/readpath/projectKey.test.ts"], { cwd: clone, env })
  expect(test.status, test.stdout + test.stderr).toBe(0)
  expect(test.stderr).toMatch(/running under Node v22\./)
  expect(test.stdout).toMatch(/Test Files\s+1 passed/)
}
