/**
 * DreamAttempt: deciding that a dream is due and running one attempt around a consolidation task, with the
 * attempt-time rules. The task itself (the restricted background agent) is passed in, so these rules are the same
 * whatever runs it, and are tested on their own.
 *
 * - The cheap time check comes first; the session-directory scan only when time is due, and at most once per
 *   interval per process.
 * - `dream.lock` is taken without waiting (busy means another process is dreaming: skip).
 * - `lastDreamAt = now` is recorded by compare-and-swap at once, against the state version the decision was based on.
 * - It is kept when the task returns (with changes, none, or an API error after the model answered) or is
 *   interrupted, and rolled back by compare-and-swap only when the task fails during the fork step without being
 *   interrupted (the task reports a first request that failed as such a failure: no dream took place).
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { join } from "node:path"
import {
  DEFAULT_DREAM_THRESHOLDS,
  eligibleAt,
  recentSessions,
  rollsBackAttemptTime,
  timeIsDue,
  type DreamDecision,
  type DreamTaskEnd,
  type DreamThresholds
} from "../../src/background/dreamSchedule.ts"
import type { DreamAttempt as AttemptTicket } from "../../src/storage/state.ts"
import { LockService } from "../storage/LockService.ts"
import { type LockLost } from "../storage/lockInterface.ts"
import { StateStore, type StatePaths } from "../storage/StateStore.ts"
import { SessionScanner } from "./SessionScanner.ts"

/** A consolidation task that failed. `phase` says whether it failed while the forked agent ran or afterwards. */
export class DreamTaskFailed extends Data.TaggedError("DreamTaskFailed")<{
  readonly phase: "fork" | "completion"
  readonly reason: string
}> {}

/** The state, the session scan or `dream.lock` failed: `cause` is that failure, `reason` its message. */
export class DreamCheckFailed extends Data.TaggedError("DreamCheckFailed")<{
  readonly cause: { readonly message: string }
}> {
  get reason(): string {
    return this.cause.message
  }
}

export interface DreamCheckRequest {
  readonly paths: StatePaths
  readonly sessionDir: string
  readonly currentSessionId: string | undefined
  readonly thresholds?: DreamThresholds
  readonly belongsToProject?: (cwd: string | undefined) => Effect.Effect<boolean>
}

/** The decision, with the state version it was based on (the compare-and-swap expects it). */
export type DreamCheck = DreamDecision & { readonly stateVersion: number; readonly lastDreamAt: number | null }

export interface DreamRunRequest<A> {
  readonly paths: StatePaths
  /** Recent session ids for the task prompt (from the check, or a fresh scan when run by hand). */
  readonly sessions: ReadonlyArray<string>
  /** The version the decision was based on; omitted when run by hand (`/memory dream`). */
  readonly expectedVersion?: number
  /**
   * The task, given `held`: the check that `dream.lock` is still ours, to run before each critical step (a failure
   * also ends the task at once: the lock service interrupts it).
   */
  readonly task: (sessions: ReadonlyArray<string>, held: Effect.Effect<void, LockLost>) => Effect.Effect<A, DreamTaskFailed>
}

export type DreamRunOutcome<A> =
  | { readonly _tag: "Ran"; readonly value: A; readonly attemptAt: number }
  | { readonly _tag: "Busy" }
  /** Another process recorded an attempt between the check and this run. */
  | { readonly _tag: "Superseded" }
  | {
    readonly _tag: "Failed"
    readonly end: DreamTaskEnd
    readonly reason: string
    /** Whether `lastDreamAt` went back to its previous value. */
    readonly rolledBack: boolean
  }

export interface DreamAttemptShape {
  readonly check: (request: DreamCheckRequest) => Effect.Effect<DreamCheck, DreamCheckFailed>
  /** The other sessions updated since the last attempt, scanned now whatever the throttle says (a dream run by hand). */
  readonly sessionsNow: (request: DreamCheckRequest) => Effect.Effect<ReadonlyArray<string>, DreamCheckFailed>
  /** The last attempt time on record, for status displays. */
  readonly lastDreamAt: (paths: StatePaths) => Effect.Effect<number | null, DreamCheckFailed>
  readonly run: <A>(request: DreamRunRequest<A>) => Effect.Effect<DreamRunOutcome<A>, DreamCheckFailed>
}

const reasonOf = (e: { readonly message: string }) => new DreamCheckFailed({ cause: e })

export const makeDreamAttempt = Effect.gen(function*() {
  const state = yield* StateStore
  const locks = yield* LockService
  const scanner = yield* SessionScanner

  const check = Effect.fn("DreamAttempt.check")(function*(request: DreamCheckRequest) {
    const thresholds = request.thresholds ?? DEFAULT_DREAM_THRESHOLDS
    const snapshot = yield* state.read(request.paths).pipe(Effect.mapError(reasonOf))
    const { lastDreamAt, version } = snapshot.state
    const base = { stateVersion: version, lastDreamAt }
    const now = yield* Clock.currentTimeMillis
    if (!timeIsDue(lastDreamAt, now, thresholds)) {
      return { _tag: "NotYet", eligibleAt: eligibleAt(lastDreamAt, thresholds), ...base } satisfies DreamCheck
    }
    const scan = yield* scanner.scan({
      sessionDir: request.sessionDir,
      intervalMs: thresholds.scanIntervalMs,
      ...(request.belongsToProject !== undefined ? { belongsToProject: request.belongsToProject } : {})
    }).pipe(
      // A session directory that does not exist yet holds no other sessions.
      Effect.catchTag("FsError", (e) =>
        e.reason === "NotFound" ? Effect.succeed({ _tag: "Scanned" as const, files: [], skipped: 0 }) : Effect.fail(reasonOf(e)))
    )
    if (scan._tag === "Throttled") return { _tag: "ScanThrottled", nextScanAt: scan.nextScanAt, ...base } satisfies DreamCheck
    const sessions = recentSessions(scan.files, { lastDreamAt, currentSessionId: request.currentSessionId })
    if (sessions.length < thresholds.minSessions) {
      return { _tag: "TooFewSessions", found: sessions.length, needed: thresholds.minSessions, ...base } satisfies DreamCheck
    }
    return { _tag: "Due", sessions, ...base } satisfies DreamCheck
  })

  const sessionsNow = Effect.fn("DreamAttempt.sessionsNow")(function*(request: DreamCheckRequest) {
    const snapshot = yield* state.read(request.paths).pipe(Effect.mapError(reasonOf))
    const scan = yield* scanner.scan({
      sessionDir: request.sessionDir,
      intervalMs: 0,
      ...(request.belongsToProject !== undefined ? { belongsToProject: request.belongsToProject } : {})
    }).pipe(
      Effect.catchTag("FsError", (e) =>
        e.reason === "NotFound" ? Effect.succeed({ _tag: "Scanned" as const, files: [], skipped: 0 }) : Effect.fail(reasonOf(e)))
    )
    return scan._tag === "Scanned"
      ? recentSessions(scan.files, { lastDreamAt: snapshot.state.lastDreamAt, currentSessionId: request.currentSessionId })
      : []
  })

  const lastDreamAt = (paths: StatePaths) =>
    state.read(paths).pipe(Effect.map((s) => s.state.lastDreamAt), Effect.mapError(reasonOf))

  const run = <A>(request: DreamRunRequest<A>): Effect.Effect<DreamRunOutcome<A>, DreamCheckFailed> => {
    const attempt = (held: Effect.Effect<void, LockLost>) => Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const recorded = yield* state.recordDreamAttempt(
        request.paths,
        now,
        request.expectedVersion !== undefined ? { expectedVersion: request.expectedVersion } : {}
      ).pipe(
        Effect.map((ticket): AttemptTicket | undefined => ticket),
        Effect.catchTag("StateConflict", () => Effect.succeed(undefined)),
        Effect.mapError(reasonOf)
      )
      if (recorded === undefined) return { _tag: "Superseded" } satisfies DreamRunOutcome<A>
      const ticket = recorded
      const exit = yield* Effect.exit(request.task(request.sessions, held))
      if (Exit.isSuccess(exit)) return { _tag: "Ran", value: exit.value, attemptAt: ticket.at } satisfies DreamRunOutcome<A>
      const end: DreamTaskEnd = Cause.isInterruptedOnly(exit.cause)
        ? "aborted"
        : Cause.failureOption(exit.cause).pipe((o) => (o._tag === "Some" && o.value.phase === "completion" ? "failed-after-completion" : "failed-in-fork"))
      const failure = Cause.failureOption(exit.cause)
      const reason = end === "aborted"
        ? "interrupted"
        : failure._tag === "Some"
        ? failure.value.reason
        : Cause.pretty(exit.cause).split("\n")[0] ?? "failed"
      const rolledBack = rollsBackAttemptTime(end)
        ? yield* state.rollbackDreamAttempt(request.paths, ticket).pipe(Effect.mapError(reasonOf))
        : false
      if (end === "aborted") return yield* Effect.interrupt
      return { _tag: "Failed", end, reason, rolledBack } satisfies DreamRunOutcome<A>
    })
    return locks.withLock(join(request.paths.rootDir, "locks"), "dream.lock", (lock) => attempt(lock.ensureHeld), { kind: "dream in a pi session" }).pipe(
      Effect.map((outcome): DreamRunOutcome<A> => (outcome._tag === "Done" ? outcome.value : { _tag: "Busy" })),
      Effect.catchTags({ LockFailed: (e) => Effect.fail(reasonOf(e)), LockLost: (e) => Effect.fail(reasonOf(e)) })
    )
  }

  return { check, sessionsNow, lastDreamAt, run } satisfies DreamAttemptShape
})

export class DreamAttempt extends Context.Tag("pm/DreamAttempt")<DreamAttempt, DreamAttemptShape>() {
  /** The service's one constructor (its layer's, and the extension graph's). */
  static readonly make = makeDreamAttempt
  static readonly layer: Layer.Layer<DreamAttempt, never, StateStore | LockService | SessionScanner> = Layer.effect(
    DreamAttempt,
    DreamAttempt.make
  )
}
