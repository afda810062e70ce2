/**
 * A lock's file, one step at a time: created exclusively and complete, read as it is now (or as judged, with a
 * future heartbeat set back to now), removed only while it carries our token (release), and the records and Busy
 * answers built from it. Holds no lock and retries nothing: acquisition and the heartbeat build on these.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import { join } from "node:path"
import { LOCK_FUTURE_TOLERANCE_MS, type LockName } from "../../src/limits.ts"
import { decodeLockRecord, describeHolder, type ExistingLock, lockAgeMs, type LockRecord } from "../../src/storage/lockFile.ts"
import type { FsError } from "./FsError.ts"
import type { FileSystemShape } from "./fileSystemShape.ts"
import type { LockSettings } from "./lockJudging.ts"
import { type Busy, LockFailed } from "./lockInterface.ts"
import { ourStartTime } from "./lockProcess.ts"

/** The arbitration file beside a lock that only one recoverer can create. */
export const RECOVER_SUFFIX = ".recover"

export type LockRecords = ReturnType<typeof makeLockRecords>

export const makeLockRecords = (fs: FileSystemShape, settings: LockSettings) => {
  const { host, machine } = settings

  const failed = (name: string, op: string) => (e: FsError) => new LockFailed({ name, op, cause: e })

  /**
   * Creates the file exclusively, complete: the record is written to a temp file of its own, then hard-linked to the
   * lock's name, which fails if the name exists. A full disk therefore fails the temp write and never leaves an
   * empty lock behind. Where the file system has no hard links, an exclusive create (`wx`) is used instead. False
   * when the lock already exists. Creates the locks directory on demand.
   */
  const createExclusive = (name: string, path: string, text: string): Effect.Effect<boolean, LockFailed> => {
    const temp = `${path}.${randomUUID()}.tmp`
    const writeTemp = fs.writeFile(temp, text, { flag: "wx" }).pipe(
      Effect.catchIf(
        (e) => e.reason === "NotFound",
        () => fs.makeDirectory(join(path, ".."), { recursive: true }).pipe(Effect.zipRight(fs.writeFile(temp, text, { flag: "wx" })))
      )
    )
    const publish = fs.link(temp, path).pipe(
      Effect.as(true),
      Effect.catchIf((e) => e.reason === "AlreadyExists", () => Effect.succeed(false)),
      Effect.catchIf(
        (e) => e.reason === "PermissionDenied" || e.detail === "ENOTSUP" || e.detail === "EOPNOTSUPP" || e.detail === "EXDEV",
        () =>
          fs.writeFile(path, text, { flag: "wx" }).pipe(
            Effect.as(true),
            Effect.catchIf((e) => e.reason === "AlreadyExists", () => Effect.succeed(false))
          )
      )
    )
    return Effect.uninterruptible(
      writeTemp.pipe(
        Effect.zipRight(publish),
        Effect.ensuring(fs.unlink(temp).pipe(Effect.ignore)),
        Effect.mapError(failed(name, "create"))
      )
    )
  }

  /** The file as it is now; undefined when it does not exist. */
  const readExisting = (name: string, path: string): Effect.Effect<ExistingLock | undefined, LockFailed> =>
    fs.readRegularFile(path, 4096).pipe(
      Effect.map((head): ExistingLock | undefined => ({
        record: head.partial ? undefined : decodeLockRecord(new TextDecoder().decode(head.bytes)),
        mtimeMs: head.info.mtimeMs
      })),
      Effect.catchIf((e) => e.reason === "NotFound", () => Effect.succeed(undefined)),
      Effect.mapError(failed(name, "read"))
    )

  /** Removes the file only if it still carries `token`. Best effort: used on release paths. */
  const removeIfOurs = (name: string, path: string, token: string): Effect.Effect<void> =>
    readExisting(name, path).pipe(
      Effect.flatMap((now) =>
        now?.record?.token === token ? fs.unlink(path).pipe(Effect.mapError(failed(name, "unlink"))) : Effect.void
      ),
      Effect.catchAll((e) => Effect.logWarning(e.message))
    )

  const busy = (name: LockName, existing: ExistingLock | undefined, now: number): Busy => ({
    _tag: "Busy",
    name,
    holder: existing?.record,
    ageMs: existing === undefined ? 0 : lockAgeMs(existing, now),
    description: describeHolder(existing, now)
  })

  const newRecord = (kind: string) =>
    Effect.map(Clock.currentTimeMillis, (now): LockRecord => {
      const start = ourStartTime()
      return {
        pid: process.pid,
        token: randomUUID(),
        acquiredAt: now,
        host,
        ...(machine === undefined ? {} : { machine }),
        ...(start === undefined ? {} : { start }),
        kind
      }
    })

  /**
   * The file as judged now. A heartbeat stamped in the future (a holder whose clock ran ahead) counts as now, and the
   * file's mtime is set back to now so that its age starts counting for everyone.
   */
  const readJudged = (name: string, path: string): Effect.Effect<{ existing: ExistingLock; now: number } | undefined, LockFailed> =>
    Effect.gen(function*() {
      const existing = yield* readExisting(name, path)
      if (existing === undefined) return undefined
      const now = yield* Clock.currentTimeMillis
      if (existing.mtimeMs <= now + LOCK_FUTURE_TOLERANCE_MS) return { existing, now }
      yield* fs.setTimes(path, now, now).pipe(Effect.catchAll((e) => Effect.logDebug(e.message)))
      const again = yield* readExisting(name, path)
      return again === undefined ? undefined : { existing: { ...again, mtimeMs: Math.min(again.mtimeMs, now) }, now }
    })

  return { failed, createExclusive, readExisting, removeIfOurs, busy, newRecord, readJudged }
}
