/**
 * A clean clone of this checkout on a machine whose only Node is older than 22.19, for the README's two commands
 * (test/cli/readmeInstall.test.ts runs the first, readmeTest.test.ts the second; apart, so that neither file holds a
 * worker for minutes).
 *
 * What is shared with this checkout, so a test takes seconds of CPU rather than minutes: the clone's node_modules
 * starts as a hard-linked copy of this checkout's (the same lockfile; npm finds it current and leaves it), and the
 * type-check starts from this checkout's incremental state (copied, so the clone's tsc rewrites its own file).
 * Nothing else is: the clone is made by git from the committed tree (dist/ included: nothing builds at install
 * time), and Node 22 is fetched into an empty cache. PM_README_FRESH_INSTALL=1 (set by `.ci/run`) leaves node_modules
 * out, so the install runs from nothing (minutes).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { expect } from "vitest"
import { run } from "../support/install.ts"

export const repoRoot = resolve(import.meta.dirname, "../..")
export const fresh = process.env["PM_README_FRESH_INSTALL"] === "1"
/** Where scripts/test.mjs keeps tsc's incremental state. */
const TSC_STATE = join("node_modules", ".cache", "pi-project-memory", "tsc.tsbuildinfo")

export const isOld = (version: string): boolean => {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number)
  return major < 22 || (major === 22 && minor < 19)
}

/** The README's first code block, each line without its comment. */
export const readmeCommands = (): Array<string> => {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8")
  const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? ""
  return block.split("\n").map((l) => l.replace(/\s+#.*$/, "").trim()).filter((l) => l !== "")
}

/** The README command that starts with `start`. */
export const readmeCommand = (start: string): string => {
  const found = readmeCommands().find((c) => c.startsWith(start))
  expect(found, `the README's first block has no "${start}" command`).toBeDefined()
  return found!
}

/** A Node older than 22.19: the machine's own when it is old, else Node 20 from the npm registry. */
const oldNodeBin = async (work: string): Promise<string> => {
  for (const candidate of ["/usr/bin/node", "/usr/local/bin/node"]) {
    if (existsSync(candidate) && isOld((await run(candidate, ["--version"])).stdout.trim())) return join(candidate, "..")
  }
  const prefix = join(work, "node20")
  const pkg = `node-${process.platform}-${process.arch}`
  const installed = await run("npm", ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", `${pkg}@20`], { env: process.env, timeoutMs: 600_000 })
  expect(installed.code, installed.stderr).toBe(0)
  return join(prefix, "node_modules", pkg, "bin")
}

export interface OldNodeClone {
  /** The clone's folder. */
  readonly clone: string
  /** A shell environment whose only Node is the old one (npm's own script must come from it too). */
  readonly env: NodeJS.ProcessEnv
  /** Runs `command` in the clone through `sh -c`, as a person types it. */
  readonly sh: (command: string) => ReturnType<typeof run>
}

/**
 * Makes the clone in a temp folder, runs `use` on it, then removes everything it made (the clone with its
 * node_modules, the Node 22 cache) asynchronously: a synchronous removal would stall the test worker for a minute.
 */
export const withOldNodeClone = async (use: (c: OldNodeClone) => Promise<void>): Promise<void> => {
  const work = mkdtempSync(join(tmpdir(), "pm-readme-"))
  try {
    const oldBin = await oldNodeBin(work)
    const env = {
      HOME: process.env["HOME"] ?? "/root",
      PATH: `${oldBin}:/usr/bin:/bin`,
      PM_NODE_CACHE: join(work, "node22"),
      npm_config_cache: process.env["npm_config_cache"] ?? join(process.env["HOME"] ?? "/root", ".npm")
    }
    expect(isOld((await run("node", ["--version"], { env })).stdout.trim())).toBe(true)
    const clone = join(work, "pi-project-memory")
    const cloned = await run("git", ["clone", "-q", repoRoot, clone], { env })
    expect(cloned.code, cloned.stderr).toBe(0)
    // The committed build, as every clone has it.
    expect(existsSync(join(clone, "dist", "pm.js"))).toBe(true)
    if (!fresh) {
      const linked = await run("cp", ["-al", join(repoRoot, "node_modules"), join(clone, "node_modules")], { env })
      expect(linked.code, linked.stderr).toBe(0)
      // Caches are the clone's own: a file written through a hard link would change this checkout's too.
      await Promise.all([".cache", ".vite", ".vite-temp"].map((d) => rm(join(clone, "node_modules", d), { recursive: true, force: true })))
      if (existsSync(join(repoRoot, TSC_STATE))) {
        mkdirSync(dirname(join(clone, TSC_STATE)), { recursive: true })
        copyFileSync(join(repoRoot, TSC_STATE), join(clone, TSC_STATE))
      }
    }
    await use({ clone, env, sh: (command) => run("sh", ["-c", command], { cwd: clone, env, timeoutMs: 900_000 }) })
  } finally {
    await rm(work, { recursive: true, force: true })
  }
}
