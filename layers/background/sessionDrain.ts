/**
 * The session's side of the queue (queueDrain.ts): at the start of a session whose project memory is on, trusted
 * and extracting, the queued jobs run in the background, never blocking a prompt; queue.lock is tried once (another
 * drainer already runs them). The drain's fiber is the session's own (`drains`), apart from its other tasks: the end
 * of the session interrupts it without waiting, and the jobs it did not finish stay queued. Runs are recorded in the
 * run history like the session's own, their changes noted on this session's branch (its model reads memory now).
 * `drainNow` is `pm extract`'s: the same drain, waited for, with a bounded wait for queue.lock.
 */
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type { Usage } from "@earendil-works/pi-ai"
import { addUsage } from "../../src/model/usage.ts"
import { Host } from "../session/Host.ts"
import { changeRecorder } from "./ChangeNotices.ts"
import { type DrainResult, makeQueueDrain } from "./queueDrain.ts"
import type { QueueSummary } from "./queueStore.ts"
import type { RunLog } from "./runLog.ts"
import { nextMacrotask, safe, type SessionState } from "./sessionState.ts"
import type { TaskValidity } from "./taskValidity.ts"

export interface DrainNowOptions {
  /** How long to wait for queue.lock held by another drainer. */
  readonly waitMs: number
  readonly onWait?: (holder: string) => Effect.Effect<void>
  /** What the lock files say holds them. */
  readonly lockKind: string
}

export type DrainNowResult =
  | DrainResult
  /** Nothing may run: memory inactive, off, untrusted or extraction off; `queue` is what waits meanwhile. */
  | { readonly _tag: "NotNow"; readonly reason: string; readonly queue: QueueSummary | undefined }

export const makeSessionDrain = (state: SessionState, parts: { readonly validity: TaskValidity; readonly runLog: RunLog }) =>
  Effect.gen(function*() {
    const host = yield* Host
    const queue = yield* makeQueueDrain
    const { validity } = parts.validity

    /** The queue of the active project, as its file names say (undefined: inactive). */
    const queueSummary = Effect.gen(function*() {
      const a = yield* Ref.get(state.active)
      return a === undefined ? undefined : yield* queue.summary(a.location.memoryRootDir)
    })

    const drainWith = (options: DrainNowOptions & { readonly announce: boolean }): Effect.Effect<DrainNowResult> =>
      Effect.gen(function*() {
        const a = yield* Ref.get(state.active)
        if (a === undefined) return { _tag: "NotNow", reason: "project memory is inactive here", queue: undefined }
        const startedIn = yield* Ref.get(state.generation)
        const check = validity(startedIn, "extraction")
        const invalid = yield* Effect.flip(check).pipe(Effect.option)
        if (Option.isSome(invalid)) return { _tag: "NotNow", reason: invalid.value.reason, queue: yield* queue.summary(a.location.memoryRootDir) }
        return yield* queue.drain({
          active: a,
          check,
          queueWaitMs: options.waitMs,
          ...(options.onWait === undefined ? {} : { onQueueWait: options.onWait }),
          lockKind: options.lockKind,
          onChange: changeRecorder(host, "extraction", [a.canonicalMemoryDir, a.location.memoryDir]),
          onUsage: (u: Usage | undefined) => Ref.update(state.totals, (t) => addUsage(t, u)),
          onRun: (_entry, record) => parts.runLog.saveRun(a, record, options.announce)
        })
      })

    /** Starts the drain in the background when jobs wait (returns at once); a drain already running is left be. */
    const drainQueued = Effect.gen(function*() {
      if ((yield* FiberSet.size(state.drains)) > 0) return
      const waiting = yield* queueSummary
      if (waiting === undefined || waiting.count === 0) return
      if (!(yield* parts.validity.switchedOn("extraction")) || !(yield* safe(host.isTrusted, false))) return
      yield* FiberSet.run(
        state.drains,
        // The session's start returns first; the drain runs on a later turn of the event loop.
        nextMacrotask.pipe(Effect.zipRight(drainWith({ waitMs: 0, lockKind: "a pi session's run of the queue", announce: true })), Effect.asVoid)
      )
    })

    /** Ends a drain in flight without waiting for its job (the job stays queued). */
    const stopDrain = FiberSet.clear(state.drains)

    return {
      queueSummary,
      drainQueued,
      stopDrain,
      drainNow: (options: DrainNowOptions) => drainWith({ ...options, announce: false })
    }
  })

export type SessionDrain = Effect.Effect.Success<ReturnType<typeof makeSessionDrain>>
