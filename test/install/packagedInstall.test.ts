/**
 * The package as a user gets it: `npm pack`, the tarball installed into a fresh prefix with production dependencies
 * only (what an install from the registry gives: no Pi, no dev dependencies), loaded into a real Pi installed into a
 * prefix of its own, in each install form Pi offers (`pi -e <package>`, `pi install <package>`, `pi -e <checkout>`).
 *
 * Each run is one `pi -p` with pi-ai's fake provider scripted so that the background extraction writes a topic and
 * the index; the test asserts that both landed, and, from a module-load recorder preloaded into the `pi` process,
 * that every Pi package was loaded from exactly one place: the host's. `pm` from the same prefix is run too.
 *
 * Needs the npm registry (or npm's cache) for the two installs, as `.ci/run` has.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { type PackagedInstall, PI_VERSION, preparePackagedInstall, type Ran, run, userEnv } from "../support/install.ts"
import { ensureBuilt, repoRoot } from "../support/pm.ts"
import { gitRepo, tempAgent, tempDir } from "../support/tmp.ts"

const FAUX = join(repoRoot, "test", "fixtures", "providers", "faux.mjs")
/**
 * The same provider for `pi`, copied out of the checkout as TypeScript: Pi's loader then compiles it and gives it
 * the host's pi-ai, as for any user's extension. Loaded from here, Node would import it natively with the checkout's
 * own pi-ai, and the one-Pi check below would see the fixture's copy, not ours.
 */
let fauxForPi = ""
const RECORDER = join(repoRoot, "test", "fixtures", "loadRecorder.mjs")

let base = ""
let install: PackagedInstall

beforeAll(async () => {
  ensureBuilt()
  base = tempDir("pm-install-")
  install = await preparePackagedInstall(base)
  fauxForPi = join(base, "faux-provider.ts")
  copyFileSync(FAUX, fauxForPi)
})

const memoryDirOf = async (env: NodeJS.ProcessEnv, project: string): Promise<string> => {
  const r = await run(install.pm, ["project", "--cwd", project, "--json"], { env })
  expect(r.code, r.stderr).toBe(0)
  return (JSON.parse(r.stdout) as { memoryDir: string }).memoryDir
}

const TOPIC = "---\nname: package manager\ndescription: the user uses pnpm, never npm\ntype: user\n---\nThe user always uses pnpm.\n"
const INDEX = "- [Package manager](pnpm.md) — the user uses pnpm\n"

interface Session {
  readonly project: string
  readonly memoryDir: string
  readonly env: NodeJS.ProcessEnv
  readonly result: Ran
  /** Each Pi package loaded, with the folders it was loaded from. */
  readonly roots: ReadonlyMap<string, ReadonlySet<string>>
  /** Whether the background bash's `cat README.md` showed the project's README to the model. */
  readonly bashSaw: boolean
  /** The requests the provider received, one JSON line each. */
  readonly requests: string
}

/**
 * One `pi -p` whose main answer is "ok" and whose extraction writes the topic, then the index, then ends. `setup`
 * prepares the agent directory (for `pi install`); `extensionArgs` are the `-e` flags.
 */
const session = async (extensionArgs: ReadonlyArray<string>, setup?: (env: NodeJS.ProcessEnv) => Promise<void>): Promise<Session> => {
  const dirs = tempAgent()
  const project = gitRepo()
  const loads = join(tempDir("pm-loads-"), "loads.txt")
  const plain = userEnv(install, dirs, true)
  await setup?.(plain)
  const memoryDir = await memoryDirOf(plain, project)
  const marker = `readme-${Math.random().toString(36).slice(2)}`
  writeFileSync(join(project, "README.md"), `${marker}\n`)
  const capture = join(tempDir("pm-capture-"), "requests.jsonl")
  const script = [
    { text: "ok" },
    // A read-only command of the project: from the installed package it runs inside the OS sandbox with the task's scope.
    { tools: [{ name: "bash", arguments: { command: "cat README.md" } }] },
    { tools: [{ name: "write", arguments: { path: join(memoryDir, "pnpm.md"), content: TOPIC } }] },
    { tools: [{ name: "write", arguments: { path: join(memoryDir, "MEMORY.md"), content: INDEX } }] },
    { text: "Saved one memory." }
  ]
  const env = userEnv(install, dirs, true, {
    PM_FAUX_SCRIPT: JSON.stringify(script),
    PM_FAUX_CAPTURE: capture,
    PM_LOAD_LOG: loads,
    NODE_OPTIONS: `--import=${RECORDER}`
  })
  const result = await run(install.piBin, ["--no-session", "-e", fauxForPi, ...extensionArgs, "--model", "faux/faux-1", "-p", "I always use pnpm"], {
    cwd: project,
    env
  })
  const roots = new Map<string, Set<string>>()
  for (const url of existsSync(loads) ? readFileSync(loads, "utf8").split("\n") : []) {
    const m = /^file:\/\/(.*\/node_modules\/@earendil-works\/([^/]+))\//.exec(url)
    if (m === null) continue
    const [, root, name] = m as unknown as [string, string, string]
    if (!roots.has(name)) roots.set(name, new Set())
    roots.get(name)!.add(root)
  }
  const requests = existsSync(capture) ? readFileSync(capture, "utf8") : ""
  return { project, memoryDir, env: plain, result, roots, bashSaw: requests.includes(marker), requests }
}

const expectSavedWithOnePi = (s: Session): void => {
  expect(s.result.code, s.result.stderr).toBe(0)
  expect(s.result.stdout).toContain("ok")
  expect(readFileSync(join(s.memoryDir, "pnpm.md"), "utf8")).toBe(TOPIC)
  expect(readFileSync(join(s.memoryDir, "MEMORY.md"), "utf8")).toContain("(pnpm.md)")
  // The sandboxed command ran from the installed package (its runtime's helpers are inside what the sandbox shows).
  expect(s.bashSaw, s.requests.slice(-2000)).toBe(true)
  // Pi's own packages were seen loading, each from one folder, and that folder is the host's install.
  expect(s.roots.get("pi-coding-agent")?.size).toBe(1)
  for (const [name, roots] of s.roots) {
    expect([...roots], name).toEqual([join(install.piPrefix, "node_modules", "@earendil-works", name)])
  }
}

describe("the packaged install", () => {
  it("has no Pi of its own: the tarball installs production dependencies only", () => {
    expect(existsSync(join(install.installed, "dist", "extension.js"))).toBe(true)
    expect(existsSync(join(install.pkgPrefix, "node_modules", "@earendil-works"))).toBe(false)
    expect(readdirSync(join(install.pkgPrefix, "node_modules"))).not.toContain("vitest")
  })

  it("pi -e <installed package>: the extraction writes a topic and the index, with one Pi loaded", async () => {
    expectSavedWithOnePi(await session(["-e", install.installed]))
  })

  it("pi install <installed package>: the same, with Pi loading it from its settings", async () => {
    const s = await session([], async (env) => {
      const r = await run(install.piBin, ["install", install.installed], { env, cwd: base })
      expect(r.code, r.stderr).toBe(0)
    })
    expectSavedWithOnePi(s)
  })

  it("pi -e <checkout>: the checkout's own dev-dependency Pi is never loaded", async () => {
    const s = await session(["-e", repoRoot])
    expectSavedWithOnePi(s)
    expect([...s.roots.values()].flatMap((r) => [...r]).some((r) => r.startsWith(join(repoRoot, "node_modules")))).toBe(false)
  })

  it("pm from the prefix: status finds the Pi on PATH, and recall runs through it", async () => {
    const s = await session(["-e", install.installed])
    expectSavedWithOnePi(s)
    const status = await run(install.pm, ["status", "--cwd", s.project], { env: s.env })
    expect(status.code, status.stderr).toBe(0)
    expect(status.stdout).toContain(`pi ${PI_VERSION}`)
    const scan = await run(install.pm, ["scan", "--cwd", s.project, "--json"], { env: s.env })
    expect(JSON.parse(scan.stdout).topics.map((t: { filename: string }) => t.filename)).toEqual(["pnpm.md"])
    const recallEnv = { ...s.env, PM_EXTENSIONS: FAUX, PM_FAUX_SCRIPT: JSON.stringify([{ select: ["pnpm.md"] }]) }
    const recall = await run(install.pm, ["recall", "which package manager?", "--cwd", s.project, "--model", "faux/faux-1", "--json"], { env: recallEnv })
    expect(recall.code, recall.stderr).toBe(0)
    expect(JSON.parse(recall.stdout).selected).toEqual(["pnpm.md"])
  })

  it("pm recall without any Pi says where it looked, in one line, exit 2", async () => {
    const project = gitRepo()
    const env = { ...userEnv(install, tempAgent(), false), PM_EXTENSIONS: FAUX, PM_FAUX_SCRIPT: JSON.stringify([{ select: ["pnpm.md"] }]) }
    // A topic to choose from, so that the question needs the selector's model.
    const memoryDir = await memoryDirOf(env, project)
    mkdirSync(memoryDir, { recursive: true })
    writeFileSync(join(memoryDir, "pnpm.md"), TOPIC)
    const recall = await run(install.pm, ["recall", "which package manager?", "--cwd", project, "--model", "faux/faux-1", "--json"], { env })
    expect(recall.code, recall.stderr).toBe(2)
    expect(recall.stdout).toBe("")
    expect(recall.stderr).toContain("Pi was not found")
    expect(recall.stderr.trim().split("\n")).toHaveLength(1)
  })
})
