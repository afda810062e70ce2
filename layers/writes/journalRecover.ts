/**
 * Changes that are whole or absent. `whole` runs a task that changes memory (forget, remember, undo, an extraction, a
 * dream) so that it ends kept or rolled back: its open-task marker (openTasks.ts) is written before its first journaled
 * change and removed after its last when the task is kept; a task that fails, is interrupted or is not to be kept is
 * rolled back here and then unmarked. A process killed in between leaves the marker, and `recoverOpen`, run by the
 * next holder of the locks the task held, rolls it back (its owner being gone), sweeps the temp files dead processes
 * left, and removes the marker.
 *
 * `recoverTask` does the rolling back, all of it holding `journal.lock` (so no journaled writer moves meanwhile): it
 * settles pending intents from the files, decides with src/writes/recovery.ts, and puts files back through the
 * writer's compare-and-swap, MEMORY.md first, journaled as a `recover` task whose last line marks it finished. A
 * recovery killed part way leaves the marker, and the next one finishes it (files already back count as unchanged).
 */
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import { randomUUID } from "node:crypto"
import { join } from "node:path"
import type { LockName } from "../../src/limits.ts"
import { indexLinkedFiles } from "../../src/memory/topicNames.ts"
import { INDEX_FILE, locksDirOf } from "../../src/storage/layout.ts"
import { encodeEntry, fileNets, groupByTask } from "../../src/writes/journal.ts"
import { planRecovery, type RecoveryMode } from "../../src/writes/recovery.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { LockFailed, LockServiceShape } from "../storage/lockInterface.ts"
import type { PublishFailed } from "../storage/PublishFailed.ts"
import { TEMP_STALE_MS, sweepTemps } from "../storage/AtomicPublish.ts"
import type { JournalWriteError } from "./journalErrors.ts"
import { entryOf, type JournalRecording, type TaskMeta } from "./journalRecord.ts"
import { makeJournalSettling, type UndoneFile } from "./journalSettle.ts"
import type { JournalPaths, JournalStore } from "./journalStore.ts"
import type { MemoryWriterShape } from "./MemoryWriter.ts"
import { markerOf, markerOwnerAlive, marking, type OpenTasks, runningTasks } from "./openTasks.ts"
import type { WriteJournal } from "./writeJournal.ts"

/** The locks a person's command (forget, remember, undo) holds: both background writers'. */
export const BACKGROUND_LOCKS: ReadonlyArray<LockName> = ["extract.lock", "dream.lock"]

export type MemoryPaths = JournalPaths & { readonly memoryDir: string }

/** What a recovery did with one interrupted task. */
export interface RecoveredTask {
  readonly task: string
  /** The task's kind ("forget", "extract"...), "unknown" when the journal holds nothing of it. */
  readonly kind: string
  /** rollback: its files are back as they were; index: MEMORY.md had changed since, and its links decided. */
  readonly mode: RecoveryMode
  /** Each file of the task and what was done with it. */
  readonly files: ReadonlyArray<UndoneFile>
}

/**
 * A task could not be kept: it ran to its end but could not be closed (`rolledBack`: it was rolled back instead), or
 * it failed and could not be rolled back now (`rollback` says why): it is then left open for the next holder of its
 * locks to roll back.
 */
export class TaskUnfinished extends Data.TaggedError("TaskUnfinished")<{
  readonly task: string
  readonly rolledBack: boolean
  /** What stopped it. */
  readonly cause: unknown
  /** What stopped the roll-back, when it did not happen. */
  readonly rollback?: unknown
}> {
  override get message(): string {
    const text = (e: unknown) => (e instanceof Error ? e.message : String(e))
    return this.rolledBack
      ? `${text(this.cause)}; the change was rolled back`
      : `${text(this.cause)}; the change could not be rolled back now (${text(this.rollback)}), and the next change of memory rolls it back`
  }
}

export interface RecoverOptions {
  /**
   * Sweep the memory folder's temp files even when no task was recovered (a person's command: a process killed while
   * staging, before its first change, leaves a temp file and no marker). A background task's writer sweeps it anyway
   * when the task opens, so by default it is swept only after a recovery.
   */
  readonly sweepAlways?: boolean
}

/**
 * Told after a task that changed memory was kept (its marker removed), still under the task's locks: the memory
 * history commits it there (layers/history/). Never fails; what it does not finish, the next call takes in.
 */
export type AfterKept = (
  paths: MemoryPaths,
  meta: TaskMeta,
  /** The files the task changed (relative to the memory folder) and the locks it held. */
  task: { readonly files: ReadonlyArray<string>; readonly locks: ReadonlyArray<LockName> }
) => Effect.Effect<void>

/** `journal` noting in `files` each file a change is intended for. */
const tracking = (files: Set<string>, journal: WriteJournal): WriteJournal => ({
  around: (publish, settle) => journal.around((intend) => publish((change) => Effect.zipRight(Effect.sync(() => void files.add(change.file)), intend(change))), settle)
})

export interface WholeSpec {
  readonly paths: MemoryPaths
  readonly meta: TaskMeta
  /** The locks the caller holds for the whole task: whoever recovers it must hold them all. */
  readonly locks: ReadonlyArray<LockName>
}

export interface JournalRecovery {
  readonly recoverTask: (paths: MemoryPaths, task: string) => Effect.Effect<RecoveredTask, JournalWriteError | PublishFailed>
  /**
   * Rolls back every open task whose owner is gone, holding `held` and taking the rest of the task's locks without
   * waiting (a busy one leaves the task for its holder); then, after a recovery (or always, `sweepAlways`), removes the
   * temp files dead processes left in memory and in `open/`.
   */
  readonly recoverOpen: (
    paths: MemoryPaths,
    held: ReadonlyArray<LockName>,
    options?: RecoverOptions
  ) => Effect.Effect<ReadonlyArray<RecoveredTask>, JournalWriteError | PublishFailed | LockFailed>
  /**
   * Runs `body` with its task's journal hook as one whole task: kept when `keep(exit)` (and its marker could be
   * removed), else rolled back before this returns. A body that failed fails as it did once rolled back; one that
   * cannot be rolled back now, or ran to its end but could not be closed, fails as TaskUnfinished.
   */
  readonly whole: <A, E, R>(
    spec: WholeSpec,
    body: (journal: WriteJournal) => Effect.Effect<A, E, R>,
    keep: (exit: Exit.Exit<A, E>) => boolean
  ) => Effect.Effect<A, E | TaskUnfinished, R>
}

export const makeJournalRecovery = (
  fs: FileSystemShape,
  locks: LockServiceShape,
  store: JournalStore,
  recording: JournalRecording,
  openTasks: OpenTasks,
  loadWriter: Effect.Effect<MemoryWriterShape>,
  afterKept: AfterKept = () => Effect.void
): JournalRecovery => {
  const { currentOf, settlePending } = makeJournalSettling(fs, store)

  const indexLinks = (memoryDir: string) =>
    store.readOptional(join(memoryDir, INDEX_FILE), "read").pipe(
      Effect.map((bytes) => (bytes === null ? undefined : indexLinkedFiles(new TextDecoder().decode(bytes))))
    )

  const recoverTask = Effect.fn("Journal.recoverTask")(function*(paths: MemoryPaths, task: string) {
    const memoryDir = yield* fs.realpath(paths.memoryDir).pipe(Effect.mapError(store.failed("resolve", paths.memoryDir)))
    return yield* store.withJournalLock(
      paths,
      Effect.gen(function*() {
        yield* store.sweepLeftovers(paths)
        const decoded = yield* settlePending(paths, memoryDir, yield* store.readAll(paths))
        const target = groupByTask(decoded.entries, decoded.outcomes).find((t) => t.task === task)
        if (target === undefined) return { task, kind: "unknown", mode: "rollback", files: [] } satisfies RecoveredTask
        const writer = yield* loadWriter
        const done = new Map<string, UndoneFile>()
        let forceIndex = false
        let mode: RecoveryMode = "rollback"
        let meta: TaskMeta | undefined
        for (let pass = 0; pass < 2; pass++) {
          done.clear()
          const early = new Map<string, string>()
          const hashes = new Map<string, string | null>()
          for (const net of fileNets(target)) {
            const now = yield* currentOf(memoryDir, net.file)
            if ("refused" in now) early.set(net.file, now.refused)
            else hashes.set(net.file, now.sha)
          }
          const blobs = new Map<string, Uint8Array>()
          for (const c of target.changes) {
            if (c.before === null || blobs.has(c.before)) continue
            const bytes = yield* store.verifiedBlob(paths, c.before)
            if (bytes !== undefined) blobs.set(c.before, bytes)
          }
          // A file that is no longer a regular memory file matches neither side: the plan leaves it alone.
          const hashOf = (file: string) => (early.has(file) ? "\0not a file" : hashes.get(file) ?? null)
          const plan = planRecovery(target, hashOf, (sha) => blobs.has(sha), yield* indexLinks(memoryDir), INDEX_FILE, forceIndex)
          mode = plan.mode
          // A task id of its own per pass: what a first pass journaled (an intent that failed) never says "undoes".
          meta = { task: `recover-${randomUUID()}`, kind: "recover", session: null, model: null, recovers: task, ...(mode === "rollback" ? { undoes: task } : {}) }
          const journal = recording.forWriter(paths, meta, { lockHeld: true })
          for (const l of plan.left) done.set(l.file, { file: l.file, outcome: "left", reason: early.get(l.file) ?? l.reason })
          let replan = false
          for (const a of plan.actions) {
            if (a.action === "none") {
              done.set(a.file, { file: a.file, outcome: "unchanged" })
              continue
            }
            const outcome = yield* writer.restore(a.file, {
              memoryDir,
              expect: a.expect,
              content: a.action === "remove" ? null : blobs.get(a.blob)!,
              ...(a.action === "restore" && a.mode !== undefined ? { mode: a.mode } : {}),
              journal
            }).pipe(Effect.catchTag("WriteRejected", (e) => Effect.succeed({ _tag: "Left" as const, reason: e.message })))
            if (outcome._tag === "Left" && a.file === INDEX_FILE && mode === "rollback") {
              // MEMORY.md changed just now (a writer that takes no lock): nothing else has moved; the index decides.
              forceIndex = true
              replan = true
              break
            }
            done.set(
              a.file,
              outcome._tag === "Left"
                ? { file: a.file, outcome: "left", reason: outcome.reason }
                : { file: a.file, outcome: outcome._tag === "Removed" ? "deleted" : "restored" }
            )
          }
          if (!replan) break
        }
        yield* store.appendLine(paths, encodeEntry(entryOf(meta!, [], { finished: true })))
        const files = fileNets(target).flatMap((n) => {
          const f = done.get(n.file)
          return f === undefined ? [] : [f]
        })
        return { task, kind: target.kind, mode, files } satisfies RecoveredTask
      })
    )
  })


  const recoverOpen = Effect.fn("Journal.recoverOpen")(function*(paths: MemoryPaths, held: ReadonlyArray<LockName>, options?: RecoverOptions) {
    const listed = yield* openTasks.list(paths)
    const recovered: Array<RecoveredTask> = []
    if (listed.length > 0) {
      for (const found of listed) {
        const { task, marker } = found
        if (markerOwnerAlive(found)) continue
        // A marker that cannot be read names no locks: the strictest set, both background writers'.
        const need = (marker?.locks ?? BACKGROUND_LOCKS).filter((l) => !held.includes(l))
        const one = Effect.scoped(Effect.gen(function*() {
          for (const name of need) {
            const got = yield* locks.acquire(locksDirOf(paths.rootDir), name)
            if (got._tag === "Busy") return undefined
          }
          const result = yield* recoverTask(paths, task)
          yield* openTasks.unmark(paths, task)
          return result
        }))
        const result = yield* one
        if (result !== undefined) recovered.push(result)
      }
    }
    // `open/` always (a process killed while writing its marker leaves a temp file and no marker; one readdir of a
    // folder that is empty or missing); the memory folder after a recovery, or when asked.
    yield* openTasks.sweep(paths)
    if (recovered.length > 0 || options?.sweepAlways === true) {
      yield* sweepTemps(fs, paths.memoryDir, { olderThanMs: TEMP_STALE_MS, recursive: true })
    }
    return recovered as ReadonlyArray<RecoveredTask>
  })

  const whole = <A, E, R>(
    spec: WholeSpec,
    body: (journal: WriteJournal) => Effect.Effect<A, E, R>,
    keep: (exit: Exit.Exit<A, E>) => boolean
  ): Effect.Effect<A, E | TaskUnfinished, R> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const { paths, meta } = spec
        let marked = false
        const files = new Set<string>()
        const journal = tracking(files, marking(
          recording.forWriter(paths, meta),
          openTasks.mark(paths, markerOf(meta, spec.locks)).pipe(Effect.tap(() => Effect.sync(() => void (marked = true))))
        ))
        runningTasks.add(meta.task)
        const exit = yield* Effect.exit(restore(body(journal)))
        runningTasks.delete(meta.task)
        if (!marked) return yield* exit
        // Kept: the marker's removal is the commit. When it cannot be removed, the task is rolled back instead.
        let unclosed: Cause.Cause<unknown> | undefined
        if (keep(exit)) {
          const closed = yield* Effect.exit(openTasks.unmark(paths, meta.task))
          if (Exit.isSuccess(closed)) {
            // Interruptible inside, in a fiber of its own (it takes a lock, whose race with its loss must be interruptible).
            yield* Effect.fork(Effect.interruptible(afterKept(paths, meta, { files: [...files], locks: spec.locks }))).pipe(Effect.flatMap(Fiber.await))
            return yield* exit
          }
          unclosed = closed.cause
        }
        // In a fiber of its own, interruptible inside: the locks it takes race their own loss, and a race's loser must
        // be interruptible. This fiber waits for it uninterruptibly, so an interruption of the task never cuts it short.
        const rolled = yield* Effect.fork(Effect.interruptible(recoverTask(paths, meta.task))).pipe(Effect.flatMap(Fiber.await))
        if (Exit.isSuccess(rolled)) {
          // Rolled back: a marker that cannot be removed now only makes the next holder find nothing left to do.
          yield* openTasks.unmark(paths, meta.task).pipe(Effect.ignore)
          if (unclosed !== undefined) return yield* new TaskUnfinished({ task: meta.task, rolledBack: true, cause: Cause.squash(unclosed) })
          return yield* exit
        }
        if (Exit.isSuccess(exit) && unclosed === undefined) return yield* exit
        if (Exit.isFailure(exit) && Exit.isInterrupted(exit)) return yield* exit
        const cause = unclosed ?? (Exit.isFailure(exit) ? exit.cause : Cause.empty)
        return yield* new TaskUnfinished({ task: meta.task, rolledBack: false, cause: Cause.squash(cause), rollback: Cause.squash(rolled.cause) })
      })
    )

  return { recoverTask, recoverOpen, whole }
}
