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
import { randomUUID } from "node:crypto"
import { dirname, join } from "node:path"
import { checkFileName, checkSegments, segmentsInside } from "../../src/storage/containment.ts"
import { type ChangeOutcome, type DecodedJournal, encodeEntry, encodeOutcome, fileNets, groupByTask, sha256Hex } from "../../src/writes/journal.ts"
import { planUndo, undoTarget } from "../../src/writes/journalUndo.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { PublishFailed } from "../storage/PublishFailed.ts"
import { type JournalFailed, type JournalWriteError, NothingToUndo } from "./journalErrors.ts"
import { entryOf, type JournalRecording } from "./journalRecord.ts"
import type { JournalPaths, JournalStore } from "./journalStore.ts"

/** What undo did with one file. */
export interface UndoneFile {
  readonly file: string
  /** restored: previous bytes back; deleted: the task had created it; unchanged: already at its previous bytes; left: not touched. */
  readonly outcome: "restored" | "deleted" | "unchanged" | "left"
  readonly reason?: string
}

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
  ) => Effect.Effect<UndoResult, JournalWriteError | NothingToUndo | PublishFailed>
  readonly exportTask: (
    paths: JournalPaths,
    options: { readonly task?: string; readonly dir: string }
  ) => Effect.Effect<{ readonly task: string; readonly files: ReadonlyArray<ExportedFile> }, JournalFailed | NothingToUndo>
}

/** The memory file for a journal path, or a reason it must not be touched. */
const memoryFile = (memoryDir: string, file: string): { readonly path: string } | { readonly refused: string } => {
  const path = join(memoryDir, file)
  const segments = segmentsInside(memoryDir, path)
  if (segments === undefined || segments.length === 0) return { refused: "it is not inside the memory directory" }
  const violation = checkSegments(segments, file) ?? checkFileName(segments[segments.length - 1]!, file)
  return violation === undefined ? { path } : { refused: violation.message }
}

export const makeJournalUndo = (fs: FileSystemShape, store: JournalStore, recording: JournalRecording): JournalUndo => {
  const { appendLine, failed, readAll, readOptional, verifiedBlob, withJournalLock } = store
  let writerLoad: Promise<ReturnType<typeof import("./MemoryWriter.ts").makeMemoryWriter>> | undefined
  const loadWriter = Effect.promise(() => (writerLoad ??= import("./MemoryWriter.ts").then((m) => m.makeMemoryWriter(fs))))

  /** The sha256 of a memory file now: null when missing; a reason when it is not a regular file inside memory. */
  const currentOf = (memoryDir: string, file: string): Effect.Effect<{ readonly sha: string | null } | { readonly refused: string }, JournalFailed> =>
    Effect.gen(function*() {
      const where = memoryFile(memoryDir, file)
      if ("refused" in where) return where
      const info = yield* fs.lstat(where.path).pipe(Effect.option)
      if (info._tag === "Some" && info.value.kind !== "file") return { refused: `it is now a ${info.value.kind}, not a regular file` }
      const bytes = yield* readOptional(where.path, "read")
      return { sha: bytes === null ? null : sha256Hex(bytes) }
    })

  /**
   * Settles every pending intent from the file itself (the caller holds the background writers' locks, so no writer
   * that journaled it is still running): `done` when the file holds its new bytes, `failed` when it holds its old ones,
   * `unknown` otherwise. Recorded as outcome lines, so the answer does not change when the file does later.
   */
  const settlePending = (paths: JournalPaths, memoryDir: string, decoded: DecodedJournal) =>
    Effect.gen(function*() {
      const pending = decoded.entries.filter((e) => e.id !== undefined && !decoded.outcomes.has(e.id))
      if (pending.length === 0) return decoded
      const outcomes = new Map(decoded.outcomes)
      for (const e of pending) {
        let outcome: ChangeOutcome = "unknown"
        for (const c of e.changes) {
          const now = yield* currentOf(memoryDir, c.file)
          outcome = "refused" in now ? "unknown" : now.sha === c.after ? "done" : now.sha === c.before ? "failed" : "unknown"
        }
        yield* appendLine(paths, encodeOutcome({ v: 1, id: e.id!, task: e.task, outcome, recovered: true }))
        outcomes.set(e.id!, outcome)
      }
      return { ...decoded, outcomes } satisfies DecodedJournal
    })

  const undo = Effect.fn("Journal.undo")(function*(paths: JournalPaths & { readonly memoryDir: string }, options: UndoRequest) {
    const memoryDir = yield* fs.realpath(paths.memoryDir).pipe(Effect.mapError(failed("resolve", paths.memoryDir)))
    const decoded = yield* withJournalLock(
      paths,
      Effect.gen(function*() {
        yield* store.sweepLeftovers(paths)
        return yield* settlePending(paths, memoryDir, yield* readAll(paths))
      })
    )
    const target = undoTarget(groupByTask(decoded.entries, decoded.outcomes), options.task)
    if (target === undefined) return yield* new NothingToUndo({ task: options.task ?? null })

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
    const journal = recording.forWriter(paths, { task: undoTask, kind: "undo", session: options.session, model: options.model, undoes: target.task })
    const done = new Map<string, UndoneFile>()
    for (const r of [...early, ...planned.refused]) done.set(r.file, { file: r.file, outcome: "left", reason: r.reason })
    for (const a of planned.actions) {
      if (a.action === "none") {
        done.set(a.file, { file: a.file, outcome: "unchanged" })
        continue
      }
      const outcome = yield* (yield* loadWriter).restore(a.file, {
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
    }
    // The undo ran to its end: its task no longer comes up as the one to undo.
    const changed = [...done.values()].some((f) => f.outcome === "restored" || f.outcome === "deleted")
    yield* withJournalLock(
      paths,
      appendLine(paths, encodeEntry(entryOf({ task: undoTask, kind: "undo", session: options.session, model: options.model, undoes: target.task }, [], { finished: true })))
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
