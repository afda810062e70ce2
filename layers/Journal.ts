/**
 * Journal: the change journal of one memory root, `memory-roots/<hash>/journal/`.
 *
 * - `record` is called before a change is published: it stores the previous content of every updated or deleted
 *   file as `blobs/<sha256>` (temp file + rename, skipped when already there), then appends one JSON line to
 *   `journal.jsonl` with a single write, under `journal.lock`. A crash after `record` and before the publish leaves a
 *   record whose files still hold their `before` content; undo sees that and leaves them alone.
 * - `read` lists tasks newest first (the entries of one task merged); a torn last line is skipped.
 * - `undo` restores the files of one task to their exact previous bytes when each is still what the task left, and
 *   journals the undo itself first (so it can be undone). The caller holds the same locks as for any memory write.
 * - `prune` applies the retention policy (src/journal.ts) under `journal.lock`; `record` does so after each append.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { randomUUID } from "node:crypto"
import { basename, dirname, join } from "node:path"
import { checkFileName, checkSegments, segmentsInside } from "../src/containment.ts"
import {
  BLOBS_DIR,
  type ChangeOp,
  decodeJournal,
  encodeEntry,
  groupByTask,
  JOURNAL_DIR,
  JOURNAL_FILE,
  type JournalChange,
  type JournalEntry,
  planPrune,
  planUndo,
  sha256Hex,
  undoEntry,
  undoTarget
} from "../src/journal.ts"
import { FileSystem, type FileSystemShape, FsReason, fsReasonText } from "./FileSystem.ts"
import { type LockFailed, type LockLost, LockService, type LockServiceShape } from "./LockService.ts"

/** Largest journal file read (well above what the retention policy lets it reach). */
const JOURNAL_MAX_BYTES = 64 * 1024 * 1024
/** Largest memory file hashed or restored by undo. */
const FILE_MAX_BYTES = 16 * 1024 * 1024

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
    return this.task === null ? "nothing to undo: no task in the journal is left to undo" : `no task ${this.task} in the journal`
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

export interface RecordInput {
  readonly task: string
  readonly kind: string
  readonly session: string | null
  readonly model: string | null
  readonly range?: { readonly from: string; readonly to: string } | null
  readonly undoes?: string
  /** Milliseconds since the epoch; defaults to now. */
  readonly at?: number
  readonly changes: ReadonlyArray<FileChange>
}

export interface JournalListing {
  /** Newest first. */
  readonly entries: ReadonlyArray<JournalEntry>
  readonly invalidLines: number
  readonly tornTail: boolean
}

export interface UndoResult {
  /** The task undone. */
  readonly task: string
  /** The journal entry of the undo itself (undefined when there was nothing to change). */
  readonly undoTask: string | undefined
  /** Files now at their previous bytes: restored, removed (they were created by the task), or already there. */
  readonly restored: ReadonlyArray<string>
  readonly refused: ReadonlyArray<{ readonly file: string; readonly reason: string }>
}

export interface PruneResult {
  readonly kept: number
  readonly dropped: number
  readonly deletedBlobs: number
  readonly keptBytes: number
}

export interface JournalShape {
  readonly record: (paths: JournalPaths, input: RecordInput) => Effect.Effect<JournalEntry, JournalWriteError>
  readonly read: (paths: JournalPaths, options?: { readonly limit?: number }) => Effect.Effect<JournalListing, JournalFailed>
  readonly undo: (
    paths: JournalPaths & { readonly memoryDir: string },
    options: { readonly task?: string; readonly session: string | null; readonly model: string | null; readonly at?: number }
  ) => Effect.Effect<UndoResult, JournalWriteError | NothingToUndo>
  readonly prune: (paths: JournalPaths, now?: number) => Effect.Effect<PruneResult, JournalWriteError>
  /** The stored previous content `sha` (for `pm log --show` and tests). */
  readonly readBlob: (paths: JournalPaths, sha: string) => Effect.Effect<Uint8Array, JournalFailed>
}

const opOf = (before: Uint8Array | null, after: Uint8Array | null): ChangeOp =>
  before === null ? "create" : after === null ? "delete" : "update"

export const makeJournal = (fs: FileSystemShape, locks: LockServiceShape): JournalShape => {
  const journalDir = (paths: JournalPaths) => join(paths.rootDir, JOURNAL_DIR)
  const journalFile = (paths: JournalPaths) => join(journalDir(paths), JOURNAL_FILE)
  const blobsDir = (paths: JournalPaths) => join(journalDir(paths), BLOBS_DIR)
  const blobPath = (paths: JournalPaths, sha: string) => join(blobsDir(paths), sha)
  const locksDir = (paths: JournalPaths) => join(paths.rootDir, "locks")
  const lockWaitMs = 2 * locks.timeoutOf("journal.lock") + 1_000

  const failed = (op: string, path: string) => (e: { reason: FsReason; detail: string }) =>
    new JournalFailed({ op, path, reason: e.reason, detail: e.detail })

  const withJournalLock = <A, E>(paths: JournalPaths, body: Effect.Effect<A, E>) =>
    locks.withLock(locksDir(paths), "journal.lock", (lock) => Effect.zipLeft(body, lock.ensureHeld), { maxWaitMs: lockWaitMs }).pipe(
      Effect.flatMap((outcome) =>
        outcome._tag === "Done" ? Effect.succeed(outcome.value) : Effect.fail(new JournalBusy({ waitedMs: lockWaitMs }))
      )
    )

  /** Bytes of `path`, or null when it does not exist. */
  const readOptional = (path: string, maxBytes: number, op: string): Effect.Effect<Uint8Array | null, JournalFailed> =>
    fs.readRegularFile(path, maxBytes).pipe(
      Effect.map((r) => r.bytes as Uint8Array | null),
      Effect.catchIf((e) => e.reason === "NotFound", () => Effect.succeed(null)),
      Effect.mapError(failed(op, path))
    )

  /** Temp file beside the target, renamed over it; the temp file is removed on any failure. */
  const writeAtomically = (path: string, data: Uint8Array, op: string): Effect.Effect<void, JournalFailed> => {
    const temp = join(dirname(path), `.${basename(path)}.${randomUUID()}.tmp`)
    return fs.writeFile(temp, data, { flag: "wx" }).pipe(
      Effect.zipRight(fs.rename(temp, path)),
      Effect.mapError(failed(op, path)),
      Effect.onError(() => fs.unlink(temp).pipe(Effect.ignore))
    )
  }

  const storeBlob = (paths: JournalPaths, bytes: Uint8Array): Effect.Effect<string, JournalFailed> => {
    const sha = sha256Hex(bytes)
    const path = blobPath(paths, sha)
    return fs.stat(path).pipe(
      Effect.as(sha),
      Effect.catchAll(() =>
        fs.makeDirectory(blobsDir(paths), { recursive: true }).pipe(
          Effect.mapError(failed("mkdir", blobsDir(paths))),
          Effect.zipRight(writeAtomically(path, bytes, "store")),
          Effect.as(sha)
        )
      )
    )
  }

  /** Appends one line; after a torn tail (a write cut short) the new line starts on a line of its own. */
  const appendEntry = (paths: JournalPaths, entry: JournalEntry): Effect.Effect<void, JournalFailed> =>
    Effect.gen(function*() {
      yield* fs.makeDirectory(journalDir(paths), { recursive: true }).pipe(Effect.mapError(failed("mkdir", journalDir(paths))))
      const existing = yield* readOptional(journalFile(paths), JOURNAL_MAX_BYTES, "read")
      const separator = existing !== null && existing.length > 0 && existing[existing.length - 1] !== 0x0a ? "\n" : ""
      yield* fs.writeFile(journalFile(paths), separator + encodeEntry(entry), { flag: "a" }).pipe(
        Effect.mapError(failed("append", journalFile(paths)))
      )
    })

  const readAll = (paths: JournalPaths) =>
    readOptional(journalFile(paths), JOURNAL_MAX_BYTES, "read").pipe(
      Effect.map((bytes) => decodeJournal(bytes === null ? "" : new TextDecoder().decode(bytes)))
    )

  const record = Effect.fn("Journal.record")(function*(paths: JournalPaths, input: RecordInput) {
    const changes: Array<JournalChange> = []
    for (const c of input.changes) {
      if (c.before === null && c.after === null) continue
      const before = c.before === null ? null : sha256Hex(c.before)
      const after = c.after === null ? null : sha256Hex(c.after)
      if (before === after) continue
      changes.push({ file: c.file, op: opOf(c.before, c.after), before, after })
    }
    const entry: JournalEntry = {
      v: 1,
      task: input.task,
      kind: input.kind,
      at: new Date(input.at ?? Date.now()).toISOString(),
      session: input.session,
      model: input.model,
      ...(input.range === undefined ? {} : { range: input.range }),
      ...(input.undoes === undefined ? {} : { undoes: input.undoes }),
      changes
    }
    yield* withJournalLock(
      paths,
      Effect.gen(function*() {
        for (const c of input.changes) if (c.before !== null) yield* storeBlob(paths, c.before)
        yield* appendEntry(paths, entry)
        yield* pruneLocked(paths, Date.now())
      })
    )
    return entry
  })

  const read = Effect.fn("Journal.read")(function*(paths: JournalPaths, options?: { readonly limit?: number }) {
    const decoded = yield* readAll(paths)
    const newestFirst = groupByTask(decoded.entries).reverse()
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

  const undo = Effect.fn("Journal.undo")(function*(
    paths: JournalPaths & { readonly memoryDir: string },
    options: { readonly task?: string; readonly session: string | null; readonly model: string | null; readonly at?: number }
  ) {
    const { entries } = yield* readAll(paths)
    const target = undoTarget(groupByTask(entries), options.task)
    if (target === undefined) return yield* new NothingToUndo({ task: options.task ?? null })

    // Current state of each file the task touched; links and paths outside memory are refused up front.
    const early: Array<{ file: string; reason: string }> = []
    const current = new Map<string, Uint8Array | null>()
    for (const file of new Set(target.changes.map((c) => c.file))) {
      const where = memoryFile(paths.memoryDir, file)
      if ("refused" in where) {
        early.push({ file, reason: where.refused })
        continue
      }
      const info = yield* fs.lstat(where.path).pipe(Effect.option)
      if (info._tag === "Some" && info.value.kind !== "file") {
        early.push({ file, reason: `it is now a ${info.value.kind}, not a regular file` })
        continue
      }
      current.set(file, yield* readOptional(where.path, FILE_MAX_BYTES, "read"))
    }
    const blobs = new Set<string>()
    for (const c of target.changes) {
      if (c.before !== null && (yield* fs.stat(blobPath(paths, c.before)).pipe(Effect.option))._tag === "Some") blobs.add(c.before)
    }
    const planned = planUndo(
      { ...target, changes: target.changes.filter((c) => current.has(c.file)) },
      (file) => {
        const bytes = current.get(file)
        return bytes === null || bytes === undefined ? null : sha256Hex(bytes)
      },
      (sha) => blobs.has(sha)
    )
    const plan = { ...planned, refused: [...early, ...planned.refused] }
    const changing = plan.actions.filter((a) => a.action !== "none")
    const restored = plan.actions.map((a) => a.file)
    if (changing.length === 0) return { task: target.task, undoTask: undefined, restored, refused: plan.refused } satisfies UndoResult

    // Journal first: the files' current bytes become blobs, so the undo can itself be undone.
    const undoTask = `undo-${randomUUID()}`
    const entry = undoEntry(plan, {
      task: undoTask,
      at: new Date(options.at ?? Date.now()).toISOString(),
      session: options.session,
      model: options.model
    })
    yield* withJournalLock(
      paths,
      Effect.gen(function*() {
        for (const a of changing) {
          const bytes = current.get(a.file)
          if (bytes !== null && bytes !== undefined) yield* storeBlob(paths, bytes)
        }
        yield* appendEntry(paths, entry)
        yield* pruneLocked(paths, Date.now())
      })
    )
    for (const a of changing) {
      const path = join(paths.memoryDir, a.file)
      if (a.action === "remove") {
        yield* fs.unlink(path).pipe(
          Effect.catchIf((e) => e.reason === "NotFound", () => Effect.void),
          Effect.mapError(failed("remove", path))
        )
      } else if (a.action === "restore") {
        const bytes = yield* fs.readRegularFile(blobPath(paths, a.blob)).pipe(Effect.mapError(failed("read", blobPath(paths, a.blob))))
        yield* fs.makeDirectory(dirname(path), { recursive: true }).pipe(Effect.mapError(failed("mkdir", dirname(path))))
        yield* writeAtomically(path, bytes.bytes, "restore")
      }
    }
    return { task: target.task, undoTask, restored, refused: plan.refused } satisfies UndoResult
  })

  /** The retention policy; the caller holds `journal.lock`. */
  const pruneLocked = (paths: JournalPaths, now: number) =>
    Effect.gen(function*() {
      const { entries } = yield* readAll(paths)
      const stored = yield* fs.readDirectory(blobsDir(paths)).pipe(
        Effect.map((list) => list.filter((e) => e.kind === "file" && /^[0-9a-f]{64}$/.test(e.name)).map((e) => e.name)),
        Effect.catchIf((e) => e.reason === "NotFound", () => Effect.succeed([] as Array<string>)),
        Effect.mapError(failed("list", blobsDir(paths)))
      )
      const sizes = new Map<string, number>()
      for (const sha of stored) {
        const info = yield* fs.stat(blobPath(paths, sha)).pipe(Effect.option)
        if (info._tag === "Some") sizes.set(sha, info.value.size)
      }
      const plan = planPrune(entries, now, stored, (sha) => sizes.get(sha))
      if (plan.dropped > 0) {
        yield* writeAtomically(journalFile(paths), new TextEncoder().encode(plan.keep.map(encodeEntry).join("")), "prune")
      }
      // Blobs go after the journal no longer names them: a crash in between leaves only unreferenced files.
      for (const sha of plan.deleteBlobs) {
        yield* fs.unlink(blobPath(paths, sha)).pipe(
          Effect.catchIf((e) => e.reason === "NotFound", () => Effect.void),
          Effect.mapError(failed("remove", blobPath(paths, sha)))
        )
      }
      return { kept: plan.keep.length, dropped: plan.dropped, deletedBlobs: plan.deleteBlobs.length, keptBytes: plan.keptBytes } satisfies PruneResult
    })

  const prune = Effect.fn("Journal.prune")(function*(paths: JournalPaths, now?: number) {
    return yield* withJournalLock(paths, pruneLocked(paths, now ?? Date.now()))
  })

  const readBlob = (paths: JournalPaths, sha: string) =>
    fs.readRegularFile(blobPath(paths, sha)).pipe(
      Effect.map((r) => r.bytes),
      Effect.mapError(failed("read", blobPath(paths, sha)))
    )

  return { record, read, undo, prune, readBlob }
}

export class Journal extends Context.Tag("pm/Journal")<Journal, JournalShape>() {
  static readonly layer: Layer.Layer<Journal, never, FileSystem | LockService> = Layer.effect(
    Journal,
    Effect.zipWith(FileSystem, LockService, makeJournal)
  )
}
