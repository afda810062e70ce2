/**
 * Undo of one journaled task, and its manual alternative. `undo` first settles every pending intent from the file
 * itself, then restores the task's files through MemoryWriter's compare-and-swap (`restore`), file by file, each
 * journaled as a change of the undo's own task; blobs are verified against their hash first, and a file changed since
 * the task is left alone with a reason. `exportTask` writes a task's previous bytes to a folder instead, and leaves
 * memory untouched.
 *
 * The caller holds the background writers' locks (layers/writes/MemoryUndo.ts), so no writer that journaled a pending
 * intent is still running. The writer is loaded on the first undo only: the core makes the journal for every command,
 * and most never undo.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { randomUUID } from "node:crypto"
import { dirname, join } from "node:path"
import { encodeEntry, fileNets, groupByTask } from "../../src/writes/journal.ts"
import { planUndo, rolledBackBy, undoTarget } from "../../src/writes/journalUndo.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { PublishFailed } from "../storage/PublishFailed.ts"
import { type JournalFailed, type JournalWriteError, NothingToUndo } from "./journalErrors.ts"
import { entryOf } from "./journalRecord.ts"
import { BACKGROUND_LOCKS, type JournalRecovery, type RecoveredTask, type TaskUnfinished } from "./journalRecover.ts"
import { makeJournalSettling, memoryFile, type UndoneFile } from "./journalSettle.ts"
import type { JournalPaths, JournalStore } from "./journalStore.ts"
import type { MemoryWriterShape } from "./MemoryWriter.ts"

export type { UndoneFile }

export interface ExportedFile {
  readonly file: string
  /** Where its previous bytes were written; undefined when it did not exist before the task, or could not be written. */
  readonly path?: string
  readonly note?: string
}

export interface UndoResult {
  /** The task undone. */
  readonly task: string
  /** The journal entry of the undo itself (undefined when there was nothing to change). */
  readonly undoTask: string | undefined
  /** Files now at their previous bytes: restored, removed (they were created by the task), or already there. */
  readonly restored: ReadonlyArray<string>
  readonly refused: ReadonlyArray<{ readonly file: string; readonly reason: string }>
  /** Every file of the task, in the task's order, with what was done. */
  readonly files: ReadonlyArray<UndoneFile>
  /** Interrupted changes rolled back before the undo (layers/writes/MemoryUndo.ts). */
  readonly recovered?: ReadonlyArray<RecoveredTask>
}

export interface UndoRequest {
  readonly task?: string
  readonly session: string | null
  readonly model: string | null
  readonly at?: number
}

export interface JournalUndo {
  readonly undo: (
    paths: JournalPaths & { readonly memoryDir: string },
    options: UndoRequest
  ) => Effect.Effect<UndoResult, JournalWriteError | NothingToUndo | PublishFailed | TaskUnfinished>
  readonly exportTask: (
    paths: JournalPaths,
    options: { readonly task?: string; readonly dir: string }
  ) => Effect.Effect<{ readonly task: string; readonly files: ReadonlyArray<ExportedFile> }, JournalFailed | NothingToUndo>
}

export const makeJournalUndo = (
  fs: FileSystemShape,
  store: JournalStore,
  recovery: JournalRecovery,
  loadWriter: Effect.Effect<MemoryWriterShape>
): JournalUndo => {
  const { appendLine, failed, readAll, verifiedBlob, withJournalLock } = store
  const { currentOf, settlePending } = makeJournalSettling(fs, store)

  const undo = Effect.fn("Journal.undo")(function*(paths: JournalPaths & { readonly memoryDir: string }, options: UndoRequest) {
    const memoryDir = yield* fs.realpath(paths.memoryDir).pipe(Effect.mapError(failed("resolve", paths.memoryDir)))
    const decoded = yield* withJournalLock(
      paths,
      Effect.gen(function*() {
        yield* store.sweepLeftovers(paths)
        return yield* settlePending(paths, memoryDir, yield* readAll(paths))
      })
    )
    const tasks = groupByTask(decoded.entries, decoded.outcomes)
    const target = undoTarget(tasks, options.task)
    if (target === undefined) return yield* new NothingToUndo({ task: options.task ?? null })
    const rolledBack = rolledBackBy(tasks, target.task)
    if (rolledBack !== undefined) return yield* new NothingToUndo({ task: target.task, rolledBackAt: rolledBack.at })

    const order = fileNets(target).map((n) => n.file)
    const early: Array<{ file: string; reason: string }> = []
    const hashes = new Map<string, string | null>()
    for (const file of order) {
      const now = yield* currentOf(memoryDir, file)
      if ("refused" in now) early.push({ file, reason: now.refused })
      else hashes.set(file, now.sha)
    }
    const blobs = new Map<string, Uint8Array>()
    for (const c of target.changes) {
      if (c.before === null || blobs.has(c.before)) continue
      const bytes = yield* verifiedBlob(paths, c.before)
      if (bytes !== undefined) blobs.set(c.before, bytes)
    }
    const planned = planUndo(
      { ...target, changes: target.changes.filter((c) => hashes.has(c.file)) },
      (file) => hashes.get(file) ?? null,
      (sha) => blobs.has(sha)
    )
    const undoTask = `undo-${randomUUID()}`
    const meta = { task: undoTask, kind: "undo", session: options.session, model: options.model, undoes: target.task }
    const done = new Map<string, UndoneFile>()
    for (const r of [...early, ...planned.refused]) done.set(r.file, { file: r.file, outcome: "left", reason: r.reason })
    const writer = yield* loadWriter
    // Whole or absent: an undo that fails part way is rolled back, one killed part way is rolled back by the next holder
    // of the background locks (journalRecover.ts).
    yield* recovery.whole({ paths: { rootDir: paths.rootDir, memoryDir }, meta, locks: BACKGROUND_LOCKS }, (journal) =>
      Effect.forEach(planned.actions, (a) =>
        Effect.gen(function*() {
          if (a.action === "none") {
            done.set(a.file, { file: a.file, outcome: "unchanged" })
            return
          }
          const outcome = yield* writer.restore(a.file, {
            memoryDir,
            expect: a.expect,
            content: a.action === "remove" ? null : blobs.get(a.blob)!,
            ...(a.action === "restore" && a.mode !== undefined ? { mode: a.mode } : {}),
            journal
          }).pipe(
            Effect.catchTag("WriteRejected", (e) => Effect.succeed({ _tag: "Left" as const, reason: e.message }))
          )
          done.set(
            a.file,
            outcome._tag === "Left"
              ? { file: a.file, outcome: "left", reason: outcome.reason }
              : { file: a.file, outcome: outcome._tag === "Removed" ? "deleted" : "restored" }
          )
        }), { discard: true }), Exit.isSuccess)
    // The undo ran to its end (and was closed): its task no longer comes up as the one to undo.
    const changed = [...done.values()].some((f) => f.outcome === "restored" || f.outcome === "deleted")
    yield* withJournalLock(
      paths,
      appendLine(paths, encodeEntry(entryOf(meta, [], { finished: true })))
    )
    const files = order.map((file) => done.get(file)!).filter((f) => f !== undefined)
    return {
      task: target.task,
      undoTask: changed ? undoTask : undefined,
      restored: files.filter((f) => f.outcome !== "left").map((f) => f.file),
      refused: files.flatMap((f) => (f.outcome === "left" ? [{ file: f.file, reason: f.reason ?? "" }] : [])),
      files
    } satisfies UndoResult
  })

  const exportTask = Effect.fn("Journal.exportTask")(function*(paths: JournalPaths, options: { readonly task?: string; readonly dir: string }) {
    const decoded = yield* readAll(paths)
    const target = undoTarget(groupByTask(decoded.entries, decoded.outcomes), options.task)
    if (target === undefined) return yield* new NothingToUndo({ task: options.task ?? null })
    const files: Array<ExportedFile> = []
    for (const net of fileNets(target)) {
      if (net.before === null) {
        files.push({ file: net.file, note: "it did not exist before this task" })
        continue
      }
      const where = memoryFile(options.dir, net.file)
      const bytes = yield* verifiedBlob(paths, net.before)
      if ("refused" in where) files.push({ file: net.file, note: where.refused })
      else if (bytes === undefined) files.push({ file: net.file, note: "its previous content is no longer kept (history pruned or damaged)" })
      else {
        const written = yield* fs.makeDirectory(dirname(where.path), { recursive: true }).pipe(
          Effect.zipRight(fs.writeFile(where.path, bytes, { flag: "wx", noFollow: true, flush: true, ...(net.mode === undefined ? {} : { mode: net.mode }) })),
          Effect.as<ExportedFile>({ file: net.file, path: where.path }),
          Effect.catchAll((e) => Effect.succeed<ExportedFile>({ file: net.file, note: `cannot write ${where.path}: ${e.reason}` }))
        )
        files.push(written)
      }
    }
    return { task: target.task, files }
  })

  return { undo, exportTask }
}
