/**
 * BackgroundSession: the main session's side of the background agents. It captures the parent's request (for fork
 * reuse), keeps the extractor's cursor, dispatches an extraction when a turn settles, marks one trailing extraction
 * when a turn settles while one runs, extracts before compaction, and on shutdown waits up to 60 s before
 * interrupting. Background work runs as fibers owned by this layer's scope: closing the scope ends them.
 *
 * A task stays valid while its generation is current, the project is trusted and memory is on. Invalidation
 * (`/memory off`, reload, a new session) interrupts the task at once; a lost trust is noticed before the next model
 * or tool call, and every later tool call of the task fails.
 *
 * This module holds the service's interface, its Tag and the dispatch of the host's events; its parts are siblings:
 * sessionState.ts (the state they share), branchCursor.ts (the captured request and the cursor), taskValidity.ts
 * (validity and invalidation), extractionRun.ts and dreamRun.ts (one run of each task), runRecords.ts (a run's
 * record), runLog.ts (the run history), sessionNotices.ts (what a person is told), scheduling.ts (when tasks run),
 * lifecycle.ts (start and shutdown), handOff.ts (what is left at the end goes to the project's queue) and
 * sessionDrain.ts (the queue's jobs run by a later session, or by `pm extract`).
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Fiber from "effect/Fiber"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { latestRuns, type RunHistory } from "../../src/background/runHistory.ts"
import type { BackgroundKind, RunRecord, RunsFile } from "../../src/background/runs.ts"
import type { UsageTotals } from "../../src/model/usage.ts"
import { ConfigService } from "../project/ConfigService.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { Host } from "../session/Host.ts"
import { ModelRegistry } from "../model/ModelRegistry.ts"
import { ProjectLocator } from "../project/ProjectLocator.ts"
import { LockService } from "../storage/LockService.ts"
import type { QueueSummary } from "./queueStore.ts"
import { Extractor } from "./Extractor.ts"
import { Dream } from "./Dream.ts"
import { DreamAttempt } from "./DreamAttempt.ts"
import { makeBranchCursor } from "./branchCursor.ts"
import { makeDreamRun } from "./dreamRun.ts"
import { makeExtractionRun } from "./extractionRun.ts"
import { type HandedOff, makeHandOff } from "./handOff.ts"
import { makeLifecycle } from "./lifecycle.ts"
import { makeRunLog } from "./runLog.ts"
import { makeScheduling } from "./scheduling.ts"
import { type DrainNowOptions, type DrainNowResult, makeSessionDrain } from "./sessionDrain.ts"
import { makeSessionNotices } from "./sessionNotices.ts"
import { type BackgroundHostShape, makeSessionState, type ModelIdentity } from "./sessionState.ts"
import { makeTaskValidity } from "./taskValidity.ts"

/** Run records as the entries format them. */
export { formatRun, formatUsage, type RunRecord } from "../../src/background/runs.ts"

/** The status line of each kind: a dream and an extraction side by side each show (and clear) their own. */
export const STATUS_KEY = "pm-memory"
export const DREAM_STATUS_KEY = "pm-memory-dream"
export const statusKeyOf = (kind: BackgroundKind): string => (kind === "dream" ? DREAM_STATUS_KEY : STATUS_KEY)
/** The most compaction waits for extraction (the running one and the final one together). */
export const COMPACTION_WAIT_MS = 60_000

export class BackgroundHost extends Context.Tag("pm/BackgroundHost")<BackgroundHost, BackgroundHostShape>() {
  static readonly layerNoop: Layer.Layer<BackgroundHost> = Layer.succeed(BackgroundHost, { setStatus: () => Effect.void, codemode: Effect.succeed(undefined) })
}

export interface BackgroundStatus {
  readonly running: boolean
  /** The newest run of each kind. */
  readonly runs: RunsFile
  /** The recent runs of this project (every session's), oldest first. */
  readonly history: RunHistory
  /** This session's background model usage, all runs. */
  readonly totals: UsageTotals
  /** Whether a dream runs in this session now. */
  readonly dreaming?: boolean
  /** The last dream attempt (epoch ms, null: never) and when the time condition is met again. */
  readonly dream?: { readonly lastDreamAt: number | null; readonly eligibleAt: number; readonly minSessions: number } | undefined
  /** The project's queued extractions (handed over by sessions that ended first). */
  readonly queue?: QueueSummary | undefined
}

export interface BackgroundSessionShape {
  /** Session start: locate the project, read the cursor from the branch, start a new generation. */
  readonly start: Effect.Effect<void>
  /** `context_with_system`: the parent's request as about to be sent, and its model. */
  readonly captureRequest: (messages: ReadonlyArray<unknown>, model: ModelIdentity | undefined) => Effect.Effect<void>
  /** `message_end`: a message completed after the capture joins the prefix. */
  readonly messageEnded: (message: unknown) => Effect.Effect<void>
  /**
   * `agent_settled`: dispatch an extraction and the dream check (returns at once; the tasks run in the background).
   * An aborted turn dispatches neither, but starts a trailing extraction deferred earlier.
   */
  readonly settled: (aborted: boolean) => Effect.Effect<void>
  /** `/memory extract`: wait for a running extraction, then run one under the same rules. */
  readonly extractNow: Effect.Effect<RunRecord>
  /** `/memory dream`: wait for this session's running dream, then dream now (thresholds ignored, the lock never). */
  readonly dreamNow: Effect.Effect<RunRecord>
  /** The dream a settled turn would start, when it is due and switched on, waited for; undefined when none ran. */
  readonly dreamIfDue: Effect.Effect<RunRecord | undefined>
  /** `session_tree`: the cursor as it applies to the new branch; the captured request (the old branch's) is dropped. */
  readonly branchChanged: Effect.Effect<void>
  /**
   * `session_before_compact`: wait for a running extraction, then extract the rest; at most COMPACTION_WAIT_MS in
   * all, and no longer than the event's abort signal allows (then the extraction stops and its cursor stays).
   */
  readonly beforeCompact: (signal?: AbortSignal) => Effect.Effect<void>
  /** `/memory off|on`, revoked trust: running tasks stop at once. */
  readonly invalidate: (reason: string) => Effect.Effect<void>
  /**
   * `session_shutdown`: up to 60 s for background work (not for an extraction waiting for extract.lock, nor for a
   * drain of the queue), then interruption, and what is left to extract is queued; a reload stops it at once.
   * `atOnce` (a one-shot run with a background worker): no wait; returns where a job was queued, if one was.
   */
  readonly shutdown: (reason: string, atOnce?: boolean) => Effect.Effect<HandedOff | undefined>
  /** After `start`: the project's queued extractions run in the background (returns at once). */
  readonly drainQueued: Effect.Effect<void>
  /** `pm extract`: the project's queued extractions, run now and waited for. */
  readonly drainNow: (options: DrainNowOptions) => Effect.Effect<DrainNowResult>
  readonly status: Effect.Effect<BackgroundStatus>
  /** Resolves when no background task of this session runs (tests, print mode). */
  readonly idle: Effect.Effect<void>
}

/** Succeeds with None once `signal` aborts (at once when it already has). */
const aborted = (signal: AbortSignal): Effect.Effect<Option.Option<never>> =>
  Effect.async<Option.Option<never>>((resume) => {
    if (signal.aborted) return resume(Effect.succeedNone)
    const onAbort = () => resume(Effect.succeedNone)
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

export const makeBackgroundSession = Effect.gen(function*() {
  const bgHost = yield* BackgroundHost
  const state = yield* makeSessionState(yield* Effect.scope)
  const notices = yield* makeSessionNotices
  const runLog = yield* makeRunLog(state, notices)
  const validity = yield* makeTaskValidity(state)
  const branch = yield* makeBranchCursor(state)
  const extraction = yield* makeExtractionRun(state, bgHost, { validity, branch, runLog })
  const dream = yield* makeDreamRun(state, bgHost, { validity, runLog })
  const scheduling = yield* makeScheduling(state, { extraction, dream })
  const drain = yield* makeSessionDrain(state, { validity, runLog })
  const handOff = yield* makeHandOff(state, { branch, runLog, validity })
  const { start, shutdown } = yield* makeLifecycle(state, { notices, runLog, branch, validity, scheduling, drain, handOff })
  const { switchedOn, invalidate } = validity
  const { dispatch, runDeferred, extractAfterCurrent, interruptCurrent, dispatchDream, dreamNow, idle } = scheduling

  return {
    start,
    captureRequest: branch.captureRequest,
    messageEnded: branch.messageEnded,
    // Extraction and dream are dispatched side by side; neither waits for the other.
    // An aborted turn dispatches nothing of its own; a trailing extraction deferred for earlier turns (they settled
    // while the agent was busy again) runs now that the session is idle.
    settled: (aborted) =>
      aborted
        ? runDeferred
        : Effect.gen(function*() {
          // A switch turned off in config.json starts nothing; one turned off mid-run stops the run (validity).
          if (yield* switchedOn("extraction")) yield* dispatch("turn")
          if (yield* switchedOn("dream")) yield* dispatchDream("turn")
        }),
    extractNow: extractAfterCurrent("manual"),
    dreamNow,
    dreamIfDue: Effect.gen(function*() {
      if (!(yield* switchedOn("dream"))) return undefined
      let record: RunRecord | undefined
      yield* Fiber.await(yield* dispatchDream("turn", (r) => void (record = r)))
      return record
    }),
    // Bounded: past the wait the extraction is interrupted (its cursor stays) and compaction goes ahead.
    beforeCompact: (signal) =>
      extractAfterCurrent("compaction").pipe(
        Effect.timeoutOption(Duration.millis(COMPACTION_WAIT_MS)),
        (wait) => (signal === undefined ? wait : Effect.raceFirst(wait, aborted(signal))),
        Effect.flatMap((done) => (Option.isSome(done) ? Effect.void : interruptCurrent))
      ),
    branchChanged: branch.branchChanged,
    invalidate,
    shutdown,
    drainQueued: drain.drainQueued,
    drainNow: drain.drainNow,
    status: Effect.gen(function*() {
      return {
        running: (yield* Ref.get(state.current)) !== undefined,
        runs: latestRuns(yield* Ref.get(state.history)),
        history: yield* Ref.get(state.history),
        totals: yield* Ref.get(state.totals),
        dreaming: (yield* Ref.get(state.dreamCurrent)) !== undefined,
        dream: yield* dream.dreamStatus,
        queue: yield* drain.queueSummary
      } satisfies BackgroundStatus
    }),
    idle
  } satisfies BackgroundSessionShape
})

export class BackgroundSession extends Context.Tag("pm/BackgroundSession")<BackgroundSession, BackgroundSessionShape>() {
  /** The service's one constructor (its layer's, and the extension graph's). */
  static readonly make = makeBackgroundSession
  static readonly layer: Layer.Layer<
    BackgroundSession,
    never,
    Host | BackgroundHost | FileSystem | ConfigService | ProjectLocator | LockService | ModelRegistry | Extractor | Dream | DreamAttempt
  > = Layer.scoped(BackgroundSession, BackgroundSession.make)
}
