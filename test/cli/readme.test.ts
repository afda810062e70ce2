/**
 * The README's two commands, taken from its first code block and run as written in a clean clone on a machine whose
 * only Node is older than 22.19: `npm install && npx pm scan --memory-dir examples/memory` and `npm test` (here
 * narrowed to one small test file, so the suite does not run itself). Both must fetch a Node 22 from the npm
 * registry, say so in one line, and work.
 *
 * What is shared with this checkout, so the test takes seconds of CPU rather than minutes: the clone's node_modules
 * starts as a hard-linked copy of this checkout's (the same lockfile; npm finds it current and leaves it, then runs
 * `prepare`, which fetches Node 22 and builds), and the type-check starts from this checkout's incremental state
 * (copied, so the clone's tsc rewrites its own file). Nothing else is: the clone is made by git from the committed
 * tree, its dist/ does not exist until its `npm install` builds it, and Node 22 is fetched into an empty cache.
 * PM_README_FRESH_INSTALL=1 (set by `.ci/run`) runs the clone's `npm install` from nothing instead (minutes).
 */
import { execFileSync, spawn } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const repoRoot = resolve(import.meta.dirname, "../..")
const fresh = process.env["PM_README_FRESH_INSTALL"] === "1"
/** Where scripts/test.mjs keeps tsc's incremental state. */
const TSC_STATE = join("node_modules", ".cache", "pi-project-memory", "tsc.tsbuildinfo")

const versionOf = (node: string): string => execFileSync(node, ["--version"], { encoding: "utf8" }).trim()
const isOld = (version: string): boolean => {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number)
  return major < 22 || (major === 22 && minor < 19)
}

/** The README's first code block, each line without its comment. */
const readmeCommands = (): Array<string> => {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8")
  const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? ""
  return block.split("\n").map((l) => l.replace(/\s+#.*$/, "").trim()).filter((l) => l !== "")
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
  it("the README's first code block holds the install and the test command this file runs", () => {
    const commands = readmeCommands()
    expect(commands).toContain("npm install && npx pm scan --memory-dir examples/memory")
    expect(commands).toContain("npm test")
  })

  it("install, run pm scan, and run the tests, each under a Node 22 fetched from the npm registry", async () => {
    // Everything this test creates (the clone with its node_modules, the Node 22 cache) is removed at its end,
    // asynchronously: a synchronous removal in an afterAll hook would stall the test worker for a minute.
    const work = mkdtempSync(join(tmpdir(), "pm-readme-"))
    try {
      await runReadme(work)
    } finally {
      await rm(work, { recursive: true, force: true })
    }
  }, fresh ? 900_000 : 600_000)
})

const runReadme = async (work: string) => {
  // How long each step took, printed at the end (where the time goes on a loaded machine).
  const steps: Array<string> = []
  let last = performance.now()
  const step = (name: string) => {
    const now = performance.now()
    steps.push(`${name} ${Math.round(now - last)} ms`)
    last = now
  }
  const [install = "", test = ""] = ["npm install", "npm test"].map((start) => readmeCommands().find((c) => c.startsWith(start)))
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
  const cloned = await run("git", ["clone", "-q", repoRoot, clone], { env })
  expect(cloned.status, cloned.stderr).toBe(0)
  expect(existsSync(join(clone, "dist"))).toBe(false)
  if (!fresh) {
    const linked = await run("cp", ["-al", join(repoRoot, "node_modules"), join(clone, "node_modules")], { env })
    expect(linked.status, linked.stderr).toBe(0)
    // Caches are the clone's own: a file written through a hard link would change this checkout's too.
    await Promise.all([".cache", ".vite", ".vite-temp"].map((d) => rm(join(clone, "node_modules", d), { recursive: true, force: true })))
    if (existsSync(join(repoRoot, TSC_STATE))) {
      mkdirSync(dirname(join(clone, TSC_STATE)), { recursive: true })
      copyFileSync(join(repoRoot, TSC_STATE), join(clone, TSC_STATE))
    }
  }

  step("clone")
  const installed = await run("sh", ["-c", install], { cwd: clone, env })
  step("install and scan")
  expect(installed.status, installed.stderr).toBe(0)
  expect(installed.stdout).toContain("Topics: 4")
  expect(installed.stderr).toMatch(/older than the 22\.19 this package needs: installing Node 22 from the npm registry/)
  expect(installed.stderr).toMatch(/pm: Node v\d+\.\d+\.\d+ is older than 22\.19; running under /)
  expect(installed.stderr).not.toMatch(/globSync|ERR_|SyntaxError/)
  expect(existsSync(join(clone, "dist", "pm.js"))).toBe(true)

  const tested = await run("sh", ["-c", `${test} -- test/readpath/projectKey.test.ts`], { cwd: clone, env })
  step("test")
  console.log(steps.join(", "))
  expect(tested.status, tested.stdout + tested.stderr).toBe(0)
  expect(tested.stderr).toMatch(/running under Node v22\./)
  expect(tested.stdout).toMatch(/Test Files\s+1 passed/)
}
