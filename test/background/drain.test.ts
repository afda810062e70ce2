/**
 * The drain of a project's queue with the extension's own graph and a scripted Extractor: jobs run oldest first, each
 * over its own branch, cursor, cwd, session and model; a job leaves the queue only once its extraction returned an
 * outcome that advances a cursor; a failed or busy one stays and the drain goes on, a task that may no longer run
 * stops it. queue.lock keeps two drainers apart. A session's drain runs in the background and its end does not wait
 * for it; an untrusted session runs nothing and says what waits.
 */
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as TestContext from "effect/TestContext"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { BackgroundSession } from "../../layers/background/BackgroundSession.ts"
import { Extractor } from "../../layers/background/Extractor.ts"
import { ExtractionFailed, type ExtractionOutcome, type ExtractionRequest, type ExtractorShape } from "../../layers/background/extractorInterface.ts"
import { makeQueueStore } from "../../layers/background/queueStore.ts"
import { ProjectLocator } from "../../layers/project/ProjectLocator.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { TaskInvalid } from "../../layers/writes/writeErrors.ts"
import { makeJob } from "../../src/background/queue.ts"
import { QUEUE_JOB_MAX_ATTEMPTS } from "../../src/limits.ts"
import { locksDirOf } from "../../src/storage/layout.ts"
import { Context, extensionGraph, hostLayer } from "../support/extensionGraph.ts"
import { tempDir } from "../support/tmp.ts"

type Step = ExtractionOutcome | "fail" | "invalid" | "wait"

interface Script {
  readonly requests: Array<ExtractionRequest>
  /** What each call does, in order (default: a run that saved nothing). */
  readonly steps: Array<Step>
  readonly started: Queue.Queue<void>
}

const ran = (advanceTo: string): ExtractionOutcome => ({ status: "ran", stop: "done", turns: 1, mode: "independent", filesChanged: [], finalText: "", errorMessage: undefined, advanceTo })

const scripted = (script: Script): ExtractorShape => ({
  extract: (request) =>
    Effect.gen(function*() {
      script.requests.push(request)
      if (request.onStart !== undefined) yield* request.onStart
      yield* Queue.offer(script.started, undefined)
      const step = script.steps.shift() ?? ran(request.branch.at(-1)!.id)
      if (step === "fail") return yield* Effect.fail(new ExtractionFailed({ reason: "the model went away" }))
      if (step === "invalid") return yield* Effect.fail(new TaskInvalid({ reason: "project memory was turned off" }))
      if (step === "wait") return yield* Effect.never
      return step
    })
})

const setup = (o: { readonly trusted?: boolean; readonly steps?: Array<Step> } = {}) => {
  const base = tempDir("pm-drain-")
  const cwd = join(base, "project")
  mkdirSync(cwd)
  execFileSync("git", ["init", "-q"], { cwd })
  const script: Script = { requests: [], steps: [...(o.steps ?? [])], started: Effect.runSync(Queue.unbounded<void>()) }
  const host = hostLayer(cwd, { isTrusted: Effect.succeed(o.trusted ?? true), sessionId: Effect.succeed("later-session") })
  const layer = extensionGraph({ host, env: { agentDir: join(base, "agent"), home: base }, services: Context.make(Extractor, scripted(script)) })
  return { cwd, layer, script }
}

const run = <A>(ctx: ReturnType<typeof setup>, body: Effect.Effect<A, unknown, any>) =>
  Effect.runPromise(body.pipe(Effect.provide(ctx.layer), Effect.scoped, Effect.provide(TestContext.TestContext)) as Effect.Effect<A>)

const store = makeQueueStore(makeNodeFileSystem())

/** Queues a job of session `session` at `queuedAt`; returns the memory root. */
const enqueue = (cwd: string, session: string, queuedAt: number) =>
  Effect.gen(function*() {
    const rootDir = (yield* (yield* ProjectLocator).locate(cwd)).memoryRootDir
    const made = makeJob({
      session,
      cwd,
      queuedAt,
      reason: "the session ended before these messages were extracted",
      model: null,
      cursor: undefined,
      branch: [
        { type: "message", id: `${session}-u`, message: { role: "user", content: `remember what ${session} said` } },
        { type: "message", id: `${session}-a`, message: { role: "assistant", content: "ok" } }
      ]
    })
    if (made._tag !== "Job") throw new Error("no job")
    yield* store.enqueue(rootDir, made.job, made.text)
    return rootDir
  })

const waiting = (rootDir: string) => store.list(rootDir).pipe(Effect.map((l) => l.jobs.map((e) => e.job.session)))

describe("the drain of the queue", () => {
  it("runs the jobs oldest first over their own entries; a failed or busy job stays, the others leave the queue", async () => {
    const ctx = setup({ steps: [ran("a-a"), "fail", { status: "busy", holder: "pm forget", waitedMs: 600_000 }, { status: "skipped", reason: "too-few-words", advanceTo: "d-a" }] })
    await run(
      ctx,
      Effect.gen(function*() {
        for (const [s, t] of [["c", 3_000], ["a", 1_000], ["d", 4_000], ["b", 2_000]] as const) yield* enqueue(ctx.cwd, s, t)
        const rootDir = yield* enqueue(ctx.cwd, "e", 5_000)
        const bg = yield* BackgroundSession
        yield* bg.start
        const result = yield* bg.drainNow({ waitMs: 0, lockKind: "pm extract" })
        expect(ctx.script.requests.map((r) => r.sessionId)).toEqual(["a", "b", "c", "d", "e"])
        const first = ctx.script.requests[0]!
        expect(first).toMatchObject({ cwd: ctx.cwd, cursor: undefined, taskSessionId: "a-memory-extract", parent: undefined, lockKind: "pm extract" })
        expect(first.branch.map((e) => e.id)).toEqual(["a-u", "a-a"])
        expect(result._tag).toBe("Drained")
        if (result._tag !== "Drained") return
        expect(result.runs.map((r) => [r.entry.job.session, r.record.outcome, r.removed])).toEqual([
          ["a", "nothing", true],
          ["b", "failed", false],
          ["c", "busy", false],
          ["d", "skipped", true],
          ["e", "nothing", true]
        ])
        expect(result.runs[2]!.record.detail).toMatch(/^extract\.lock was held by pm forget for all of the 600 s waited; the job stays queued; queued \d+ days ago by session c/)
        expect(result.left).toBe(2)
        expect(yield* waiting(rootDir)).toEqual(["b", "c"])
        expect((yield* bg.status).history.map((r) => r.trigger)).toEqual(["queue", "queue", "queue", "queue", "queue"])
      })
    )
  })

  it("a job ended by its model's error stays queued, counted, and stops the drain, until QUEUE_JOB_MAX_ATTEMPTS such ends give it up", async () => {
    const modelError = (advanceTo: string): ExtractionOutcome => ({ status: "ran", stop: "api-error", turns: 1, mode: "independent", filesChanged: [], finalText: "", errorMessage: "503 upstream unavailable", advanceTo })
    const ctx = setup({ steps: Array.from({ length: QUEUE_JOB_MAX_ATTEMPTS }, () => modelError("a-a")) })
    await run(
      ctx,
      Effect.gen(function*() {
        yield* enqueue(ctx.cwd, "a", 1_000)
        const rootDir = yield* enqueue(ctx.cwd, "b", 2_000)
        const bg = yield* BackgroundSession
        yield* bg.start
        for (let attempt = 1; attempt < QUEUE_JOB_MAX_ATTEMPTS; attempt++) {
          const result = yield* bg.drainNow({ waitMs: 0, lockKind: "pm extract" })
          expect(result).toMatchObject({ _tag: "Drained", left: 2, stoppedBecause: "the model failed; the queued jobs wait for the next drain" })
          if (result._tag === "Drained") expect(result.runs[0]!.record.detail).toContain(`the job stays queued (attempt ${attempt} of ${QUEUE_JOB_MAX_ATTEMPTS})`)
          expect(yield* waiting(rootDir)).toEqual(["a", "b"])
          expect((yield* store.list(rootDir)).jobs[0]!.job.attempts).toBe(attempt)
        }
        // The last attempt gives the job up (as a session's run gives up its messages) and the drain goes on.
        const last = yield* bg.drainNow({ waitMs: 0, lockKind: "pm extract" })
        expect(last).toMatchObject({ _tag: "Drained", left: 0 })
        if (last._tag === "Drained") expect(last.runs[0]!.record.detail).toContain(`given up after ${QUEUE_JOB_MAX_ATTEMPTS} attempts`)
        expect(ctx.script.requests.map((r) => r.sessionId)).toEqual([...Array.from({ length: QUEUE_JOB_MAX_ATTEMPTS }, () => "a"), "b"])
        // Each attempt but the last takes back what it saved, so the retry saves nothing twice; the last keeps it.
        expect(ctx.script.requests.map((r) => r.rollBackOnModelError)).toEqual([
          ...Array.from({ length: QUEUE_JOB_MAX_ATTEMPTS - 1 }, () => true),
          false,
          true
        ])
      })
    )
  })

  it("stops when its task may no longer run: the rest stays queued", async () => {
    const ctx = setup({ steps: ["invalid"] })
    await run(
      ctx,
      Effect.gen(function*() {
        yield* enqueue(ctx.cwd, "a", 1_000)
        const rootDir = yield* enqueue(ctx.cwd, "b", 2_000)
        const bg = yield* BackgroundSession
        yield* bg.start
        const result = yield* bg.drainNow({ waitMs: 0, lockKind: "pm extract" })
        expect(result).toMatchObject({ _tag: "Drained", left: 2, stoppedBecause: "project memory was turned off" })
        expect(ctx.script.requests).toHaveLength(1)
        expect(yield* waiting(rootDir)).toEqual(["a", "b"])
      })
    )
  })

  it("two drainers never run the same job: while queue.lock is held, a drain is busy and a session starts none", async () => {
    const ctx = setup()
    await run(
      ctx,
      Effect.gen(function*() {
        const rootDir = yield* enqueue(ctx.cwd, "a", 1_000)
        const held = yield* (yield* LockService).acquire(locksDirOf(rootDir), "queue.lock", { kind: "pm extract" })
        expect(held._tag).toBe("Acquired")
        const bg = yield* BackgroundSession
        yield* bg.start
        expect(yield* bg.drainNow({ waitMs: 0, lockKind: "pm extract" })).toMatchObject({ _tag: "Busy", holder: expect.stringMatching(/^pm extract, pid \d+/) })
        yield* bg.drainQueued
        yield* bg.shutdown("quit")
        expect(ctx.script.requests).toEqual([])
        expect(yield* waiting(rootDir)).toEqual(["a"])
      })
    )
  })

  it("a session's drain runs in the background, and its end stops it without waiting: the job stays queued", async () => {
    const ctx = setup({ steps: ["wait"] })
    await run(
      ctx,
      Effect.gen(function*() {
        const rootDir = yield* enqueue(ctx.cwd, "a", 1_000)
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* bg.drainQueued
        yield* Queue.take(ctx.script.started)
        // The drain's job never ends by itself; the shutdown returns all the same (the clock never moves).
        yield* bg.shutdown("quit")
        expect(yield* waiting(rootDir)).toEqual(["a"])
        const last = (yield* bg.status).history.at(-1)!
        expect([last.trigger, last.outcome]).toEqual(["queue", "stopped"])
        expect(last.detail).toMatch(/^interrupted; the job stays queued \(queued \d+ days ago by session a/)
      })
    )
  })

  it("an untrusted project runs nothing: the jobs wait, and the drain says why", async () => {
    const ctx = setup({ trusted: false })
    await run(
      ctx,
      Effect.gen(function*() {
        const rootDir = yield* enqueue(ctx.cwd, "a", 1_000)
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* bg.drainQueued
        const result = yield* bg.drainNow({ waitMs: 0, lockKind: "pm extract" })
        expect(result).toEqual({ _tag: "NotNow", reason: "the project is no longer trusted", queue: { count: 1, oldestAt: 1_000, damaged: 0 } })
        expect(ctx.script.requests).toEqual([])
        expect(existsSync(join(rootDir, "queue"))).toBe(true)
        expect(yield* waiting(rootDir)).toEqual(["a"])
      })
    )
  })
})

