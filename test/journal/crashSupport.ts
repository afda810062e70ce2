/**
 * Shared by the crash tests: the worker bundled once per test file (a bundle starts in a fraction of the time the
 * TypeScript sources take, which keeps hundreds of kill -9 trials cheap), a fresh memory per trial, the checks every
 * trial must pass, and the one test each crash-<scenario>-<part> file declares.
 */
import { Effect, Layer } from "effect"
import { build } from "esbuild"
import { execFile } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { Journal } from "../../layers/writes/Journal.ts"
import type { UndoResult } from "../../layers/writes/journalUndo.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { decodeJournal } from "../../src/writes/journal.ts"
import { tempDir } from "../support/tmp.ts"

const bundleWorker = async (): Promise<string> => {
  const out = join(tempDir("pm-crash-worker-"), "crashWorker.mjs")
  await build({
    entryPoints: [fileURLToPath(new URL("./crashWorker.ts", import.meta.url))],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: out,
    logLevel: "error",
    banner: { js: "import { createRequire as __pmRequire } from 'node:module'; const require = __pmRequire(import.meta.url);" }
  })
  return out
}

/** Bundles the worker before the tests of the calling file (or describe block); the result gives the bundle's path. */
export const useBundledWorker = (): (() => string) => {
  let worker = ""
  beforeAll(async () => {
    worker = await bundleWorker()
  })
  return () => worker
}

export interface WorkerRun {
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

export const OLD = { "a.md": "A-old\n", "b.md": "B-old\n" } as const
export const NEW = { "a.md": "A-new\n", "c.md": "C-new\n" } as const

// Trials run on a RAM file system when there is one: the kill points are the same, and fsync costs nothing there.
const trialRoot = existsSync("/dev/shm") ? mkdtempSync("/dev/shm/pm-crash-") : tempDir("pm-crash-")
afterAll(() => rmSync(trialRoot, { recursive: true, force: true }))

export const freshMemory = () => {
  const base = realpathSync(mkdtempSync(join(trialRoot, "t-")))
  const memoryDir = join(base, "memory")
  const rootDir = join(base, "root")
  mkdirSync(memoryDir)
  mkdirSync(rootDir)
  for (const [name, content] of Object.entries(OLD)) writeFileSync(join(memoryDir, name), content)
  return { memoryDir, rootDir }
}

/** The memory files (temp files of a killed writer left out: they are swept later), name to content. */
export const memoryFiles = (memoryDir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const name of readdirSync(memoryDir)) {
    if (/^\.pm-.*\.tmp$/.test(name)) continue
    out[name] = readFileSync(join(memoryDir, name), "utf8")
  }
  return out
}

/** Every file holds its old bytes or its new bytes (or is absent where the task created or deleted it). */
export const expectOldOrNew = (memoryDir: string): void => {
  const files = memoryFiles(memoryDir)
  expect(Object.keys(files).every((n) => n in OLD || n in NEW)).toBe(true)
  expect([OLD["a.md"], NEW["a.md"]]).toContain(files["a.md"])
  expect([OLD["b.md"], undefined]).toContain(files["b.md"])
  expect([undefined, NEW["c.md"]]).toContain(files["c.md"])
}

export const expectJournalParses = (rootDir: string): void => {
  let text = ""
  try {
    text = readFileSync(join(rootDir, "journal", "journal.jsonl"), "utf8")
  } catch {
    return
  }
  const decoded = decodeJournal(text)
  expect(decoded.invalidLines).toBe(0)
  expect(decoded.tornTail).toBe(false)
}

const layer = Journal.layer.pipe(Layer.provideMerge(LockService.layer), Layer.provide(FileSystem.layer))

/** Undo in this process, after a kill: either nothing was left to undo, or a result. */
export const undoNow = (memoryDir: string, rootDir: string): Promise<UndoResult | "nothing"> =>
  Effect.runPromise(
    Effect.flatMap(Journal, (j) => j.undo({ rootDir, memoryDir }, { session: null, model: null })).pipe(
      Effect.catchTag("NothingToUndo", () => Effect.succeed("nothing" as const)),
      Effect.provide(layer)
    )
  )

/** Seeded: the same seed picks the same kill points. */
export const mulberry32 = (seed: number) => () => {
  seed |= 0
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** `count` distinct kill points in 1..total (all of them when there are fewer). */
export const killPoints = (total: number, count: number, seed: number): Array<number> => {
  const all = Array.from({ length: total }, (_, i) => i + 1)
  if (total <= count) return all
  const random = mulberry32(seed)
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[all[i], all[j]] = [all[j]!, all[i]!]
  }
  return all.slice(0, count).sort((a, b) => a - b)
}

/**
 * The trials of one test file: the scenario is run once to its end to count its file-system operations, then killed
 * before each operation whose number is `part` modulo `parts` (so the files of one scenario together cover every
 * point). For "undo", each trial starts from a copy of a memory where the task was published in full.
 */
export const runTrials = async (worker: string, scenario: "task" | "undo", part: number, parts: number) => {
  const published = async () => {
    const env = freshMemory()
    const run = await runWorker(worker, { ...env, scenario: "task", killAt: null })
    expect(run.stderr).toBe("")
    expect(memoryFiles(env.memoryDir)).toEqual(NEW)
    return env
  }
  const template = scenario === "undo" ? await published() : undefined
  const start = () => {
    const env = freshMemory()
    if (template !== undefined) {
      rmSync(env.memoryDir, { recursive: true })
      rmSync(env.rootDir, { recursive: true })
      cpSync(template.memoryDir, env.memoryDir, { recursive: true })
      cpSync(template.rootDir, env.rootDir, { recursive: true })
    }
    return env
  }
  const dry = start()
  const full = await runWorker(worker, { ...dry, scenario, killAt: null })
  expect(full.stderr).toBe("")
  expect(memoryFiles(dry.memoryDir)).toEqual(scenario === "task" ? NEW : OLD)
  const total = Number(/ops (\d+)/.exec(full.stdout)?.[1])
  expect(total).toBeGreaterThan(30)
  const counts = { trials: 0, nothingToUndo: 0 }
  for (let killAt = 1 + part; killAt <= total; killAt += parts) {
    const env = start()
    const run = await runWorker(worker, { ...env, scenario, killAt })
    const at = `killed before operation ${killAt} of ${total} (${scenario})`
    expect(run.signal, at).toBe("SIGKILL")
    expectOldOrNew(env.memoryDir)
    expectJournalParses(env.rootDir)
    // The killed process may have held journal.lock; its holder is gone (lock recovery is tested with the locks).
    rmSync(join(env.rootDir, "locks"), { recursive: true, force: true })
    const undone = await undoNow(env.memoryDir, env.rootDir)
    if (undone === "nothing") counts.nothingToUndo++
    else expect(undone.refused, at).toEqual([])
    expect(memoryFiles(env.memoryDir), at).toEqual(OLD)
    expectJournalParses(env.rootDir)
    counts.trials++
  }
  return { ...counts, total }
}

type TrialCounts = Awaited<ReturnType<typeof runTrials>>

/** How each scenario's test is named, and what its trials must show besides what every trial checks. */
const SCENARIOS: Record<"task" | "undo", { readonly title: string; readonly check: (counts: TrialCounts) => void }> = {
  task: {
    title: "kill -9 at every point of record and publish",
    check: (counts) => {
      expect(counts.trials).toBeGreaterThan(20)
      // Kills before the first intent leave nothing to undo; later ones leave a task that undo reverses.
      expect(counts.nothingToUndo).toBeGreaterThan(0)
      expect(counts.nothingToUndo).toBeLessThan(counts.trials)
    }
  },
  undo: {
    title: "kill -9 at every point of undo",
    check: (counts) => {
      expect(counts.trials).toBeGreaterThan(20)
      expect(counts.nothingToUndo).toBeLessThan(counts.trials)
    }
  }
}

/** The test of one crash file: part `part` of `parts` of a scenario's kill points (the files run in parallel). */
export const describeCrashPart = (scenario: "task" | "undo", part: number, parts: number): void => {
  const worker = useBundledWorker()
  describe(`${SCENARIOS[scenario].title} (part ${part} of ${parts})`, () => {
    it("files old or new, journal parseable, undo exact", async () => {
      SCENARIOS[scenario].check(await runTrials(worker(), scenario, part, parts))
    })
  })
}
