/**
 * Journal: the change journal of one memory root, `memory-roots/<hash>/journal/`.
 *
 * - `forWriter` gives MemoryWriter its journal hook: each publish runs holding `journal.lock`; right before its rename
 *   or unlink the writer hands over the bytes it is replacing, which are stored as `blobs/<sha256>` (temp file,
 *   fsync, rename) and named by an intent line appended and fsynced; after the publish an outcome line (`done`,
 *   `failed`, `unknown`) is appended. A writer killed in between leaves a pending intent, which undo settles from the
 *   file itself before choosing what to undo (journalRecord.ts).
 * - Recording reads nothing of the journal: an append (the last byte is looked at, to start on a line of its own after
 *   a torn tail), one `stat` of the blob, and `state.json` (the content bytes kept and the journal's size after its
 *   last pruning). Pruning (the policy in src/writes/journal.ts, by whole tasks, from the whole journal) runs only when the
 *   content passes its cap or the file has grown by half since it was last pruned; it also sweeps temp files left in
 *   `journal/` and `blobs/` by killed processes (journalPrune.ts).
 * - `read` lists tasks newest first (the entries of one task merged); a torn last line is skipped (journalStore.ts).
 * - `undo` restores the files of one task through MemoryWriter's compare-and-swap (`restore`), file by file, each
 *   journaled as a change of the undo's own task; blobs are verified against their hash first. The caller holds the
 *   background writers' locks (layers/writes/MemoryUndo.ts). `exportTask` writes a task's previous bytes to a folder
 *   instead (journalUndo.ts).
 *
 * - `afterKept` (optional, given by the core) is told of each task kept, under its locks: the memory history's commit.
 *
 * This module holds the service's interface, its constructor (which wires the parts) and its layer. It needs only the
 * writer's hook types (writeJournal.ts): the writer itself is loaded by the first undo.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { JournalEntry } from "../../src/writes/journal.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { type FileSystemShape } from "../storage/fileSystemShape.ts"
import { FsError } from "../storage/FsError.ts"
import { LockService } from "../storage/LockService.ts"
import { type LockServiceShape } from "../storage/lockInterface.ts"
import type { PublishFailed } from "../storage/PublishFailed.ts"
import { JournalFailed, type JournalWriteError, type NothingToUndo } from "./journalErrors.ts"
import { makeJournalPruning, type PruneResult } from "./journalPrune.ts"
import { makeJournalRecording, type RecordInput, type TaskMeta } from "./journalRecord.ts"
import { type AfterKept, type JournalRecovery, makeJournalRecovery, type MemoryPaths, type TaskUnfinished } from "./journalRecover.ts"
import { type JournalListing, type JournalPaths, makeJournalStore } from "./journalStore.ts"
import { type ExportedFile, makeJournalUndo, type UndoRequest, type UndoResult } from "./journalUndo.ts"
import { type ListedMarker, makeOpenTasks } from "./openTasks.ts"
import type { WriteJournal } from "./writeJournal.ts"

export interface JournalShape {
  /** Journals one task's changes as done (no intent): for callers that publish by other means, and tests. */
  readonly record: (paths: JournalPaths, input: RecordInput) => Effect.Effect<JournalEntry, JournalWriteError>
  /** MemoryWriter's hook: every change published through it is journaled under `meta.task`. */
  readonly forWriter: (paths: JournalPaths, meta: TaskMeta) => WriteJournal
  readonly read: (paths: JournalPaths, options?: { readonly limit?: number }) => Effect.Effect<JournalListing, JournalFailed>
  readonly undo: (
    paths: JournalPaths & { readonly memoryDir: string },
    options: UndoRequest
  ) => Effect.Effect<UndoResult, JournalWriteError | NothingToUndo | PublishFailed | TaskUnfinished>
  readonly prune: (paths: JournalPaths, now?: number) => Effect.Effect<PruneResult, JournalWriteError>
  /** The stored previous content `sha`, verified against its hash. */
  readonly readBlob: (paths: JournalPaths, sha: string) => Effect.Effect<Uint8Array, JournalFailed>
  /** Writes the previous bytes of each file of a task (default: the one `undo` would pick) under `dir`; memory is untouched. */
  readonly exportTask: (
    paths: JournalPaths,
    options: { readonly task?: string; readonly dir: string }
  ) => Effect.Effect<{ readonly task: string; readonly files: ReadonlyArray<ExportedFile> }, JournalFailed | NothingToUndo>
  /** Runs a task that changes memory as one whole: kept, or rolled back (journalRecover.ts). */
  readonly whole: JournalRecovery["whole"]
  /** Rolls back the open tasks whose owner is gone, the caller holding `held` (journalRecover.ts). */
  readonly recoverOpen: JournalRecovery["recoverOpen"]
  /** The open-task markers (`open/`), oldest first: tasks under way, or interrupted ones not yet rolled back. */
  readonly openTasks: (paths: JournalPaths) => Effect.Effect<ReadonlyArray<ListedMarker>>
}

export type { MemoryPaths }

export const makeJournal = (fs: FileSystemShape, locks: LockServiceShape, afterKept?: AfterKept): JournalShape => {
  const store = makeJournalStore(fs, locks)
  const pruning = makeJournalPruning(fs, store)
  const recording = makeJournalRecording(store, pruning)
  const markers = makeOpenTasks(fs)
  // The writer is loaded by the first undo or recovery only: the core makes the journal for every command.
  let writerLoad: Promise<ReturnType<typeof import("./MemoryWriter.ts").makeMemoryWriter>> | undefined
  const loadWriter = Effect.promise(() => (writerLoad ??= import("./MemoryWriter.ts").then((m) => m.makeMemoryWriter(fs))))
  const recovery = makeJournalRecovery(fs, locks, store, recording, markers, loadWriter, afterKept)
  const { undo, exportTask } = makeJournalUndo(fs, store, recovery, loadWriter)

  const readBlob = (paths: JournalPaths, sha: string) =>
    store.verifiedBlob(paths, sha).pipe(
      Effect.flatMap((bytes) => {
        const path = store.blobPath(paths, sha)
        return bytes === undefined
          ? Effect.fail(
            new JournalFailed({
              op: "read",
              path,
              cause: new FsError({ op: "read", path, reason: "NotFound", detail: "missing, or not matching its hash" })
            })
          )
          : Effect.succeed(bytes)
      })
    )

  return {
    record: recording.record,
    forWriter: recording.forWriter,
    read: store.read,
    undo,
    exportTask,
    prune: pruning.prune,
    readBlob,
    whole: recovery.whole,
    recoverOpen: recovery.recoverOpen,
    openTasks: markers.list
  }
}

export class Journal extends Context.Tag("pm/Journal")<Journal, JournalShape>() {
  static readonly layer: Layer.Layer<Journal, never, FileSystem | LockService> = Layer.effect(
    Journal,
    Effect.zipWith(FileSystem, LockService, makeJournal)
  )
}
