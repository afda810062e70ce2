/**
 * BackgroundSession's scheduling with a scripted Extractor: trailing extraction, extraction before compaction,
 * invalidation, and the shutdown wait (60 s on the TestClock, then interruption).
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Context from "effect/Context"
import * as Queue from "effect/Queue"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { BackgroundSession } from "../../layers/background/BackgroundSession.ts"
import { Extractor } from "../../layers/background/Extractor.ts"
import type { ExtractionOutcome, ExtractionRequest, ExtractorShape } from "../../layers/background/extractorInterface.ts"
import { extensionGraph, hostLayer } from "../support/extensionGraph.ts"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

interface Script {
  /** Each call of extract gets the next gate; the call waits for it, then returns a run. */
  readonly calls: Array<{ request: ExtractionRequest; gate: Deferred.Deferred<void>; interrupted: boolean }>
  /** One item per call, offered when it starts: tests wait on it instead of on time. */
  readonly started: Queue.Queue<number>
  /** What every call returns once released (default: a run that saved nothing). */
  outcome: ExtractionOutcome | undefined
}

const setup = Effect.gen(function*() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-bgs-")))
  dirs.push(base)
  const cwd = join(base, "project")
  mkdirSync(cwd)
  execFileSync("git", ["init", "-q"], { cwd })
  const branch: Array<any> = [
    { type: "message", id: "u1", message: { role: "user", content: "remember the deploy day" } },
    { type: "message", id: "a1", message: { role: "assistant", content: [{ type: "text", text: "ok" }] } }
  ]
  const appended: Array<{ customType: string; data: any }> = []
  const idle = { value: true }
  const script: Script = { calls: [], started: yield* Queue.unbounded<number>(), outcome: undefined }
  const host = hostLayer(cwd, {
    isIdle: Effect.sync(() => idle.value),
    branch: Effect.sync(() => branch),
    appendEntry: (customType, data) => Effect.sync(() => void appended.push({ customType, data }))
  })
  const extractor: ExtractorShape = {
    extract: (request) =>
      Effect.gen(function*() {
        const gate = yield* Deferred.make<void>()
        const entry = { request, gate, interrupted: false }
        script.calls.push(entry)
        yield* Queue.offer(script.started, script.calls.length)
        yield* Deferred.await(gate).pipe(Effect.onInterrupt(() => Effect.sync(() => void (entry.interrupted = true))))
        return script.outcome ??
          ({ status: "ran", stop: "done", turns: 1, mode: "fork", filesChanged: [], finalText: "", errorMessage: undefined, advanceTo: branch.at(-1)!.id } satisfies ExtractionOutcome)
      })
  }
  // The extension's own graph, with the extractor scripted (no session directory: no dream is due).
  const layer = extensionGraph({ host, env: { agentDir: join(base, "agent"), home: base }, services: Context.make(Extractor, extractor) })
  return { layer, script, branch, appended, idle }
})

/**
 * Lets the dispatch's own start happen: one turn of the event loop (the dispatch waits for one, `setImmediate`),
 * then the fibers it woke run until they block.
 */
const macrotask = Effect.async<void>((resume) => void setImmediate(() => resume(Effect.void)))
const settle = Effect.repeatN(macrotask.pipe(Effect.zipRight(Effect.repeatN(Effect.yieldNow(), 20))), 3)
/** Waits for the next extract call to start. */
const started = (s: Script) => Queue.take(s.started)

const run = <A>(body: (ctx: Effect.Effect.Success<typeof setup>) => Effect.Effect<A, unknown, BackgroundSession>) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const ctx = yield* setup
      return yield* body(ctx).pipe(Effect.provide(ctx.layer))
    }).pipe(Effect.scoped, Effect.provide(TestContext.TestContext)) as Effect.Effect<A>
  )

const release = (s: Script, i: number) => Effect.suspend(() => Deferred.succeed(s.calls[i]!.gate, undefined))

describe("BackgroundSession scheduling", () => {
  it("turns that settle during a run mark one trailing extraction, run after it, without aborting it", () =>
    run(({ script, appended }) =>
      Effect.gen(function*() {
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* bg.settled(false)
        yield* started(script)
        yield* bg.settled(false)
        yield* bg.settled(false)
        yield* settle
        expect(script.calls).toHaveLength(1)
        expect(script.calls[0]!.interrupted).toBe(false)
        yield* release(script, 0)
        yield* started(script)
        yield* release(script, 1)
        yield* bg.idle
        expect(script.calls).toHaveLength(2)
        expect(appended.filter((e) => e.customType === "pm-extract-cursor").map((e) => e.data.cursor)).toEqual(["a1"])
        expect((yield* bg.status).runs.extract?.trigger).toBe("trailing")
      })))

  it("an aborted turn dispatches nothing", () =>
    run(({ script }) =>
      Effect.gen(function*() {
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* bg.settled(true)
        // Whichever comes first: no task left (nothing was dispatched), or an extraction starting.
        const first = yield* Effect.raceFirst(bg.idle.pipe(Effect.as("idle")), started(script).pipe(Effect.as("extraction started")))
        expect(first).toBe("idle")
        yield* settle
        expect(script.calls).toHaveLength(0)
      })))

  it("before compaction: waits for the running extraction, then extracts the rest", () =>
    run(({ script }) =>
      Effect.gen(function*() {
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* bg.settled(false)
        yield* started(script)
        const compaction = yield* Effect.fork(bg.beforeCompact())
        yield* settle
        expect(script.calls).toHaveLength(1)
        expect(compaction.unsafePoll()).toBeNull()
        yield* release(script, 0)
        yield* started(script)
        expect(script.calls[1]!.request.cursor).toBe("a1")
        expect(compaction.unsafePoll()).toBeNull()
        yield* release(script, 1)
        yield* Fiber.join(compaction)
        expect((yield* bg.status).runs.extract?.trigger).toBe("compaction")
      })))

  it("invalidation interrupts the running task at once and keeps the cursor", () =>
    run(({ script, appended }) =>
      Effect.gen(function*() {
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* bg.settled(false)
        yield* started(script)
        yield* bg.invalidate("/memory off")
        expect(script.calls[0]!.interrupted).toBe(true)
        expect(appended.filter((e) => e.customType === "pm-extract-cursor")).toEqual([])
        const status = yield* bg.status
        expect(status.running).toBe(false)
        expect(status.runs.extract).toMatchObject({ outcome: "stopped", detail: "interrupted" })
      })))

  it("shutdown waits up to 60 s for background work, then interrupts it", () =>
    run(({ script }) =>
      Effect.gen(function*() {
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* bg.settled(false)
        yield* started(script)
        const shutdown = yield* Effect.fork(bg.shutdown("quit"))
        yield* settle
        yield* TestClock.adjust("59999 millis")
        yield* settle
        expect(shutdown.unsafePoll()).toBeNull()
        expect(script.calls[0]!.interrupted).toBe(false)
        yield* TestClock.adjust("1 millis")
        yield* Fiber.join(shutdown)
        expect(script.calls[0]!.interrupted).toBe(true)
      })))

  it("shutdown returns as soon as the work ends within the wait, and a reload stops it at once", () =>
    run(({ script }) =>
      Effect.gen(function*() {
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* bg.settled(false)
        yield* started(script)
        const shutdown = yield* Effect.fork(bg.shutdown("quit"))
        yield* TestClock.adjust("10 seconds")
        yield* release(script, 0)
        yield* Fiber.join(shutdown)
        expect(script.calls[0]!.interrupted).toBe(false)
        expect((yield* bg.status).runs.extract?.outcome).toBe("nothing")
        // A reload: no wait.
        yield* bg.start
        yield* bg.settled(false)
        yield* started(script)
        yield* bg.shutdown("reload")
        expect(script.calls[1]!.interrupted).toBe(true)
      })))

  it("an aborted model request ends the run as stopped and keeps the cursor, like an interruption", () =>
    run(({ script, appended, branch }) =>
      Effect.gen(function*() {
        script.outcome = { status: "ran", stop: "aborted", turns: 1, mode: "fork", filesChanged: [], finalText: "", errorMessage: "aborted", advanceTo: branch.at(-1)!.id }
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* bg.settled(false)
        yield* started(script)
        yield* release(script, 0)
        yield* bg.idle
        expect(appended.filter((e) => e.customType === "pm-extract-cursor")).toEqual([])
        expect((yield* bg.status).runs.extract).toMatchObject({ outcome: "stopped", detail: "the model request was aborted" })
      })))

  it("a trailing extraction is deferred while the session is busy, and runs when it is idle again (even after an aborted turn)", () =>
    run(({ script, idle }) =>
      Effect.gen(function*() {
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* bg.settled(false)
        yield* started(script)
        yield* bg.settled(false)
        // The agent runs again when the first extraction ends: the trailing one waits.
        idle.value = false
        yield* release(script, 0)
        yield* bg.idle
        expect(script.calls).toHaveLength(1)
        // That turn is aborted: it dispatches nothing of its own, but the deferred extraction runs now.
        idle.value = true
        yield* bg.settled(true)
        const first = yield* Effect.raceFirst(bg.idle.pipe(Effect.as("idle")), started(script).pipe(Effect.as("extraction started")))
        expect(first).toBe("extraction started")
        yield* release(script, 1)
        yield* bg.idle
        expect(script.calls).toHaveLength(2)
        expect((yield* bg.status).runs.extract?.trigger).toBe("trailing")
      })))

  it("a turn that settles during the extraction before compaction marks a trailing extraction, run after it", () =>
    run(({ script }) =>
      Effect.gen(function*() {
        const bg = yield* BackgroundSession
        yield* bg.start
        const compaction = yield* Effect.fork(bg.beforeCompact())
        yield* started(script)
        yield* bg.settled(false)
        yield* settle
        expect(script.calls).toHaveLength(1)
        yield* release(script, 0)
        yield* Fiber.join(compaction)
        yield* started(script)
        yield* release(script, 1)
        yield* bg.idle
        expect(script.calls).toHaveLength(2)
        expect((yield* bg.status).history.map((r) => r.trigger)).toEqual(["compaction", "trailing"])
      })))

  it("the wait before compaction ends when the compaction is aborted: the extraction stops and its cursor stays", () =>
    run(({ script, appended }) =>
      Effect.gen(function*() {
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* bg.settled(false)
        yield* started(script)
        const controller = new AbortController()
        const compaction = yield* Effect.fork(bg.beforeCompact(controller.signal))
        yield* settle
        expect(compaction.unsafePoll()).toBeNull()
        controller.abort()
        yield* Fiber.join(compaction)
        expect(script.calls[0]!.interrupted).toBe(true)
        expect(appended.filter((e) => e.customType === "pm-extract-cursor")).toEqual([])
        expect((yield* bg.status).running).toBe(false)
      })))

  it("the wait before compaction is bounded: after 60 s the extraction stops and compaction goes ahead", () =>
    run(({ script }) =>
      Effect.gen(function*() {
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* bg.settled(false)
        yield* started(script)
        const compaction = yield* Effect.fork(bg.beforeCompact())
        yield* settle
        yield* TestClock.adjust("59999 millis")
        yield* settle
        expect(compaction.unsafePoll()).toBeNull()
        yield* TestClock.adjust("1 millis")
        yield* Fiber.join(compaction)
        expect(script.calls[0]!.interrupted).toBe(true)
      })))
})
