/**
 * The install routes a Pi user meets, end to end, with production dependencies only and no build at install time:
 * - `pi install npm:pi-project-memory` from a registry: a local one (verdaccio, test/support/registry.ts) that the
 *   packed package was published to with `npm publish`, npm pointed at it the way a user points it
 *   (`npm_config_registry`), into a fresh agent folder and home with an empty npm cache;
 * - `pi install git:git://127.0.0.1:PORT/owner/pi-project-memory`: a bare clone of this checkout's HEAD served by
 *   `git daemon` on loopback (test/support/gitDaemon.ts); Pi clones it and runs `npm install --omit=dev`;
 * - `pi install npm:pi-project-memory@file:<tarball>`: the tarball route the docs give.
 * Each install must succeed with no npm warning about install scripts and hold none of the dev dependencies; Pi's
 * list of loaded extensions must name the package (Pi's own resolution and labels, from the dev dependency of the
 * same version); then a `pi -p` against the strict HTTP provider declared in the agent folder's models.json runs a
 * scripted background extraction that writes a topic and the index; from the registry, a second one goes through the
 * background worker of print mode, with Pi run by its path and not on PATH. Needs the npm registry (the local one fetches other packages from it).
 */
import { DefaultPackageManager, InteractiveMode, SettingsManager } from "@earendil-works/pi-coding-agent"
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SELECTOR_MARK, TOOLS_HEADING, topic } from "../background/harness.ts"
import { type GitDaemon, startGitDaemon } from "../support/gitDaemon.ts"
import { installedPi, packTarball, run, userEnv } from "../support/install.ts"
import { ensureBuilt, repoRoot } from "../support/pm.ts"
import { QUEUE_WORKER_LOG } from "../../src/background/queueWorker.ts"
import { type LocalRegistry, npmEnv, publish, startRegistry } from "../support/registry.ts"
import { type Reply, type StrictProvider, type StrictRequest, startStrictProvider } from "../support/strictProvider.ts"
import { gitRepo, tempAgent, tempDir } from "../support/tmp.ts"

const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { devDependencies: Record<string, string> }
const DEV_ONLY = Object.keys(manifest.devDependencies)

let base = ""
let pi: { readonly piBin: string }
let registry: LocalRegistry | undefined
let daemon: GitDaemon | undefined
let tarball = ""
let npmCache = ""

beforeAll(async () => {
  ensureBuilt()
  base = tempDir("pm-routes-")
  for (const d of ["registry", "publisher", "git/owner"]) mkdirSync(join(base, d), { recursive: true })
  npmCache = join(base, "npm-cache")
  ;[pi, registry, tarball] = await Promise.all([installedPi(), startRegistry(join(base, "registry")), packTarball(base)])
  await publish(registry, tarball, join(base, "publisher"))
  execFileSync("git", ["clone", "-q", "--bare", repoRoot, join(base, "git", "owner", "pi-project-memory.git")])
  daemon = await startGitDaemon(join(base, "git"))
})

afterAll(async () => {
  await Promise.all([registry?.close(), daemon?.close()])
})

const textOf = (m: any): string =>
  typeof m.content === "string" ? m.content : (m.content ?? []).filter((b: any) => b.type === "text").map((b: any) => b.text).join("")

const kindOf = (r: StrictRequest): "selector" | "background" | "main" =>
  r.system.includes(SELECTOR_MARK)
    ? "selector"
    : r.system.includes(TOOLS_HEADING) || r.messages.some((m: any) => m.role === "user" && textOf(m).includes(TOOLS_HEADING))
    ? "background"
    : "main"

/** Resolves when process `pid` (not our child) has ended: coreutils' tail follows it. */
const ended = (pid: number) => new Promise<void>((resolve) => spawn("tail", [`--pid=${pid}`, "-f", "/dev/null"], { stdio: "ignore" }).on("exit", () => resolve()))

const TOPIC = topic("Package manager", "the user uses pnpm, never npm", "user", "The user always uses pnpm.")

interface Installed {
  readonly dirs: { readonly agentDir: string; readonly home: string }
  readonly env: NodeJS.ProcessEnv
  /** The package folder Pi loads. */
  readonly pkg: string
  /** What `pi install` printed. */
  readonly output: string
}

/** `pi install <source>` into a fresh agent folder and home, with npm pointed at the local registry. */
const piInstall = async (source: string, installedAt: (agentDir: string) => string): Promise<Installed> => {
  const dirs = tempAgent()
  const { PI_OFFLINE: _offline, ...env } = { ...userEnv(pi, dirs, true), ...npmEnv(registry!, npmCache) }
  const r = await run(pi.piBin, ["install", source], { env, cwd: dirs.home })
  expect(r.code, r.stdout + r.stderr).toBe(0)
  expect(r.stdout).toContain(`Installed ${source}`)
  return { dirs, env, pkg: installedAt(dirs.agentDir), output: r.stdout + r.stderr }
}

/** Production dependencies only, and nothing npm asked to run or warned about. */
const expectProductionOnly = (installed: Installed, modules: string): void => {
  expect(installed.output).not.toMatch(/install scripts|allowScripts|npm warn|npm error/i)
  expect(existsSync(join(installed.pkg, "dist", "extension.ts"))).toBe(true)
  expect(readdirSync(modules).filter((name) => DEV_ONLY.some((dev) => dev === name || dev.startsWith(`${name}/`)))).toEqual([])
  expect(existsSync(join(modules, "@anthropic-ai", "sandbox-runtime", "package.json"))).toBe(true)
}

/**
 * The labels Pi's start-up list of extensions gives what this agent folder loads: Pi resolves its settings' packages
 * (installing nothing) and labels them with the interactive mode's own code.
 */
const piListsAs = async (installed: Installed): Promise<Array<string>> => {
  const { agentDir, home } = installed.dirs
  const packages = new DefaultPackageManager({ cwd: home, agentDir, settingsManager: SettingsManager.create(home, agentDir) })
  const resolved = await packages.resolve(async () => "error")
  const extensions = resolved.extensions.filter((e) => e.enabled).map((e) => ({ path: e.path, sourceInfo: { path: e.path, ...e.metadata } }))
  return (InteractiveMode.prototype as any).getCompactExtensionLabels.call(Object.create(InteractiveMode.prototype), extensions)
}

/**
 * One `pi -p` in a fresh project with the installed package loaded by Pi from its settings: the main answer is
 * "ok", the selector chooses nothing, and the background extraction writes the topic, then the index, and the task ends there.
 */
const extractionWrites = async (installed: Installed, viaWorker = false): Promise<void> => {
  const strict: StrictProvider = await startStrictProvider({ models: [{ id: "strict-1", contextWindow: 128_000, maxTokens: 16_384 }] })
  try {
    writeFileSync(join(installed.dirs.agentDir, "models.json"), JSON.stringify(strict.modelsJson(), null, 2))
    // Through the worker: Pi run by its path, not on PATH, so the worker can only use the Pi handed over to it.
    const env = viaWorker
      ? { ...userEnv(pi, installed.dirs, false), PI_OFFLINE: "1", NO_COLOR: "1", PM_QUEUE_WORKER: "1" }
      : { ...installed.env, PI_OFFLINE: "1", NO_COLOR: "1" }
    const project = gitRepo()
    const located = await run(process.execPath, [join(installed.pkg, "dist", "pm.js"), "project", "--json", "--cwd", project], { env })
    expect(located.code, located.stderr).toBe(0)
    const where = JSON.parse(located.stdout) as { memoryDir: string; storageRoot: string; memoryRootHash: string }
    const memoryDir = where.memoryDir
    strict.handler = (r): Reply => {
      const kind = kindOf(r)
      if (kind === "selector") return { toolCalls: [{ name: "select_memories", arguments: { selected_memories: [] } }] }
      if (kind === "main") return { text: "ok" }
      const done = r.messages.filter((m: any) => m.role === "toolResult").length
      if (done === 0) return { toolCalls: [{ name: "write", arguments: { path: join(memoryDir, "pnpm.md"), content: TOPIC } }] }
      if (done === 1) {
        return { toolCalls: [{ name: "write", arguments: { path: join(memoryDir, "MEMORY.md"), content: "- [Package manager](pnpm.md) — pnpm\n" } }] }
      }
      return { text: "Saved one memory." }
    }
    const r = await run(pi.piBin, ["--no-session", "--model", "strict/strict-1", "-p", "I always use pnpm"], { cwd: project, env })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trim()).toBe("ok")
    if (viaWorker) {
      const log = readFileSync(join(where.storageRoot, "memory-roots", where.memoryRootHash, QUEUE_WORKER_LOG), "utf8")
      await ended(Number(/ worker (\d+) started for /.exec(log)?.[1]))
    }
    // The topic, then the index: the task ends once the index links the topic (no call for a summary).
    expect(strict.requests.filter((q) => kindOf(q) === "background").length).toBeGreaterThanOrEqual(2)
    expect(readFileSync(join(memoryDir, "pnpm.md"), "utf8")).toBe(TOPIC)
    expect(readFileSync(join(memoryDir, "MEMORY.md"), "utf8")).toContain("(pnpm.md)")
  } finally {
    await strict.close()
  }
}

describe("installed the ways Pi installs a package", () => {
  it("pi install npm:pi-project-memory from a registry: production dependencies only, and an extraction writes a topic", async () => {
    const installed = await piInstall("npm:pi-project-memory", (agentDir) => join(agentDir, "npm", "node_modules", "pi-project-memory"))
    expectProductionOnly(installed, join(installed.dirs.agentDir, "npm", "node_modules"))
    // What was installed is what was published: the registry's copy, not the real registry's package of that name.
    const published = JSON.parse(readFileSync(join(installed.pkg, "package.json"), "utf8")) as { pi: unknown }
    expect(published.pi).toEqual({ extensions: ["./index.ts"] })
    expect(await piListsAs(installed)).toEqual(["pi-project-memory"])
    await extractionWrites(installed)
    // A print-only person: the run hands its extraction to the background worker, which saves it with the same Pi.
    await extractionWrites(installed, true)
  })

  it("pi install git:git://…/owner/pi-project-memory: a clone of HEAD with no build, and an extraction writes a topic", async () => {
    const source = `git:${daemon!.url}owner/pi-project-memory`
    const installed = await piInstall(source, (agentDir) => join(agentDir, "git", "127.0.0.1", "owner", "pi-project-memory"))
    expectProductionOnly(installed, join(installed.pkg, "node_modules"))
    expect(execFileSync("git", ["rev-parse", "HEAD"], { cwd: installed.pkg, encoding: "utf8" })).toBe(
      execFileSync("git", ["rev-parse", "HEAD"], { cwd: repoRoot, encoding: "utf8" })
    )
    // Nothing was built at install time: the clone's dist/ is the commit's, file for file.
    expect(execFileSync("git", ["status", "--porcelain", "--", "dist"], { cwd: installed.pkg, encoding: "utf8" })).toBe("")
    expect(await piListsAs(installed)).toEqual(["owner/pi-project-memory"])
    await extractionWrites(installed)
  })

  it("pi install npm:pi-project-memory@file:<tarball>: the same from a packed file", async () => {
    const installed = await piInstall(`npm:pi-project-memory@file:${tarball}`, (agentDir) => join(agentDir, "npm", "node_modules", "pi-project-memory"))
    expectProductionOnly(installed, join(installed.dirs.agentDir, "npm", "node_modules"))
    expect(await piListsAs(installed)).toEqual([`pi-project-memory@file:${tarball}`])
    await extractionWrites(installed)
  })
})
