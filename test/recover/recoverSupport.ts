/**
 * Shared by the recovery crash tests: the worker bundled once per test file, a fresh memory per trial, the checks
 * every trial must pass after the next start, and the one test each crash-<scenario>-<part> file declares.
 *
 * A trial: the scenario's command in a child process, SIGKILLed right before its Nth file-system call; then, in this
 * process, what the next start does (recoverScenarios.ts `recoverNext`); then the folder must be consistent (every
 * index line links a file that exists, every file the command created is indexed or absent), equal to the state
 * before the command or after it byte for byte, hold no temp file and no open-task marker; a retry of the command
 * from the state before must reach the state after exactly (no duplicate).
 */
import { Effect } from "effect"
import { build } from "esbuild"
import { execFile } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { indexLinkedFiles } from "../../src/memory/topicNames.ts"
import { decodeJournal } from "../../src/writes/journal.ts"
import { tempDir } from "../support/tmp.ts"
import { INITIAL, recoverNext, runScenario, type Scenario, scenarioLayer } from "./recoverScenarios.ts"

const bundleWorker = async (): Promise<string> => {
  const out = join(tempDir("pm-recover-worker-"), "recoverWorker.mjs")
  await build({
    entryPoints: [fileURLToPath(new URL("./recoverWorker.ts", import.meta.url))],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: out,
    logLevel: "error",
    banner: { js: "import { createRequire as __pmRequire } from 'node:module'; const require = __pmRequire(import.meta.url);" }
  })
  return out
}

interface WorkerRun {
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

export const runWorker = (worker: string, config: object): Promise<WorkerRun> =>
  new Promise((resolve) => {
    execFile(process.execPath, [worker, JSON.stringify(config)], { encoding: "utf8" }, (error, stdout, stderr) =>
      resolve({ signal: (error as { signal?: NodeJS.Signals } | null)?.signal ?? null, stdout, stderr })
    )
  })

// Trials run on a RAM file system when there is one: the kill points are the same, and fsync costs nothing there.
const trialRoot = existsSync("/dev/shm") ? mkdtempSync("/dev/shm/pm-recover-") : tempDir("pm-recover-")
afterAll(() => rmSync(trialRoot, { recursive: true, force: true }))

export interface Env {
  readonly memoryDir: string
  readonly rootDir: string
}

export const freshMemory = (files: Readonly<Record<string, string>> = INITIAL): Env => {
  const base = realpathSync(mkdtempSync(join(trialRoot, "t-")))
  const env = { memoryDir: join(base, "memory"), rootDir: join(base, "root") }
  mkdirSync(env.memoryDir)
  mkdirSync(env.rootDir)
  for (const [name, content] of Object.entries(files)) writeFileSync(join(env.memoryDir, name), content)
  return env
}

const copyOf = (template: Env): Env => {
  const env = freshMemory({})
  rmSync(env.memoryDir, { recursive: true })
  rmSync(env.rootDir, { recursive: true })
  cpSync(template.memoryDir, env.memoryDir, { recursive: true })
  cpSync(template.rootDir, env.rootDir, { recursive: true })
  return env
}

/** Every file under `dir` (recursively), path relative to it -> content. */
const filesUnder = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (at: string) => {
    if (!existsSync(at)) return
    for (const e of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, e.name)
      if (e.isDirectory()) walk(path)
      else out[relative(dir, path)] = readFileSync(path, "utf8")
    }
  }
  walk(dir)
  return out
}

/** The memory files, temp files left out (they are checked on their own). */
export const memoryFiles = (memoryDir: string): Record<string, string> =>
  Object.fromEntries(Object.entries(filesUnder(memoryDir)).filter(([name]) => !/(^|\/)\.pm-[^/]*\.tmp$/.test(name)))

/** Temp files left anywhere a writer of memory, of the journal or of the markers puts them. */
export const tempFiles = (env: Env): Array<string> =>
  [env.memoryDir, join(env.rootDir, "journal"), join(env.rootDir, "open")].flatMap((dir) =>
    Object.keys(filesUnder(dir)).filter((name) => name.endsWith(".tmp")).map((name) => join(dir, name))
  )

/** Every index line links a file that exists; every file not there before is indexed. */
export const expectConsistent = (memoryDir: string, before: Readonly<Record<string, string>>, at: string): void => {
  const files = memoryFiles(memoryDir)
  const index = files["MEMORY.md"] ?? ""
  const links = indexLinkedFiles(index)
  for (const link of links) expect(files[link], `${at}: the index links ${link}, which is missing`).toBeDefined()
  for (const name of Object.keys(files)) {
    if (name === "MEMORY.md" || name in before) continue
    expect(links.has(name), `${at}: ${name} is new and not indexed`).toBe(true)
  }
}

const fs = makeNodeFileSystem()
/** Runs `effect` in this process over the real file system and the scenarios' services. */
export const run = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.runPromise(effect.pipe(Effect.provide(scenarioLayer(fs))) as Effect.Effect<A, E, never>)

export const journalParses = (rootDir: string): boolean => {
  const path = join(rootDir, "journal", "journal.jsonl")
  if (!existsSync(path)) return true
  const decoded = decodeJournal(readFileSync(path, "utf8"))
  return decoded.invalidLines === 0
}

export interface TrialCounts {
  readonly total: number
  readonly trials: number
  /** Trials whose recovery found the state before the command (rolled back, or nothing done yet). */
  readonly before: number
  readonly after: number
  /** Trials where the next start rolled back an open task. */
  readonly recovered: number
}

/**
 * The trials of one test file: the scenario is run once to its end to count its file-system calls (and to take the
 * state after), then killed before each call whose number is `part` modulo `parts`. For `undo` every trial starts from
 * a memory where `remember` ran to its end.
 */
export const runTrials = async (worker: string, scenario: Scenario, part: number, parts: number): Promise<TrialCounts> => {
  let template: Env | undefined
  if (scenario === "undo") {
    template = freshMemory()
    const made = await runWorker(worker, { ...template, scenario: "remember", killAt: null })
    expect(made.stderr).toBe("")
  }
  const start = () => (template === undefined ? freshMemory() : copyOf(template))
  const dry = start()
  const before = memoryFiles(dry.memoryDir)
  const full = await runWorker(worker, { ...dry, scenario, killAt: null })
  expect(full.stderr).toBe("")
  const after = memoryFiles(dry.memoryDir)
  expect(after).not.toEqual(before)
  expect(tempFiles(dry)).toEqual([])
  const total = Number(/ops (\d+)/.exec(full.stdout)?.[1])
  expect(total).toBeGreaterThan(20)
  const counts = { total, trials: 0, before: 0, after: 0, recovered: 0 }
  for (let killAt = 1 + part; killAt <= total; killAt += parts) {
    const env = start()
    const at = `${scenario} killed before file-system call ${killAt} of ${total}`
    const killed = await runWorker(worker, { ...env, scenario, killAt })
    expect(killed.signal, at).toBe("SIGKILL")
    expect(journalParses(env.rootDir), at).toBe(true)
    const recovered = await run(recoverNext(scenario, env))
    if (recovered.length > 0) counts.recovered++
    const now = memoryFiles(env.memoryDir)
    expectConsistent(env.memoryDir, before, at)
    expect(tempFiles(env), at).toEqual([])
    const open = join(env.rootDir, "open")
    expect(existsSync(open) ? readdirSync(open) : [], `${at}: open-task markers left`).toEqual([])
    const whole = JSON.stringify(now) === JSON.stringify(before) ? "before" : JSON.stringify(now) === JSON.stringify(after) ? "after" : "neither"
    expect(whole, `${at}: ${JSON.stringify(now)}`).not.toBe("neither")
    if (whole === "before") {
      counts.before++
      // The retry reaches exactly the state after: nothing half saved is there to be duplicated.
      await run(runScenario(scenario, fs, env))
      expect(memoryFiles(env.memoryDir), `${at}, then retried`).toEqual(after)
      expect(tempFiles(env), `${at}, then retried`).toEqual([])
    } else counts.after++
    expect(journalParses(env.rootDir), at).toBe(true)
    counts.trials++
  }
  return counts
}

/** Bundles the worker before the tests of the calling file; the result gives the bundle's path. */
export const useBundledWorker = (): (() => string) => {
  let worker = ""
  beforeAll(async () => {
    worker = await bundleWorker()
  })
  return () => worker
}

/** The test of one crash file: part `part` of `parts` of a scenario's kill points (the files run in parallel). */
export const describeRecoverPart = (scenario: Scenario, part: number, parts: number): void => {
  const bundled = useBundledWorker()
  describe(`${scenario} killed at every file-system call, then the next start (part ${part + 1} of ${parts})`, () => {
    it("consistent, before or after byte for byte, no temp file, no marker left, and a retry reaches the state after", async () => {
      const counts = await runTrials(bundled(), scenario, part, parts)
      console.log(`${scenario} part ${part + 1}/${parts}: ${JSON.stringify(counts)}`)
      expect(counts.trials).toBeGreaterThan(5)
      // Some kills land before the first change (the state before, nothing to recover) and some after it.
      expect(counts.before).toBeGreaterThan(0)
      expect(counts.recovered).toBeGreaterThan(0)
    })
  })
}
