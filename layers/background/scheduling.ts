/**
 * When the session's background tasks run. At most one extraction runs per session: a turn that settles while one
 * runs marks one trailing extraction, run when it ends if the session is idle, else kept (deferred, not dropped) until
 * a later settled or aborted turn; an extraction by hand or before compaction waits for the running one, then runs
 * its own. At most one dream runs per session, dispatched beside the extraction and never waiting for it; turns that
 * settle meanwhile queue none. Every task starts on a later turn of the event loop, so the settled turn's handler
 * returns first, and runs as a fiber of the session's set (invalidation and shutdown end them there).
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Ref from "effect/Ref"
import type { RunRecord } from "../../src/background/runs.ts"
import { zeroUsage } from "../../src/model/usage.ts"
import { Host } from "../session/Host.ts"
import type { DreamRun } from "./dreamRun.ts"
import type { ExtractionRun } from "./extractionRun.ts"
import { nextMacrotask, safe, type SessionState } from "./sessionState.ts"

export const makeScheduling = (state: SessionState, runs: { readonly extraction: ExtractionRun; readonly dream: DreamRun }) =>
  Effect.gen(function*() {
    const host = yield* Host
    const { current, trailing, fibers, dreamCurrent } = state
    const { extractOnce } = runs.extraction
    const { dreamOnce } = runs.dream

    /**
     * One trailing extraction for turns that settled while an extraction ran, once the session is idle again. While the
     * agent runs, the mark is kept (deferred, not dropped): the turn it runs settles later and dispatches the messages
     * with its own extraction.
     */
    const trailingRuns: Effect.Effect<void> = Effect.gen(function*() {
      while (yield* Ref.getAndSet(trailing, false)) {
        if (!(yield* safe(host.isIdle, true))) {
          yield* Ref.set(trailing, true)
          return
        }
        yield* extractOnce("trailing")
      }
    })

    /** Starts an extraction loop (`first`, then the trailing runs) as the extraction in flight. */
    const startLoop = (first: Effect.Effect<unknown>) =>
      Effect.gen(function*() {
        const loop: Effect.Effect<void> = Effect.gen(function*() {
          // The settled turn's handler returns first: the task starts on a later turn of the event loop.
          yield* nextMacrotask
          yield* first
          yield* trailingRuns
        }).pipe(Effect.ensuring(Ref.set(current, undefined)))
        const fiber = yield* FiberSet.run(fibers, loop)
        yield* Ref.set(current, fiber)
        return fiber
      })

    /** Starts an extraction fiber (with its trailing follow-ups) unless one runs; returns the fiber in flight. */
    const dispatch = (trigger: RunRecord["trigger"]) =>
      Effect.gen(function*() {
        const running = yield* Ref.get(current)
        if (running !== undefined) {
          yield* Ref.set(trailing, true)
          return running
        }
        // This run reads the branch as it is now: a mark deferred earlier is covered by it.
        yield* Ref.set(trailing, false)
        return yield* startLoop(extractOnce(trigger))
      })

    /** The deferred trailing extraction, when one is marked and none runs. */
    const runDeferred = Effect.gen(function*() {
      if ((yield* Ref.get(trailing)) && (yield* Ref.get(current)) === undefined) yield* startLoop(Effect.void)
    })

    const awaitCurrent = Effect.gen(function*() {
      const running = yield* Ref.get(current)
      if (running !== undefined) yield* Fiber.await(running)
    })

    /**
     * Waits for the running extraction, then runs one more and waits for it too. Turns that settle meanwhile mark a
     * trailing extraction, started when it ends (unless the session is busy: then the mark waits for the next turn).
     */
    const extractAfterCurrent = (trigger: RunRecord["trigger"]) =>
      Effect.gen(function*() {
        yield* awaitCurrent
        yield* Ref.set(trailing, false)
        const done = yield* Effect.makeLatch(false)
        let record: RunRecord | undefined
        const fiber = yield* FiberSet.run(
          fibers,
          extractOnce(trigger).pipe(
            Effect.tap((r) => Effect.sync(() => void (record = r))),
            Effect.ensuring(done.open),
            Effect.asVoid
          )
        )
        yield* Ref.set(current, fiber)
        // A caller that stops waiting (the compaction wait's deadline) stops the extraction too.
        yield* Fiber.await(fiber).pipe(
          Effect.onInterrupt(() => Fiber.interrupt(fiber)),
          Effect.ensuring(Ref.update(current, (c) => (c === fiber ? undefined : c)))
        )
        yield* runDeferred
        return record ?? ({ kind: "extract", at: Date.now(), trigger, outcome: "stopped", detail: "interrupted", filesChanged: [], turns: 0, usage: zeroUsage } satisfies RunRecord)
      })

    /** Ends the extraction in flight, if any (its run is recorded as stopped; the cursor stays). */
    const interruptCurrent = Effect.gen(function*() {
      const running = yield* Ref.getAndSet(current, undefined)
      yield* Ref.set(trailing, false)
      if (running !== undefined) yield* Fiber.interrupt(running)
    })

    /** Starts a dream fiber unless one runs in this session; returns the fiber in flight. */
    const dispatchDream = (trigger: "turn" | "manual", result?: (r: RunRecord | undefined) => void) =>
      Effect.gen(function*() {
        const running = yield* Ref.get(dreamCurrent)
        if (running !== undefined) return running
        const fiber = yield* FiberSet.run(
          fibers,
          // Like the extraction: the settled turn's handler returns before the check reads state or scans.
          nextMacrotask.pipe(
            Effect.zipRight(dreamOnce(trigger)),
            Effect.tap((r) => Effect.sync(() => result?.(r))),
            Effect.asVoid,
            Effect.ensuring(Ref.set(dreamCurrent, undefined))
          )
        )
        yield* Ref.set(dreamCurrent, fiber)
        return fiber
      })

    /** `/memory dream`: waits for this session's running dream, then dreams now. */
    const dreamNow = Effect.gen(function*() {
      const running = yield* Ref.get(dreamCurrent)
      if (running !== undefined) yield* Fiber.await(running)
      let record: RunRecord | undefined
      const fiber = yield* dispatchDream("manual", (r) => void (record = r))
      yield* Fiber.await(fiber)
      return record ?? ({ kind: "dream", at: Date.now(), trigger: "manual", outcome: "stopped", detail: "interrupted", filesChanged: [], turns: 0, usage: zeroUsage } satisfies RunRecord)
    })

    /** Resolves when no background task of this session runs. */
    const idle = FiberSet.awaitEmpty(fibers)

    return { dispatch, runDeferred, extractAfterCurrent, interruptCurrent, dispatchDream, dreamNow, idle }
  })

export type Scheduling = Effect.Effect.Success<ReturnType<typeof makeScheduling>>
