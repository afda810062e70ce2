/**
 * The drain: runs a project's queued extractions (src/background/queue.ts, queueStore.ts), oldest first, each as a
 * normal extraction (the same Extractor, tools, sandbox, extract.lock and journal) over the job's branch and cursor,
 * with the drainer's model and settings. The whole drain holds `queue.lock`, so two drainers never run the same job:
 * a session tries it once, `pm extract` waits for it, bounded. A job is removed only once its extraction returned an
 * outcome that advances a cursor (run, skipped, or ended by its limits); a busy lock, a failure or an interruption
 * keeps it for a later drain. An end on the model's error keeps it too, counted in the job, until QUEUE_JOB_MAX_ATTEMPTS
 * drains ended so (then it is given up, as a session's own run gives it up), and stops the drain. The drain stops when
 * its check fails (memory off, trust lost, a new generation), or when no model can be had; records that are not jobs
 * are set aside and reported.
 */
import { QUEUE_JOB_MAX_ATTEMPTS } from "../../src/limits.ts"
import type { Api, Model, Usage } from "@earendil-works/pi-ai"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type { RunRecord } from "../../src/background/runs.ts"
import { locksDirOf } from "../../src/storage/layout.ts"
import { addUsage, zeroUsage } from "../../src/model/usage.ts"
import { ModelRegistry } from "../model/ModelRegistry.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { LockService } from "../storage/LockService.ts"
import type { TaskInvalid } from "../writes/writeErrors.ts"
import { Extractor } from "./Extractor.ts"
import { EXTRACT_LOCK_WAIT_MS, memoryPathTest } from "./extractionRun.ts"
import { type DamagedRecord, makeQueueStore, type QueueEntry } from "./queueStore.ts"
import { extractionRecord, stoppedRecord } from "./runRecords.ts"
import type { Active } from "./sessionState.ts"
import type { MemoryChange } from "./tools/taskTool.ts"

export interface DrainSpec {
  readonly active: Active
  /** Whether the drainer may go on (trust, switches, generation): before each job, and by each job's task. */
  readonly check: Effect.Effect<void, TaskInvalid>
  /** How long to wait for queue.lock held by another drainer (0: one attempt). */
  readonly queueWaitMs: number
  readonly onQueueWait?: (holder: string) => Effect.Effect<void>
  /** What the lock files say holds them. */
  readonly lockKind: string
  readonly onChange: (change: MemoryChange) => Effect.Effect<void>
  readonly onUsage: (usage: Usage | undefined) => Effect.Effect<void>
  /** Each job's run once recorded (also an interrupted one that had started), and whether the job is gone. */
  readonly onRun: (entry: QueueEntry, record: RunRecord, removed: boolean) => Effect.Effect<void>
}

export interface JobRun {
  readonly entry: QueueEntry
  readonly record: RunRecord
  /** The job ran to an outcome and left the queue. */
  readonly removed: boolean
}

export type DrainResult =
  /** Another drainer holds queue.lock. */
  | { readonly _tag: "Busy"; readonly holder: string }
  | {
    readonly _tag: "Drained"
    readonly runs: ReadonlyArray<JobRun>
    /** Jobs still queued when the drain ended. */
    readonly left: number
    readonly damaged: ReadonlyArray<DamagedRecord>
    /** Why the drain ended before the last job, when it did. */
    readonly stoppedBecause?: string
  }

/** "3 min ago"-style words for how long ago `at` was. */
const ago = (at: number, now: number): string => {
  const s = Math.max(0, Math.round((now - at) / 1000))
  return s < 120 ? `${s} s ago` : s < 7200 ? `${Math.round(s / 60)} min ago` : s < 172_800 ? `${Math.round(s / 3600)} h ago` : `${Math.round(s / 86_400)} days ago`
}

/** Where a job's run came from, added to its record's detail. */
export const jobOrigin = (entry: QueueEntry, now: number = Date.now()): string =>
  `queued ${ago(entry.job.queuedAt, now)} by session ${entry.job.session} (${entry.job.reason})` +
  (entry.job.omitted > 0 ? `; its ${entry.job.omitted} oldest messages were left out to fit the queue's bound` : "")

export const makeQueueDrain = Effect.gen(function*() {
  const extractor = yield* Extractor
  const registry = yield* ModelRegistry
  const fs = yield* FileSystem
  const locks = yield* LockService
  const store = makeQueueStore(fs)

  /** One job, recorded. Returns its record and whether it advanced (then it is removed). */
  /**
   * The model of a job: config.json's `extractor.model`, else the one its session would have used, else the drainer's
   * default (the session's model in Pi, Pi's default model in pm).
   */
  const modelOf = (spec: DrainSpec, entry: QueueEntry) => {
    const configured = spec.active.background.extractor.model
    return configured !== undefined || entry.job.model === null
      ? registry.resolve(configured)
      : registry.resolve(entry.job.model).pipe(Effect.orElse(() => registry.resolve(undefined)))
  }

  const runJob = (spec: DrainSpec, entry: QueueEntry, model: Model<Api>, ensureHeld: Effect.Effect<void, unknown>) =>
    Effect.gen(function*() {
      const { active: a, check } = spec
      const { job } = entry
      const usage = yield* Ref.make(zeroUsage)
      const started = yield* Ref.make(false)
      const base = { kind: "extract" as const, trigger: "queue" as const, filesChanged: [], turns: 0, usage: zeroUsage }
      const origin = jobOrigin(entry)
      // The session's folder may be gone by now: the task then starts from the project's root.
      const cwd = (yield* fs.stat(job.cwd).pipe(Effect.map((i) => i.kind === "directory"), Effect.orElseSucceed(() => false)))
        ? job.cwd
        : a.location.projectRoot
      const exit = yield* extractor.extract({
        location: a.location,
        cwd,
        branch: job.branch,
        cursor: job.cursor ?? undefined,
        parent: undefined,
        model,
        taskSessionId: `${job.session}-memory-extract`,
        sessionId: job.session,
        maxTurns: a.background.extractor.maxTurns,
        skipExternalContext: a.background.extractor.skipExternalContext,
        maxTokens: a.background.extractor.maxTokens,
        requestTimeoutMs: a.background.extractor.requestTimeoutSeconds * 1000,
        isMemoryPath: memoryPathTest(a, cwd),
        check,
        onChange: spec.onChange,
        onUsage: (u) => Effect.zipRight(Ref.update(usage, (t) => addUsage(t, u)), spec.onUsage(u)),
        lockWaitMs: EXTRACT_LOCK_WAIT_MS,
        lockKind: spec.lockKind,
        // A model's error before the last attempt keeps the job queued: what the run saved goes back with it.
        rollBackOnModelError: (job.attempts ?? 0) + 1 < QUEUE_JOB_MAX_ATTEMPTS,
        onStart: Ref.set(started, true)
      }).pipe(
        // Interrupted once running (a session's end): recorded; the job stays queued.
        Effect.onInterrupt(() =>
          Effect.gen(function*() {
            if (!(yield* Ref.get(started))) return
            const record = stoppedRecord(base, `interrupted; the job stays queued (${origin})`, yield* Ref.get(usage))
            yield* spec.onRun(entry, record, false)
          })
        ),
        Effect.exit
      )
      const spent = yield* Ref.get(usage)
      const made = extractionRecord(exit, base, spent, a.canonicalMemoryDir, "the job stays queued")
      // The model's error (a provider refusing, failing or out of reach) is not the job's fault: it stays queued for
      // the next drain, up to QUEUE_JOB_MAX_ATTEMPTS, and this drain stops, since the next job would meet it too.
      const modelFailed = Exit.isSuccess(exit) && exit.value.status === "ran" && exit.value.stop === "api-error"
      const attempts = (job.attempts ?? 0) + (modelFailed ? 1 : 0)
      const retry = modelFailed && attempts < QUEUE_JOB_MAX_ATTEMPTS
      const advances = !retry && Exit.isSuccess(exit) && exit.value.status !== "busy" && !(exit.value.status === "ran" && exit.value.stop === "aborted")
      const removed = advances &&
        (yield* ensureHeld.pipe(Effect.zipRight(store.remove(entry)), Effect.as(true), Effect.orElseSucceed(() => false)))
      if (retry) yield* ensureHeld.pipe(Effect.zipRight(store.countAttempt(entry, attempts)), Effect.ignore)
      const kept = advances && !removed
        ? "; it could not be removed from the queue and runs again"
        : retry
        ? `; the job stays queued (attempt ${attempts} of ${QUEUE_JOB_MAX_ATTEMPTS})`
        : modelFailed
        ? `; given up after ${attempts} attempts`
        : ""
      const record: RunRecord = { ...made, detail: `${made.detail}; ${origin}${kept}` }
      yield* spec.onRun(entry, record, removed)
      const failure = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
      const stop = failure?._tag === "TaskInvalid"
        ? failure.reason
        : retry
        ? "the model failed; the queued jobs wait for the next drain"
        : undefined
      return { run: { entry, record, removed } satisfies JobRun, stop }
    })

  /** Runs the queue's jobs oldest first, holding queue.lock, until it is empty or the drain must stop. */
  const drain = (spec: DrainSpec): Effect.Effect<DrainResult> =>
    Effect.gen(function*() {
      const locksDir = locksDirOf(spec.active.location.memoryRootDir)
      const outcome = yield* locks.withLock(locksDir, "queue.lock", (lock) =>
        Effect.gen(function*() {
          const listing = yield* store.list(spec.active.location.memoryRootDir).pipe(
            Effect.catchAll((e) => Effect.succeed({ jobs: [], damaged: [], failure: e.message }))
          )
          const runs: Array<JobRun> = []
          const finish = (stoppedBecause: string | undefined) => ({ runs, damaged: listing.damaged, stoppedBecause })
          if ("failure" in listing) return finish(`the queue cannot be read: ${listing.failure}`)
          if (listing.jobs.length === 0) return finish(undefined)
          for (const entry of listing.jobs) {
            const invalid = yield* Effect.flip(spec.check).pipe(Effect.option)
            if (invalid._tag === "Some") return finish(invalid.value.reason)
            const model = yield* modelOf(spec, entry).pipe(Effect.either)
            if (model._tag === "Left") return finish(`no model for the extraction: ${model.left.message}`)
            const { run, stop } = yield* runJob(spec, entry, model.right, lock.ensureHeld)
            runs.push(run)
            if (stop !== undefined) return finish(stop)
          }
          return finish(undefined)
        }), {
        maxWaitMs: spec.queueWaitMs,
        kind: spec.lockKind,
        ...(spec.onQueueWait === undefined ? {} : { onWaiting: (busy) => spec.onQueueWait!(busy.description) })
      }).pipe(
        Effect.catchAll((e) => Effect.succeed({ _tag: "Done" as const, value: { runs: [], damaged: [], stoppedBecause: e.message } }))
      )
      if (outcome._tag === "Busy") return { _tag: "Busy", holder: outcome.description }
      const { runs, damaged, stoppedBecause } = outcome.value
      const left = (yield* store.summary(spec.active.location.memoryRootDir)).count
      return { _tag: "Drained", runs, left, damaged, ...(stoppedBecause === undefined ? {} : { stoppedBecause }) }
    })

  return { drain, summary: store.summary }
})

export type QueueDrain = Effect.Effect.Success<typeof makeQueueDrain>
