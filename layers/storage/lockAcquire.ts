/**
 * Acquiring a lock: one attempt creates the file or reads and judges the one there; a stale one is taken over only
 * through the `<name>.recover` arbitration file, so two recoverers cannot both win. The loop retries with jittered
 * back-off until acquired or its wait is spent (Busy, a typed result, never an error), and hands a created file to
 * the heartbeat to hold. Interruptible only while it waits.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { join } from "node:path"
import type { LockName } from "../../src/limits.ts"
import { backoffMs, encodeLockRecord, type ExistingLock, type LockRecord, sameLock } from "../../src/storage/lockFile.ts"
import type { FileSystemShape } from "./fileSystemShape.ts"
import type { LockSettings } from "./lockJudging.ts"
import type { AcquireResult, Busy, LockFailed, WaitOptions } from "./lockInterface.ts"
import { liveTokens, lockHolderKind } from "./lockProcess.ts"
import { type LockRecords, RECOVER_SUFFIX } from "./lockRecords.ts"
import type { makeHold } from "./lockHeartbeat.ts"

const MAX_VANISHED_RETRIES = 8

export const makeAcquireLoop = (fs: FileSystemShape, settings: LockSettings, records: LockRecords, hold: ReturnType<typeof makeHold>) => {
  const { backoff, graceMs, judge, progressMs, recoverStaleMs, timeoutOf } = settings
  const { busy, createExclusive, failed, newRecord, readExisting, readJudged, removeIfOurs } = records

  type Attempt = { readonly _tag: "Created"; readonly record: LockRecord; readonly path: string } | Busy

  /**
   * Publishes `record` at `path`, its token counted as held by this process from before the file exists: another
   * fiber of this process that reads the file at once judges our own pid by that set, and a token missing from it
   * reads as a lock left by an earlier process with our pid (taken over at once). Counted only while the file may be
   * ours: a create that loses or fails takes the token back.
   */
  const createOwned = (name: LockName, path: string, record: LockRecord): Effect.Effect<boolean, LockFailed> =>
    Effect.suspend(() => {
      liveTokens.add(record.token)
      return createExclusive(name, path, encodeLockRecord(record))
    }).pipe(
      Effect.tap((created) => (created ? Effect.void : Effect.sync(() => liveTokens.delete(record.token)))),
      Effect.tapError(() => Effect.sync(() => liveTokens.delete(record.token)))
    )

  /** Clears a `.recover` file whose recoverer died mid-recovery. */
  const clearStaleRecover = (name: LockName, recoverPath: string): Effect.Effect<void, LockFailed> =>
    Effect.gen(function*() {
      const judged = yield* readJudged(name, recoverPath)
      if (judged === undefined || judge(judged.existing, judged.now, recoverStaleMs) !== "stale") return
      const existing = judged.existing
      // Re-read just before removing: only the file we judged is removed.
      const again = yield* readExisting(name, recoverPath)
      if (again !== undefined && sameLock(existing, again)) {
        yield* fs.unlink(recoverPath).pipe(
          Effect.catchIf((e) => e.reason === "NotFound", () => Effect.void),
          Effect.mapError(failed(name, "unlink"))
        )
      }
    })

  /** Removes temp files of creates killed between their write and their link (older than the grace). Best effort. */
  const sweepTemps = (name: LockName, path: string, now: number): Effect.Effect<void> =>
    Effect.gen(function*() {
      const dir = join(path, "..")
      const entries = yield* fs.readDirectory(dir)
      for (const e of entries) {
        if (!e.name.startsWith(`${name}.`) || !e.name.endsWith(".tmp")) continue
        const info = yield* fs.stat(join(dir, e.name))
        if (now - info.mtimeMs > graceMs) yield* fs.unlink(join(dir, e.name))
      }
    }).pipe(Effect.catchAll(() => Effect.void))

  /** Takes over a lock judged stale, arbitrated by `<name>.recover`. */
  const recover = (name: LockName, path: string, judged: ExistingLock, kind: string): Effect.Effect<Attempt, LockFailed> =>
    Effect.gen(function*() {
      const recoverPath = path + RECOVER_SUFFIX
      const arbiter = yield* newRecord(kind)
      const won = yield* createOwned(name, recoverPath, arbiter)
      if (!won) {
        yield* clearStaleRecover(name, recoverPath)
        return busy(name, judged, yield* Clock.currentTimeMillis)
      }
      return yield* Effect.gen(function*() {
        // The winner re-reads: the lock may have been released, recovered by an earlier winner, or refreshed.
        const seen = yield* readJudged(name, path)
        if (seen !== undefined) {
          const { existing: current, now } = seen
          const stillStale = sameLock(judged, current) && judge(current, now, timeoutOf(name)) === "stale"
          if (!stillStale) return busy(name, current, now)
          yield* Effect.logDebug(`taking over stale lock ${name}`, current.record)
          yield* sweepTemps(name, path, now)
          yield* fs.unlink(path).pipe(
            Effect.catchIf((e) => e.reason === "NotFound", () => Effect.void),
            Effect.mapError(failed(name, "unlink"))
          )
        }
        const record = yield* newRecord(kind)
        const created = yield* createOwned(name, path, record)
        if (created) return { _tag: "Created", record, path } as const
        return busy(name, yield* readExisting(name, path), yield* Clock.currentTimeMillis)
      }).pipe(Effect.ensuring(Effect.zipRight(removeIfOurs(name, recoverPath, arbiter.token), Effect.sync(() => liveTokens.delete(arbiter.token)))))
    })

  /**
   * One acquisition attempt, without the scope: Created means the caller now owns the file. A file that exists is
   * read and judged every time: its holder, not only its age, decides whether it is stale.
   */
  const attempt = (locksDir: string, name: LockName, kind: string): Effect.Effect<Attempt, LockFailed> =>
    Effect.gen(function*() {
      const path = join(locksDir, name)
      for (let i = 0; i < MAX_VANISHED_RETRIES; i++) {
        const record = yield* newRecord(kind)
        if (yield* createOwned(name, path, record)) {
          return { _tag: "Created", record, path } as const
        }
        const seen = yield* readJudged(name, path)
        if (seen === undefined) continue // released between our create and our read: try again
        const { existing, now } = seen
        if (judge(existing, now, timeoutOf(name)) !== "stale") return busy(name, existing, now)
        return yield* recover(name, path, existing, kind)
      }
      return busy(name, undefined, yield* Clock.currentTimeMillis)
    })

  const acquireLoop = (
    locksDir: string,
    name: LockName,
    maxWaitMs: number,
    options: { readonly kind?: string; readonly onWaiting?: WaitOptions["onWaiting"] } = {}
  ) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const scope = yield* Effect.scope
        const kind = options.kind ?? lockHolderKind()
        const start = yield* Clock.currentTimeMillis
        let nextProgress = start + progressMs
        for (let i = 0;; i++) {
          const result = yield* attempt(locksDir, name, kind)
          if (result._tag === "Created") {
            const lock = yield* hold(scope, name, result)
            return { _tag: "Acquired", lock } as AcquireResult
          }
          const now = yield* Clock.currentTimeMillis
          const remaining = maxWaitMs - (now - start)
          if (remaining <= 0) return result as AcquireResult
          if (options.onWaiting !== undefined && now >= nextProgress) {
            nextProgress = now + progressMs
            yield* restore(options.onWaiting(result, now - start))
          }
          const delay = Math.min(remaining, backoffMs(i, backoff.baseMs, backoff.capMs, Math.random()))
          yield* restore(Effect.sleep(delay))
        }
      })
    )

  return acquireLoop
}
