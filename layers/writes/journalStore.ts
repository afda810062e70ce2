/**
 * The journal's files, `memory-roots/<hash>/journal/`: where they are, and the few ways they are touched. The journal
 * file only grows by appended, fsynced lines (the line format is in src/writes/journal.ts); blobs (`blobs/<sha256>`)
 * and `state.json` are written whole (a temp file, renamed into place); `journal.lock` (in `locks/`) orders every
 * writer of these files.
 *
 * Reading decodes the whole journal and skips a torn last line. Nothing here decides what to keep or what to undo
 * (journalPrune.ts, journalUndo.ts), and nothing touches memory files.
 */
import * as Effect from "effect/Effect"
import { dirname, join } from "node:path"
import {
  BLOBS_DIR,
  decodeJournal,
  type DecodedJournal,
  groupByTask,
  JOURNAL_DIR,
  JOURNAL_FILE,
  JOURNAL_STATE_FILE,
  sha256Hex,
  type TaskRecord
} from "../../src/writes/journal.ts"
import { newTempName, sweepTemps } from "../storage/AtomicPublish.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { FsError } from "../storage/FsError.ts"
import type { LockFailed, LockLost, LockServiceShape } from "../storage/lockInterface.ts"
import { JournalBusy, JournalFailed } from "./journalErrors.ts"

export interface JournalPaths {
  /** `memory-roots/<hash>/`: the journal lives in its `journal/` folder, the lock in its `locks/`. */
  readonly rootDir: string
}

export interface JournalListing {
  /** Newest first, one per task. */
  readonly entries: ReadonlyArray<TaskRecord>
  readonly invalidLines: number
  readonly tornTail: boolean
}

export interface JournalState {
  /** The journal file's size right after its last pruning. */
  readonly prunedSize: number
  /** Bytes of the blobs kept (as of the last pruning, plus every blob stored since). */
  readonly contentBytes: number
}

export interface JournalStore {
  readonly journalDir: (paths: JournalPaths) => string
  readonly journalFile: (paths: JournalPaths) => string
  readonly blobsDir: (paths: JournalPaths) => string
  readonly blobPath: (paths: JournalPaths, sha: string) => string
  /** Removes temp files left in `journal/` and `blobs/` by killed processes (older than the lock's timeout). */
  readonly sweepLeftovers: (paths: JournalPaths) => Effect.Effect<number>
  /** A failed file-system step of the journal, as JournalFailed. */
  readonly failed: (op: string, path: string) => (e: FsError) => JournalFailed
  /** Runs `body` holding `journal.lock` (and still holding it at the end), or fails as JournalBusy after the wait. */
  readonly withJournalLock: <A, E>(paths: JournalPaths, body: Effect.Effect<A, E>) => Effect.Effect<A, E | JournalBusy | LockFailed | LockLost>
  /** Bytes of `path` (whole), or null when it does not exist. */
  readonly readOptional: (path: string, op: string) => Effect.Effect<Uint8Array | null, JournalFailed>
  /** Temp file (`.pm-*.tmp`, swept after a crash) beside the target, renamed over it; removed on any failure. */
  readonly writeAtomically: (path: string, data: Uint8Array, op: string, durable: boolean) => Effect.Effect<void, JournalFailed>
  /** Stores `bytes` as a blob unless it is already there; returns the bytes added to the kept content. */
  readonly storeBlob: (paths: JournalPaths, bytes: Uint8Array) => Effect.Effect<number, JournalFailed>
  /** A blob's bytes when it is there and matches its name. */
  readonly verifiedBlob: (paths: JournalPaths, sha: string) => Effect.Effect<Uint8Array | undefined>
  /** Appends one line, fsynced; returns the journal's size after. */
  readonly appendLine: (paths: JournalPaths, line: string) => Effect.Effect<number, JournalFailed>
  readonly readState: (paths: JournalPaths) => Effect.Effect<JournalState | undefined>
  readonly writeState: (paths: JournalPaths, state: JournalState) => Effect.Effect<void, JournalFailed>
  readonly readAll: (paths: JournalPaths) => Effect.Effect<DecodedJournal, JournalFailed>
  /** Tasks newest first (the entries of one task merged), at most `limit`. */
  readonly read: (paths: JournalPaths, options?: { readonly limit?: number }) => Effect.Effect<JournalListing, JournalFailed>
}

export const makeJournalStore = (fs: FileSystemShape, locks: LockServiceShape): JournalStore => {
  const journalDir = (paths: JournalPaths) => join(paths.rootDir, JOURNAL_DIR)
  const journalFile = (paths: JournalPaths) => join(journalDir(paths), JOURNAL_FILE)
  const stateFile = (paths: JournalPaths) => join(journalDir(paths), JOURNAL_STATE_FILE)
  const blobsDir = (paths: JournalPaths) => join(journalDir(paths), BLOBS_DIR)
  const blobPath = (paths: JournalPaths, sha: string) => join(blobsDir(paths), sha)
  const locksDir = (paths: JournalPaths) => join(paths.rootDir, "locks")
  const lockWaitMs = 2 * locks.timeoutOf("journal.lock") + 1_000

  const failed = (op: string, path: string) => (e: FsError) => new JournalFailed({ op, path, cause: e })

  const withJournalLock = <A, E>(paths: JournalPaths, body: Effect.Effect<A, E>) =>
    locks.withLock(locksDir(paths), "journal.lock", (lock) => Effect.zipLeft(body, lock.ensureHeld), { maxWaitMs: lockWaitMs }).pipe(
      Effect.flatMap((outcome) =>
        outcome._tag === "Done" ? Effect.succeed(outcome.value) : Effect.fail(new JournalBusy({ waitedMs: lockWaitMs }))
      )
    )

  const readOptional = (path: string, op: string): Effect.Effect<Uint8Array | null, JournalFailed> =>
    fs.readRegularFile(path).pipe(
      Effect.map((r) => r.bytes as Uint8Array | null),
      Effect.catchIf((e) => e.reason === "NotFound", () => Effect.succeed(null)),
      Effect.mapError(failed(op, path))
    )

  const writeAtomically = (path: string, data: Uint8Array, op: string, durable: boolean): Effect.Effect<void, JournalFailed> => {
    const temp = join(dirname(path), newTempName())
    return fs.writeFile(temp, data, { flag: "wx", flush: durable }).pipe(
      Effect.zipRight(fs.rename(temp, path)),
      Effect.zipRight(durable ? fs.syncDirectory(dirname(path)).pipe(Effect.ignore) : Effect.void),
      Effect.mapError(failed(op, path)),
      Effect.onError(() => fs.unlink(temp).pipe(Effect.ignore))
    )
  }

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

  const verifiedBlob = (paths: JournalPaths, sha: string): Effect.Effect<Uint8Array | undefined> =>
    fs.readRegularFile(blobPath(paths, sha)).pipe(
      Effect.map((r) => (sha256Hex(r.bytes) === sha ? (r.bytes as Uint8Array) : undefined)),
      Effect.orElseSucceed(() => undefined)
    )

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

  return {
    journalDir,
    journalFile,
    blobsDir,
    blobPath,
    sweepLeftovers: (paths) => sweepTemps(fs, journalDir(paths), { olderThanMs: locks.timeoutOf("journal.lock"), recursive: true }),
    failed,
    withJournalLock,
    readOptional,
    writeAtomically,
    storeBlob,
    verifiedBlob,
    appendLine,
    readState,
    writeState,
    readAll,
    read
  }
}
