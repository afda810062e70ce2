/**
 * A child process for the concurrency tests: `node test/locks/worker.ts <mode> <json-args>`.
 * Node 22 strips the types itself, so this runs without a build. Each mode prints JSON lines on stdout.
 */
import { Effect, Layer } from "effect"
import { appendFileSync, readFileSync } from "node:fs"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { StateStore } from "../../layers/storage/StateStore.ts"
import { MemoryWriter } from "../../layers/writes/MemoryWriter.ts"
import type { LockName } from "../../src/limits.ts"

interface Args {
  readonly locksDir?: string
  readonly rootDir?: string
  readonly name?: LockName
  readonly timeoutMs?: number
  readonly heartbeatMs?: number
  readonly log?: string
  readonly iterations?: number
  readonly holdMs?: number
  readonly maxWaitMs?: number
  readonly memoryDir?: string
  readonly files?: ReadonlyArray<string>
  /** Files holding the contents to publish (too large for argv). */
  readonly contentFiles?: ReadonlyArray<string>
}

const [mode = "", raw = "{}"] = process.argv.slice(2)
const args = JSON.parse(raw) as Args
const name: LockName = args.name ?? "extract.lock"
const timeoutMs = args.timeoutMs ?? 60_000

const locks = LockService.layerWith({
  timeouts: { "extract.lock": timeoutMs, "dream.lock": timeoutMs, "last-dream-at.lock": timeoutMs },
  ...(args.heartbeatMs === undefined ? {} : { heartbeatMs: args.heartbeatMs })
}).pipe(Layer.provideMerge(FileSystem.layer))
const all = Layer.mergeAll(StateStore.layer, MemoryWriter.layer).pipe(Layer.provideMerge(locks))

const say = (value: unknown) => Effect.sync(() => process.stdout.write(JSON.stringify(value) + "\n"))

const contend = Effect.gen(function*() {
  const service = yield* LockService
  for (let i = 0; i < (args.iterations ?? 10); i++) {
    const outcome = yield* service.withLock(args.locksDir!, name, () =>
      Effect.gen(function*() {
        appendFileSync(args.log!, `B ${process.pid} ${i}\n`)
        yield* Effect.sleep(Math.floor(Math.random() * 3))
        appendFileSync(args.log!, `E ${process.pid} ${i}\n`)
      }), { maxWaitMs: args.maxWaitMs ?? 30_000 })
    if (outcome._tag === "Busy") return yield* Effect.die(new Error("gave up waiting"))
  }
  yield* say({ done: true })
})

/** Reports that it is about to try, takes the lock, reports, holds it for holdMs (or until killed), then releases. */
const hold = Effect.gen(function*() {
  const service = yield* LockService
  yield* say({ trying: true })
  const outcome = yield* service.withLock(args.locksDir!, name, (lock) =>
    Effect.gen(function*() {
      yield* say({ acquired: true, token: lock.token, at: Date.now() })
      yield* Effect.sleep(args.holdMs ?? 3_600_000)
    }), { maxWaitMs: args.maxWaitMs ?? 0 })
  yield* say(outcome._tag === "Busy" ? { busy: true, holder: outcome.holder } : { released: true, at: Date.now() })
})

const cas = Effect.gen(function*() {
  const store = yield* StateStore
  for (let i = 0; i < (args.iterations ?? 200); i++) {
    yield* store.update({ rootDir: args.rootDir! }, (s) => ({ ...s, counter: Number(s["counter"] ?? 0) + 1 }))
  }
  yield* say({ done: true })
})

/** Rewrites every file in turn with each content in turn, forever (until killed). */
const publishLoop = Effect.gen(function*() {
  const writer = yield* MemoryWriter
  const task = yield* writer.openTask({ memoryDir: args.memoryDir!, cwd: args.memoryDir! })
  const files = args.files ?? []
  const contents = (args.contentFiles ?? []).map((f) => readFileSync(f, "utf8"))
  for (const file of files) yield* task.recordRead(file, { kind: "text", truncated: false })
  yield* say({ ready: true })
  for (let round = 0;; round++) {
    for (const file of files) {
      yield* task.write(file, contents[round % contents.length]!)
    }
  }
})

const program: Effect.Effect<void, unknown, LockService | StateStore | MemoryWriter> = mode === "contend"
  ? contend
  : mode === "hold"
  ? hold
  : mode === "cas"
  ? cas
  : mode === "publish-loop"
  ? publishLoop
  : Effect.die(new Error(`unknown mode ${mode}`))

Effect.runPromise(program.pipe(Effect.provide(all))).then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(String(e) + "\n")
    process.exit(2)
  }
)
