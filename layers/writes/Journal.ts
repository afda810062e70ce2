/**
 * Journal: the change journal of one memory root, `memory-roots/<hash>/journal/`.
 *
 * - `forWriter` gives MemoryWriter its journal hook: each publish runs holding `journal.lock`; right before its rename
 *   or unlink the writer hands over the bytes it is replacing, which are stored as `blobs/<sha256>` (temp file,
 *   fsync, rename) and named by an intent line appended and fsynced; after the publish an outcome line (`done`,
 *   `failed`, `unknown`) is appended. A writer killed in between leaves a pending intent, which undo settles from the
 *   file itself before choosing what to undo.
 * - Recording reads nothing of the journal: an append (the last byte is looked at, to start on a line of its own after
 *   a torn tail), one `stat` of the blob, and `state.json` (the content bytes kept and the journal's size after its
 *   last pruning). Pruning (the policy in src/writes/journal.ts, by whole tasks, from the whole journal) runs only when the
 *   content passes its cap or the file has grown by half since it was last pruned; it also sweeps temp files left in
 *   `journal/` and `blobs/` by killed processes.
 * - `read` lists tasks newest first (the entries of one task merged); a torn last line is skipped.
 * - `undo` restores the files of one task through MemoryWriter's compare-and-swap (`restore`), file by file, each
 *   journaled as a change of the undo's own task; blobs are verified against their hash first. The caller holds the
 *   background writers' locks (layers/writes/MemoryUndo.ts). `exportTask` writes a task's previous bytes to a folder instead.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { randomUUID } from "node:crypto"
import { dirname, join } from "node:path"
import { checkFileName, checkSegments, segmentsInside } from "../../src/storage/containment.ts"
import {
  BLOBS_DIR,
  type ChangeOp,
  type ChangeOutcome,
  decodeJournal,
  type DecodedJournal,
  encodeEntry,
  encodeOutcome,
  fileNets,
  groupByTask,
  JOURNAL_DIR,
  JOURNAL_FILE,
  JOURNAL_MAX_CONTENT_BYTES,
  JOURNAL_PRUNE_MIN_BYTES,
  JOURNAL_PRUNE_TO_BYTES,
  JOURNAL_STATE_FILE,
  type JournalChange,
  type JournalEntry,
  planPrune,
  planUndo,
  sha256Hex,
  type TaskRecord,
  undoTarget
} from "../../src/writes/journal.ts"
import { newTempName, sweepTemps } from "../storage/AtomicPublish.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { type FileSystemShape } from "../storage/fileSystemShape.ts"
import { FsReason, fsReasonText } from "../storage/FsError.ts"
import { LockService } from "../storage/LockService.ts"
import { type LockFailed, type LockLost, type LockServiceShape } from "../storage/lockInterface.ts"
import type { IntendedChange, WriteJournal } from "./MemoryWriter.ts"
import { PublishFailed } from "../storage/PublishFailed.ts"

export class JournalFailed extends Data.TaggedError("JournalFailed")<{
  readonly op: string
  readonly path: string
  readonly reason: FsReason
  readonly detail: string
}> {
  override get message(): string {
    return `journal ${this.op} ${this.path}: ${fsReasonText(this.reason, this.detail)}`
  }
}

/** `journal.lock` stayed busy for the whole wait. */
export class JournalBusy extends Schema.TaggedError<JournalBusy>()("JournalBusy", {
  waitedMs: Schema.Number
}) {
  override get message(): string {
    return `the change journal is being written by another process (waited ${this.waitedMs} ms)`
  }
}

/** No task to undo: an empty journal, every task already undone, or an unknown task id. */
export class NothingToUndo extends Schema.TaggedError<NothingToUndo>()("NothingToUndo", {
  task: Schema.NullOr(Schema.String)
}) {
  override get message(): string {
    return this.task === null ? "nothing to undo: no task in the journal changed memory and is left to undo" : `no task ${this.task} in the journal`
  }
}

export type JournalWriteError = JournalFailed | JournalBusy | LockFailed | LockLost

export interface JournalPaths {
  /** `memory-roots/<hash>/`: the journal lives in its `journal/` folder, the lock in its `locks/`. */
  readonly rootDir: string
}

/** One file's change, as bytes; null before = created, null after = deleted. */
export interface FileChange {
  /** Path relative to the memory directory, `/`-separated. */
  readonly file: string
  readonly before: Uint8Array | null
  readonly after: Uint8Array | null
}

export interface RecordInput extends TaskMeta {
  /** Milliseconds since the epoch; defaults to now. */
  readonly at?: number
  readonly changes: ReadonlyArray<FileChange>
}

export interface JournalListing {
  /** Newest first, one per task. */
  readonly entries: ReadonlyArray<TaskRecord>
  readonly invalidLines: number
  readonly tornTail: boolean
}

/** Who a task's changes are journaled for. */
export interface TaskMeta {
  readonly task: string
  readonly kind: string
  readonly session: string | null
  readonly model: string | null
  readonly range?: { readonly from: string; readonly to: string } | null
  readonly undoes?: string
}

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

export interface PruneResult {
  readonly kept: number
  readonly dropped: number
  readonly deletedBlobs: number
  readonly keptBytes: number
}

export interface JournalShape {
  /** Journals one task's changes as done (no intent): for callers that publish by other means, and tests. */
  readonly record: (paths: JournalPaths, input: RecordInput) => Effect.Effect<JournalEntry, JournalWriteError>
  /** MemoryWriter's hook: every change published through it is journaled under `meta.task`. */
  readonly forWriter: (paths: JournalPaths, meta: TaskMeta) => WriteJournal
  readonly read: (paths: JournalPaths, options?: { readonly limit?: number }) => Effect.Effect<JournalListing, JournalFailed>
  readonly undo: (
    paths: JournalPaths & { readonly memoryDir: string },
    options: { readonly task?: string; readonly session: string | null; readonly model: string | null; readonly at?: number }
  ) => Effect.Effect<UndoResult, JournalWriteError | NothingToUndo | PublishFailed>
  readonly prune: (paths: JournalPaths, now?: number) => Effect.Effect<PruneResult, JournalWriteError>
  /** The stored previous content `sha`, verified against its hash. */
  readonly readBlob: (paths: JournalPaths, sha: string) => Effect.Effect<Uint8Array, JournalFailed>
  /** Writes the previous bytes of each file of a task (default: the one `undo` would pick) under `dir`; memory is untouched. */
  readonly exportTask: (
    paths: JournalPaths,
    options: { readonly task?: string; readonly dir: string }
  ) => Effect.Effect<{ readonly task: string; readonly files: ReadonlyArray<ExportedFile> }, JournalFailed | NothingToUndo>
}

const opOf = (before: Uint8Array | null, after: Uint8Array | null): ChangeOp =>
  before === null ? "create" : after === null ? "delete" : "update"

interface JournalState {
  /** The journal file's size right after its last pruning. */
  readonly prunedSize: number
  /** Bytes of the blobs kept (as of the last pruning, plus every blob stored since). */
  readonly contentBytes: number
}

export const makeJournal = (fs: FileSystemShape, locks: LockServiceShape): JournalShape => {
  const journalDir = (paths: JournalPaths) => join(paths.rootDir, JOURNAL_DIR)
  const journalFile = (paths: JournalPaths) => join(journalDir(paths), JOURNAL_FILE)
  const stateFile = (paths: JournalPaths) => join(journalDir(paths), JOURNAL_STATE_FILE)
  const blobsDir = (paths: JournalPaths) => join(journalDir(paths), BLOBS_DIR)
  const blobPath = (paths: JournalPaths, sha: string) => join(blobsDir(paths), sha)
  const locksDir = (paths: JournalPaths) => join(paths.rootDir, "locks")
  const lockWaitMs = 2 * locks.timeoutOf("journal.lock") + 1_000
  // The writer is loaded by the first undo: the core makes the journal for every command, and most never undo.
  let writerLoad: Promise<ReturnType<typeof import("./MemoryWriter.ts").makeMemoryWriter>> | undefined
  const loadWriter = Effect.promise(() => (writerLoad ??= import("./MemoryWriter.ts").then((m) => m.makeMemoryWriter(fs))))

  const failed = (op: string, path: string) => (e: { reason: FsReason; detail: string }) =>
    new JournalFailed({ op, path, reason: e.reason, detail: e.detail })

  const withJournalLock = <A, E>(paths: JournalPaths, body: Effect.Effect<A, E>) =>
    locks.withLock(locksDir(paths), "journal.lock", (lock) => Effect.zipLeft(body, lock.ensureHeld), { maxWaitMs: lockWaitMs }).pipe(
      Effect.flatMap((outcome) =>
        outcome._tag === "Done" ? Effect.succeed(outcome.value) : Effect.fail(new JournalBusy({ waitedMs: lockWaitMs }))
      )
    )

  /** Bytes of `path` (whole), or null when it does not exist. */
  const readOptional = (path: string, op: string): Effect.Effect<Uint8Array | null, JournalFailed> =>
    fs.readRegularFile(path).pipe(
      Effect.map((r) => r.bytes as Uint8Array | null),
      Effect.catchIf((e) => e.reason === "NotFound", () => Effect.succeed(null)),
      Effect.mapError(failed(op, path))
    )

  /** Temp file (`.pm-*.tmp`, swept after a crash) beside the target, renamed over it; removed on any failure. */
  const writeAtomically = (path: string, data: Uint8Array, op: string, durable: boolean): Effect.Effect<void, JournalFailed> => {
    const temp = join(dirname(path), newTempName())
    return fs.writeFile(temp, data, { flag: "wx", flush: durable }).pipe(
      Effect.zipRight(fs.rename(temp, path)),
      Effect.zipRight(durable ? fs.syncDirectory(dirname(path)).pipe(Effect.ignore) : Effect.void),
      Effect.mapError(failed(op, path)),
      Effect.onError(() => fs.unlink(temp).pipe(Effect.ignore))
    )
  }

  /** Stores `bytes` as a blob unless it is already there; returns the bytes added to the kept content. */
  const storeBlob = (paths: JournalPaths, bytes: Uint8Array): Effect.Effect<number, JournalFailed> => {
    const path = blobPath(paths, sha256Hex(bytes))
    return fs.stat(path).pipe(
      Effect.as(0),
      Effect.catchAll(() =>
        fs.makeDirectory(blobsDir(paths), { recursive: true }).pipe(
          Effect.mapError(failed("mkdir", blobsDir(paths))),
          Effect.zipRight(writeAtomically(path, bytes, "store", true)),
          Effect.as(bytes.length)
        )
      )
    )
  }

  /** Appends one line, fsynced; returns the journal's size after. */
  const appendLine = (paths: JournalPaths, line: string): Effect.Effect<number, JournalFailed> =>
    fs.makeDirectory(journalDir(paths), { recursive: true }).pipe(
      Effect.mapError(failed("mkdir", journalDir(paths))),
      Effect.zipRight(fs.appendLine(journalFile(paths), line, { durable: true }).pipe(Effect.mapError(failed("append", journalFile(paths))))),
      Effect.tap((size) => (size === Buffer.byteLength(line) ? fs.syncDirectory(journalDir(paths)).pipe(Effect.ignore) : Effect.void))
    )

  const readState = (paths: JournalPaths): Effect.Effect<JournalState | undefined> =>
    fs.readRegularFile(stateFile(paths), 4096).pipe(
      Effect.map((r) => {
        const value = JSON.parse(new TextDecoder().decode(r.bytes)) as Partial<JournalState>
        return typeof value.prunedSize === "number" && typeof value.contentBytes === "number"
          ? { prunedSize: value.prunedSize, contentBytes: value.contentBytes }
          : undefined
      }),
      Effect.catchAllDefect(() => Effect.succeed(undefined)),
      Effect.orElseSucceed(() => undefined)
    )

  const writeState = (paths: JournalPaths, state: JournalState) =>
    writeAtomically(stateFile(paths), new TextEncoder().encode(JSON.stringify(state)), "state", false)

  /**
   * After an append (the caller holds `journal.lock`): counts the content added, and prunes when the content passed
   * its cap (down to JOURNAL_PRUNE_TO_BYTES) or the journal grew by half since its last pruning. Never fails a change.
   */
  const afterAppend = (paths: JournalPaths, size: number, added: number): Effect.Effect<void> =>
    Effect.gen(function*() {
      const state = yield* readState(paths)
      if (state === undefined) return yield* pruneLocked(paths, Date.now(), JOURNAL_MAX_CONTENT_BYTES)
      const contentBytes = state.contentBytes + added
      if (contentBytes > JOURNAL_MAX_CONTENT_BYTES) return yield* pruneLocked(paths, Date.now(), JOURNAL_PRUNE_TO_BYTES)
      if (size > Math.max(JOURNAL_PRUNE_MIN_BYTES, state.prunedSize * 1.5)) return yield* pruneLocked(paths, Date.now(), JOURNAL_MAX_CONTENT_BYTES)
      if (added > 0) yield* writeState(paths, { ...state, contentBytes })
    }).pipe(
      Effect.asVoid,
      Effect.catchAll((e) => Effect.logWarning(`journal pruning skipped: ${e.message}`))
    )

  const entryOf = (meta: TaskMeta, changes: ReadonlyArray<JournalChange>, extra: Partial<JournalEntry> = {}): JournalEntry => ({
    v: 1,
    task: meta.task,
    kind: meta.kind,
    at: new Date(Date.now()).toISOString(),
    session: meta.session,
    model: meta.model,
    ...(meta.range === undefined ? {} : { range: meta.range }),
    ...(meta.undoes === undefined ? {} : { undoes: meta.undoes }),
    ...extra,
    changes
  })

  const changeOf = (c: IntendedChange): JournalChange | undefined => {
    if (c.before === null && c.after === null) return undefined
    const before = c.before === null ? null : sha256Hex(c.before)
    const after = c.after === null ? null : sha256Hex(c.after)
    if (before === after) return undefined
    return { file: c.file, op: opOf(c.before, c.after), before, after, ...(c.mode === undefined || c.before === null ? {} : { mode: c.mode }) }
  }

  const record = Effect.fn("Journal.record")(function*(paths: JournalPaths, input: RecordInput) {
    const changes = input.changes.flatMap((c) => {
      const change = changeOf(c)
      return change === undefined ? [] : [change]
    })
    const entry: JournalEntry = {
      ...entryOf(input, changes),
      ...(input.at === undefined ? {} : { at: new Date(input.at).toISOString() })
    }
    yield* withJournalLock(
      paths,
      Effect.gen(function*() {
        let added = 0
        for (const c of input.changes) if (c.before !== null) added += yield* storeBlob(paths, c.before)
        const size = yield* appendLine(paths, encodeEntry(entry))
        yield* afterAppend(paths, size, added)
      })
    )
    return entry
  })

  const asPublishFailed = (file: string) => (e: JournalWriteError): PublishFailed =>
    new PublishFailed({ path: file, op: "journal the change to", cause: e })

  const forWriter = (paths: JournalPaths, meta: TaskMeta): WriteJournal => ({
    around: <A, E>(
      publish: (intend: (change: IntendedChange) => Effect.Effect<void, PublishFailed>) => Effect.Effect<A, E>,
      settle: (exit: Exit.Exit<A, E>) => "done" | "failed" | "unknown"
    ): Effect.Effect<A, E | PublishFailed> => {
      let intent: { readonly id: string; readonly file: string; added: number } | undefined
      const intend = (c: IntendedChange): Effect.Effect<void, PublishFailed> =>
        Effect.gen(function*() {
          const change = changeOf(c)
          if (change === undefined) return
          const added = c.before === null ? 0 : yield* storeBlob(paths, c.before)
          const id = randomUUID()
          yield* appendLine(paths, encodeEntry(entryOf(meta, [change], { id })))
          intent = { id, file: c.file, added }
        }).pipe(Effect.mapError(asPublishFailed(c.file)))
      const body = Effect.gen(function*() {
        const exit = yield* Effect.exit(publish(intend))
        if (intent !== undefined && !Exit.isInterrupted(exit)) {
          const outcome: ChangeOutcome = settle(exit)
          // Not said (a failed append): the intent stays pending, and undo settles it from the file.
          const size = yield* appendLine(paths, encodeOutcome({ v: 1, id: intent.id, task: meta.task, outcome })).pipe(
            Effect.catchAll((e) => Effect.as(Effect.logWarning(`journal outcome not recorded: ${e.message}`), undefined))
          )
          if (size !== undefined) yield* afterAppend(paths, size, intent.added)
        }
        return yield* exit
      })
      return withJournalLock(paths, body).pipe(
        Effect.catchIf(
          (e): e is JournalBusy | LockFailed | LockLost => typeof e === "object" && e !== null && "_tag" in e &&
            (e._tag === "JournalBusy" || e._tag === "LockFailed" || e._tag === "LockLost"),
          (e) => Effect.fail(asPublishFailed(intent?.file ?? "memory")(e))
        )
      ) as Effect.Effect<A, E | PublishFailed>
    }
  })

  const readAll = (paths: JournalPaths): Effect.Effect<DecodedJournal, JournalFailed> =>
    readOptional(journalFile(paths), "read").pipe(
      Effect.map((bytes) => decodeJournal(bytes === null ? "" : new TextDecoder().decode(bytes)))
    )

  const read = Effect.fn("Journal.read")(function*(paths: JournalPaths, options?: { readonly limit?: number }) {
    const decoded = yield* readAll(paths)
    const newestFirst = groupByTask(decoded.entries, decoded.outcomes).reverse()
    const limit = options?.limit
    return {
      entries: limit === undefined ? newestFirst : newestFirst.slice(0, Math.max(0, limit)),
      invalidLines: decoded.invalidLines,
      tornTail: decoded.tornTail
    } satisfies JournalListing
  })

  /** The memory file for a journal path, or a reason it must not be touched. */
  const memoryFile = (memoryDir: string, file: string): { readonly path: string } | { readonly refused: string } => {
    const path = join(memoryDir, file)
    const segments = segmentsInside(memoryDir, path)
    if (segments === undefined || segments.length === 0) return { refused: "it is not inside the memory directory" }
    const violation = checkSegments(segments, file) ?? checkFileName(segments[segments.length - 1]!, file)
    return violation === undefined ? { path } : { refused: violation.message }
  }

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

  /** A blob's bytes when it is there and matches its name. */
  const verifiedBlob = (paths: JournalPaths, sha: string): Effect.Effect<Uint8Array | undefined> =>
    fs.readRegularFile(blobPath(paths, sha)).pipe(
      Effect.map((r) => (sha256Hex(r.bytes) === sha ? (r.bytes as Uint8Array) : undefined)),
      Effect.orElseSucceed(() => undefined)
    )

  const undo = Effect.fn("Journal.undo")(function*(
    paths: JournalPaths & { readonly memoryDir: string },
    options: { readonly task?: string; readonly session: string | null; readonly model: string | null; readonly at?: number }
  ) {
    const memoryDir = yield* fs.realpath(paths.memoryDir).pipe(Effect.mapError(failed("resolve", paths.memoryDir)))
    const decoded = yield* withJournalLock(
      paths,
      Effect.gen(function*() {
        yield* sweepTemps(fs, journalDir(paths), { olderThanMs: locks.timeoutOf("journal.lock"), recursive: true })
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
    const journal = forWriter(paths, { task: undoTask, kind: "undo", session: options.session, model: options.model, undoes: target.task })
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

  /** The retention policy, from the whole journal; the caller holds `journal.lock`. */
  const pruneLocked = (paths: JournalPaths, now: number, maxBytes: number) =>
    Effect.gen(function*() {
      yield* sweepTemps(fs, journalDir(paths), { olderThanMs: locks.timeoutOf("journal.lock"), recursive: true })
      const bytes = yield* readOptional(journalFile(paths), "read")
      const text = bytes === null ? "" : new TextDecoder().decode(bytes)
      const decoded = decodeJournal(text)
      const tasks = groupByTask(decoded.entries, decoded.outcomes)
      const lastAt = new Map<string, number>()
      for (const e of decoded.entries) lastAt.set(e.task, Date.parse(e.at))
      const sizes = new Map<string, number | undefined>()
      const blobSize = (sha: string): number | undefined => sizes.get(sha)
      for (const t of tasks) {
        for (const c of t.changes) {
          if (c.before === null || sizes.has(c.before)) continue
          const info = yield* fs.stat(blobPath(paths, c.before)).pipe(Effect.option)
          sizes.set(c.before, info._tag === "Some" ? info.value.size : undefined)
        }
      }
      const plan = planPrune(tasks, now, blobSize, { maxBytes, lastAt: (t) => lastAt.get(t.task) ?? Date.parse(t.at) })
      let size = bytes?.length ?? 0
      if (plan.dropped > 0) {
        const kept = new Set(plan.keep.map((t) => t.task))
        const lines = text.split("\n").filter((line) => {
          if (line.trim() === "") return false
          try {
            const value = JSON.parse(line) as { task?: unknown }
            return typeof value.task === "string" && kept.has(value.task)
          } catch {
            return false
          }
        })
        const rewritten = new TextEncoder().encode(lines.map((l) => `${l}\n`).join(""))
        yield* writeAtomically(journalFile(paths), rewritten, "prune", true)
        size = rewritten.length
      }
      // Blobs go after the journal no longer names them: a crash in between leaves only unreferenced files.
      const stored = yield* fs.readDirectory(blobsDir(paths)).pipe(
        Effect.map((list) => list.filter((e) => e.kind === "file" && /^[0-9a-f]{64}$/.test(e.name)).map((e) => e.name)),
        Effect.catchIf((e) => e.reason === "NotFound", () => Effect.succeed([] as Array<string>)),
        Effect.mapError(failed("list", blobsDir(paths)))
      )
      const deleteBlobs = stored.filter((b) => !plan.keptBlobs.has(b))
      for (const sha of deleteBlobs) {
        yield* fs.unlink(blobPath(paths, sha)).pipe(
          Effect.catchIf((e) => e.reason === "NotFound", () => Effect.void),
          Effect.mapError(failed("remove", blobPath(paths, sha)))
        )
      }
      yield* writeState(paths, { prunedSize: size, contentBytes: plan.keptBytes })
      return { kept: plan.keep.length, dropped: plan.dropped, deletedBlobs: deleteBlobs.length, keptBytes: plan.keptBytes } satisfies PruneResult
    })

  const prune = Effect.fn("Journal.prune")(function*(paths: JournalPaths, now?: number) {
    return yield* withJournalLock(paths, pruneLocked(paths, now ?? Date.now(), JOURNAL_MAX_CONTENT_BYTES))
  })

  const readBlob = (paths: JournalPaths, sha: string) =>
    verifiedBlob(paths, sha).pipe(
      Effect.flatMap((bytes) =>
        bytes === undefined
          ? Effect.fail(new JournalFailed({ op: "read", path: blobPath(paths, sha), reason: "NotFound", detail: "missing, or not matching its hash" }))
          : Effect.succeed(bytes)
      )
    )

  return { record, forWriter, read, undo, exportTask, prune, readBlob }
}

export class Journal extends Context.Tag("pm/Journal")<Journal, JournalShape>() {
  static readonly layer: Layer.Layer<Journal, never, FileSystem | LockService> = Layer.effect(
    Journal,
    Effect.zipWith(FileSystem, LockService, makeJournal)
  )
}

/** A journal hook for tests and tasks: `journal.forWriter` for a new task id `kind-uuid`. */
export const taskJournalOf = (
  journal: JournalShape,
  rootDir: string,
  meta: Omit<TaskMeta, "task">
): WriteJournal & { readonly task: string } => {
  const task = `${meta.kind}-${randomUUID()}`
  return { task, ...journal.forWriter({ rootDir }, { task, ...meta }) }
}
