/**
 * Lock, compare-and-swap and publish costs, each beside a bare baseline measured in the same run.
 *   node bench/locks.ts            (Node >= 22.18 runs the TypeScript directly)
 * The process re-executes itself as a worker for the multi-process measurements.
 * - takeover: how long after its timeout a SIGKILLed holder's lock is taken by a waiting process (the tests check
 *   only that it is never before the timeout; how soon after is this figure).
 */
import { Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import * as fsp from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { FileSystem } from "../layers/storage/FileSystem.ts"
import { LockService } from "../layers/storage/LockService.ts"
import { MemoryWriter } from "../layers/writes/MemoryWriter.ts"
import { StateStore } from "../layers/storage/StateStore.ts"

const layer = Layer.mergeAll(StateStore.layer, MemoryWriter.layer).pipe(
  Layer.provideMerge(LockService.layer),
  Layer.provideMerge(FileSystem.layer)
)
const SELF = fileURLToPath(import.meta.url)

// ---------------------------------------------------------------------------------------------- worker side
interface WorkerArgs {
  readonly kind: "cas" | "bare" | "hold"
  readonly rootDir: string
  readonly count: number
}

const TAKEOVER_TIMEOUT_MS = 1_000
const TAKEOVER_HEARTBEAT_MS = 100
const takeoverLocks = LockService.layerWith({
  timeouts: { "dream.lock": TAKEOVER_TIMEOUT_MS },
  heartbeatMs: TAKEOVER_HEARTBEAT_MS
}).pipe(Layer.provide(FileSystem.layer))

/** Takes `dream.lock` under rootDir, says so, and holds it until killed. */
const holdForever = (rootDir: string) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const locks = yield* LockService
    const result = yield* locks.acquire(rootDir, "dream.lock")
    if (result._tag !== "Acquired") throw new Error("the lock was busy")
    process.stdout.write("acquired\n")
    return yield* Effect.never
  })).pipe(Effect.provide(takeoverLocks)))

const bareIncrement = async (rootDir: string) => {
  const path = join(rootDir, "bare.json")
  const current = await fsp.readFile(path, "utf8").then((t) => JSON.parse(t) as { n: number }, () => ({ n: 0 }))
  const temp = `${path}.${process.pid}.${Math.random()}.tmp`
  await fsp.writeFile(temp, JSON.stringify({ n: current.n + 1 }))
  await fsp.rename(temp, path)
}

const runWorker = async (args: WorkerArgs) => {
  if (args.kind === "hold") return holdForever(args.rootDir)
  process.stdout.write("ready\n")
  await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()))
  const start = performance.timeOrigin + performance.now()
  if (args.kind === "bare") {
    for (let i = 0; i < args.count; i++) await bareIncrement(args.rootDir)
  } else {
    await Effect.runPromise(Effect.gen(function*() {
      const store = yield* StateStore
      for (let i = 0; i < args.count; i++) {
        yield* store.update({ rootDir: args.rootDir }, (s) => ({ ...s, n: Number(s["n"] ?? 0) + 1 }))
      }
    }).pipe(Effect.provide(layer)))
  }
  process.stdout.write(JSON.stringify({ start, end: performance.timeOrigin + performance.now() }) + "\n")
}

// ---------------------------------------------------------------------------------------------- parent side
const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

const timeLoop = async (n: number, body: (i: number) => Promise<unknown>) => {
  const start = performance.now()
  for (let i = 0; i < n; i++) await body(i)
  return n / ((performance.now() - start) / 1000)
}

/** Runs `processes` workers, releases them together, and returns increments per second and the final count. */
const multiProcess = async (kind: WorkerArgs["kind"], processes: number, count: number, base: string) => {
  const rootDir = join(base, `${kind}-${processes}`)
  mkdirSync(rootDir, { recursive: true })
  const children = Array.from({ length: processes }, () =>
    spawn(process.execPath, [SELF, "worker", JSON.stringify({ kind, rootDir, count } satisfies WorkerArgs)], {
      stdio: ["pipe", "pipe", "inherit"]
    }))
  const outputs = children.map((child) => {
    let text = ""
    child.stdout.setEncoding("utf8").on("data", (c: string) => (text += c))
    return {
      ready: new Promise<void>((resolve) => {
        const check = () => (text.includes("ready\n") ? resolve() : setTimeout(check, 5))
        check()
      }),
      done: new Promise<{ start: number; end: number }>((resolve) =>
        child.on("exit", () => resolve(JSON.parse(text.split("\n").filter(Boolean).pop()!))))
    }
  })
  await Promise.all(outputs.map((o) => o.ready))
  for (const child of children) child.stdin.end("go\n")
  const spans = await Promise.all(outputs.map((o) => o.done))
  const seconds = (Math.max(...spans.map((s) => s.end)) - Math.min(...spans.map((s) => s.start))) / 1000
  const file = kind === "bare" ? join(rootDir, "bare.json") : join(rootDir, "state.json")
  const final = (JSON.parse(readFileSync(file, "utf8")) as { n: number }).n
  return { perSecond: (processes * count) / seconds, final, expected: processes * count }
}

/** One takeover: ms between the holder's last heartbeat + timeout and the waiter holding the lock. */
const takeoverOnce = async (base: string, round: number): Promise<number> => {
  const rootDir = join(base, `takeover-${round}`)
  mkdirSync(rootDir, { recursive: true })
  const holder = spawn(process.execPath, [SELF, "worker", JSON.stringify({ kind: "hold", rootDir, count: 0 } satisfies WorkerArgs)], {
    stdio: ["ignore", "pipe", "inherit"]
  })
  await new Promise<void>((resolve) => {
    let text = ""
    holder.stdout.setEncoding("utf8").on("data", (c: string) => {
      text += c
      if (text.includes("acquired\n")) resolve()
    })
  })
  const exited = new Promise<void>((resolve) => holder.on("exit", () => resolve()))
  holder.kill("SIGKILL")
  await exited
  const lastHeartbeat = statSync(join(rootDir, "dream.lock")).mtimeMs
  const acquiredAt = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const locks = yield* LockService
    const result = yield* locks.acquireOrWait(rootDir, "dream.lock", { maxWaitMs: 30_000 })
    if (result._tag !== "Acquired") throw new Error("the waiter gave up")
    return Date.now()
  })).pipe(Effect.provide(takeoverLocks)))
  return acquiredAt - lastHeartbeat - TAKEOVER_TIMEOUT_MS
}

const main = async () => {
  const base = mkdtempSync(join(tmpdir(), "pm-bench-locks-"))
  const rows: Array<[string, string, string, string]> = []
  const ratio = (ours: number, baseline: number) => `${(ours / baseline).toFixed(2)}x`
  try {
    // 1. Uncontended acquire + release.
    const locksDir = join(base, "locks")
    mkdirSync(locksDir)
    const n = 2_000
    const lockRate = await Effect.runPromise(Effect.gen(function*() {
      const locks = yield* LockService
      yield* Effect.scoped(locks.acquire(locksDir, "extract.lock")) // warm-up
      const start = performance.now()
      for (let i = 0; i < n; i++) yield* Effect.scoped(locks.acquire(locksDir, "extract.lock"))
      return n / ((performance.now() - start) / 1000)
    }).pipe(Effect.provide(layer)))
    const bareLock = join(base, "bare.lock")
    const bareRate = await timeLoop(n, async () => {
      await fsp.writeFile(bareLock, "x", { flag: "wx" })
      await fsp.unlink(bareLock)
    })
    rows.push(["acquire+release (uncontended)", `${lockRate.toFixed(0)}/s`, `${bareRate.toFixed(0)}/s wx+unlink`, ratio(lockRate, bareRate)])

    // 2. Compare-and-swap increments with 1, 4 and 8 processes.
    for (const processes of [1, 4, 8]) {
      const count = processes === 1 ? 400 : 150
      const cas = await multiProcess("cas", processes, count, base)
      const bare = await multiProcess("bare", processes, count, base)
      rows.push([
        `CAS increments, ${processes} process${processes > 1 ? "es" : ""}`,
        `${cas.perSecond.toFixed(0)}/s (${cas.final}/${cas.expected} kept)`,
        `${bare.perSecond.toFixed(0)}/s read+write+rename, no lock (${bare.final}/${bare.expected} kept)`,
        ratio(cas.perSecond, bare.perSecond)
      ])
    }

    // 3. Publish latency of a 4 KB topic (existing file, with a baseline).
    const memoryDir = join(base, "memory")
    mkdirSync(memoryDir)
    const topic = (i: number) =>
      `---\nname: bench\ndescription: bench topic ${i}\nmetadata:\n  type: project\n---\n` + "x".repeat(4_000) + "\n"
    writeFileSync(join(memoryDir, "bench.md"), topic(-1))
    const samples = 500
    const ours = await Effect.runPromise(Effect.gen(function*() {
      const writer = yield* MemoryWriter
      const task = yield* writer.openTask({ memoryDir, cwd: memoryDir })
      yield* task.recordRead("bench.md", { kind: "text", truncated: false })
      const times: Array<number> = []
      for (let i = 0; i < samples; i++) {
        const start = performance.now()
        yield* task.write(join(memoryDir, "bench.md"), topic(i))
        times.push(performance.now() - start)
      }
      return times.sort((a, b) => a - b)
    }).pipe(Effect.provide(layer)))
    const bareTimes: Array<number> = []
    const barePath = join(memoryDir, "bare.md")
    for (let i = 0; i < samples; i++) {
      const start = performance.now()
      await fsp.writeFile(`${barePath}.tmp`, topic(i))
      await fsp.rename(`${barePath}.tmp`, barePath)
      bareTimes.push(performance.now() - start)
    }
    bareTimes.sort((a, b) => a - b)
    const ms = (v: number) => `${v.toFixed(2)} ms`
    rows.push([
      "publish 4 KB topic, p50 / p95",
      `${ms(percentile(ours, 0.5))} / ${ms(percentile(ours, 0.95))}`,
      `${ms(percentile(bareTimes, 0.5))} / ${ms(percentile(bareTimes, 0.95))} writeFile+rename`,
      ratio(percentile(ours, 0.5), percentile(bareTimes, 0.5))
    ])

    // 4. Takeover of a SIGKILLed holder's lock by a waiting process.
    const lateness: Array<number> = []
    for (let round = 0; round < 5; round++) lateness.push(await takeoverOnce(base, round))
    lateness.sort((a, b) => a - b)
    rows.push([
      "takeover after SIGKILL, median / max",
      `${percentile(lateness, 0.5).toFixed(0)} / ${lateness[lateness.length - 1]!.toFixed(0)} ms after the timeout`,
      `timeout ${TAKEOVER_TIMEOUT_MS} ms, heartbeat ${TAKEOVER_HEARTBEAT_MS} ms`,
      "-"
    ])
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
  const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => r[c]!.length), 8))
  const header: [string, string, string, string] = ["measure", "ours", "baseline", "ours/baseline"]
  for (const row of [header, ...rows]) console.log(row.map((cell, c) => cell.padEnd(widths[c]!)).join("  "))
  console.log(`node ${process.version}, ${process.platform}; publish includes containment, baseline check, lint`)
}

if (process.argv[2] === "worker") {
  await runWorker(JSON.parse(process.argv[3]!) as WorkerArgs)
} else {
  await main()
}
