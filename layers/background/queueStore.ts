/**
 * The queue's files in `memory-roots/<hash>/queue/` (the format is src/background/queue.ts): a job is published whole
 * (a temp file, flushed, hard-linked under its name, the folder flushed; mode 0600, since it holds the session's
 * messages), listed oldest first, and removed once run.
 * A file that cannot be read as a job is moved into `queue/damaged/` when a drain meets it, and reported: never
 * deleted, never run. Who may run or remove a job is the drain's (queue.lock); nothing here takes a lock.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { randomBytes } from "node:crypto"
import { dirname, join } from "node:path"
import { QUEUE_JOB_MAX_BYTES } from "../../src/limits.ts"
import { decodeJob, encodeJob, isJobFileName, jobFileName, QUEUE_DAMAGED_DIR, type QueuedJob, queuedAtOfName } from "../../src/background/queue.ts"
import { queueDirOf } from "../../src/storage/layout.ts"
import { publishFile, sweepTemps, TEMP_STALE_MS } from "../storage/AtomicPublish.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import { type FsError, fsReasonText } from "../storage/FsError.ts"

/** A step of the queue's files failed. */
export class QueueFailed extends Data.TaggedError("QueueFailed")<{
  readonly op: string
  readonly path: string
  readonly cause: FsError
}> {
  override get message(): string {
    return `cannot ${this.op} ${this.path}: ${fsReasonText(this.cause.reason, this.cause.detail)}`
  }
}

export interface QueueEntry {
  readonly name: string
  readonly path: string
  readonly job: QueuedJob
}

export interface DamagedRecord {
  readonly name: string
  /** Why it is not a job, in words. */
  readonly reason: string
  /** Where it was moved (undefined: it could not be moved and stays where it was). */
  readonly movedTo: string | undefined
}

export interface QueueListing {
  /** Oldest first. */
  readonly jobs: ReadonlyArray<QueueEntry>
  /** Records met now that are not jobs. */
  readonly damaged: ReadonlyArray<DamagedRecord>
}

/** What `pm status` and `/memory status` show, from the names alone (nothing is read, moved or made). */
export interface QueueSummary {
  readonly count: number
  /** Epoch ms of the oldest job, or null when none is queued. */
  readonly oldestAt: number | null
  /** Records set aside in `queue/damaged/`. */
  readonly damaged: number
}

export const emptySummary: QueueSummary = { count: 0, oldestAt: null, damaged: 0 }

export const makeQueueStore = (fs: FileSystemShape) => {
  const failed = (op: string, path: string) => (cause: FsError) => new QueueFailed({ op, path, cause })
  const namesIn = (dir: string) =>
    fs.readDirectory(dir).pipe(
      Effect.map((entries) => entries.filter((e) => e.kind === "file").map((e) => e.name)),
      Effect.catchIf((e) => e.reason === "NotFound", () => Effect.succeed<ReadonlyArray<string>>([]))
    )

  /** Publishes `text` (the encoded `job`) as a new job; returns its name. */
  const enqueue = (rootDir: string, job: QueuedJob, text: string): Effect.Effect<string, QueueFailed> => {
    const dir = queueDirOf(rootDir)
    const attempt: Effect.Effect<string, QueueFailed> = Effect.gen(function*() {
      const name = jobFileName(job, randomBytes(6).toString("hex"))
      // The job holds the session's messages: readable by its owner only, as Pi's session files are.
      const outcome = yield* publishFile(fs, { dir, name, content: text, mode: "create", durable: true, fileMode: 0o600 }).pipe(
        Effect.mapError(failed("write the job", join(dir, name)))
      )
      // A name taken already (the same millisecond, session and random part): another name.
      return outcome._tag === "Published" ? name : yield* attempt
    })
    return fs.makeDirectory(dir, { recursive: true }).pipe(Effect.mapError(failed("make the folder", dir)), Effect.zipRight(attempt))
  }

  /** Moves a record that is not a job into `damaged/`, under its own name. */
  const setAside = (dir: string, name: string, reason: string): Effect.Effect<DamagedRecord> => {
    const damagedDir = join(dir, QUEUE_DAMAGED_DIR)
    const target = join(damagedDir, name)
    return fs.makeDirectory(damagedDir, { recursive: true }).pipe(
      Effect.zipRight(fs.rename(join(dir, name), target)),
      Effect.as<DamagedRecord>({ name, reason, movedTo: target }),
      Effect.orElseSucceed((): DamagedRecord => ({ name, reason, movedTo: undefined }))
    )
  }

  /** Every job, oldest first; a record that is not one is set aside and reported. Temp files of killed writers go. */
  const list = (rootDir: string): Effect.Effect<QueueListing, QueueFailed> =>
    Effect.gen(function*() {
      const dir = queueDirOf(rootDir)
      yield* sweepTemps(fs, dir, { olderThanMs: TEMP_STALE_MS, recursive: false })
      const names = [...(yield* namesIn(dir).pipe(Effect.mapError(failed("list", dir))))].filter((n) => n.endsWith(".json")).sort()
      const jobs: Array<QueueEntry> = []
      const damaged: Array<DamagedRecord> = []
      for (const name of names) {
        const path = join(dir, name)
        if (!isJobFileName(name)) {
          damaged.push(yield* setAside(dir, name, "its name is not a job's"))
          continue
        }
        const read = yield* fs.readRegularFile(path, QUEUE_JOB_MAX_BYTES).pipe(Effect.either)
        if (read._tag === "Left") {
          // Run and removed by another drain since the listing: gone, not damaged.
          if (read.left.reason === "NotFound") continue
          return yield* Effect.fail(failed("read", path)(read.left))
        }
        if (read.right.partial) {
          damaged.push(yield* setAside(dir, name, `it is larger than ${QUEUE_JOB_MAX_BYTES} bytes`))
          continue
        }
        const job = decodeJob(Buffer.from(read.right.bytes).toString("utf8"))
        if (typeof job === "string") damaged.push(yield* setAside(dir, name, job))
        else jobs.push({ name, path, job })
      }
      return { jobs, damaged }
    })

  /** Rewrites a job in place with `attempts` drains ended by its model's error (its bytes otherwise the same). */
  const countAttempt = (entry: QueueEntry, attempts: number): Effect.Effect<void, QueueFailed> =>
    publishFile(fs, {
      dir: dirname(entry.path),
      name: entry.name,
      content: encodeJob({ ...entry.job, attempts }),
      mode: "replace",
      durable: true,
      fileMode: 0o600
    }).pipe(Effect.asVoid, Effect.mapError(failed("count an attempt of the job", entry.path)))

  /** Removes a job that has run; one already gone is fine. */
  const remove = (entry: QueueEntry): Effect.Effect<void, QueueFailed> =>
    fs.unlink(entry.path).pipe(
      Effect.catchIf((e) => e.reason === "NotFound", () => Effect.void),
      Effect.mapError(failed("remove the job", entry.path))
    )

  /** How many jobs wait and since when, and how many records were set aside; an unreadable folder reads as empty. */
  const summary = (rootDir: string): Effect.Effect<QueueSummary> =>
    Effect.gen(function*() {
      const dir = queueDirOf(rootDir)
      const names = (yield* namesIn(dir).pipe(Effect.orElseSucceed(() => []))).filter(isJobFileName).sort()
      const damaged = (yield* namesIn(join(dir, QUEUE_DAMAGED_DIR)).pipe(Effect.orElseSucceed(() => []))).length
      return { count: names.length, oldestAt: names.length === 0 ? null : queuedAtOfName(names[0]!), damaged }
    })

  return { enqueue, list, remove, countAttempt, summary }
}

export type QueueStore = ReturnType<typeof makeQueueStore>
