/**
 * Holding a lock: once its file is created, release is registered in the scope (the file removed only while it
 * carries our token) and a heartbeat fiber refreshes its mtime and watches the token. A read that fails for another
 * reason than "missing" is retried with back-off for as long as no peer could judge the file stale; missing,
 * another token, or a whole timeout without a good read loses the lock (`lost`, `ensureHeld`). Never takes a lock.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import type { LockName } from "../../src/limits.ts"
import { backoffMs, type ExistingLock, type LockRecord } from "../../src/storage/lockFile.ts"
import type { FileSystemShape } from "./fileSystemShape.ts"
import type { LockSettings } from "./lockJudging.ts"
import { type HeldLock, LockLost } from "./lockInterface.ts"
import { liveTokens } from "./lockProcess.ts"
import type { LockRecords } from "./lockRecords.ts"

/** First delay when re-reading a held lock after a transient error; it doubles up to the heartbeat period. */
const READ_RETRY_BASE_MS = 10

export const makeHold = (fs: FileSystemShape, settings: LockSettings, records: LockRecords) => {
  const { heartbeatOf, timeoutOf } = settings
  const { readExisting, removeIfOurs } = records

  /** Registers release and heartbeat in `scope` and builds the handle. Runs uninterruptibly right after creation. */
  const hold = (
    scope: Scope.Scope,
    name: LockName,
    created: { readonly record: LockRecord; readonly path: string }
  ): Effect.Effect<HeldLock> =>
    Effect.gen(function*() {
      const { path, record } = created
      liveTokens.add(record.token)
      yield* Scope.addFinalizer(
        scope,
        // The file goes first, then the token: a fiber of this process that reads the file in between still sees it
        // held (a token missing from the set reads as a lock left by an earlier process with our pid).
        Effect.ensuring(removeIfOurs(name, path, record.token), Effect.sync(() => liveTokens.delete(record.token)))
      )
      const lostSignal = yield* Deferred.make<never, LockLost>()
      // When the file last showed our token. Until a whole timeout has passed since then no peer can judge the
      // file stale, so a read that fails for another reason than "missing" (EMFILE, EBUSY, EIO...) is retried
      // with back-off inside that window; only evidence (missing, another token) or a window spent without one
      // good read loses the lock.
      let confirmedAt = record.acquiredAt
      const readPatiently: Effect.Effect<ExistingLock | undefined | "unreadable"> = Effect.gen(function*() {
        for (let i = 0;; i++) {
          const read = yield* Effect.either(readExisting(name, path))
          if (read._tag === "Right") return read.right
          const left = confirmedAt + timeoutOf(name) - (yield* Clock.currentTimeMillis)
          if (left <= 0) return "unreadable" as const
          yield* Effect.logDebug(`${read.left.message}; retrying`)
          yield* Effect.sleep(Math.min(left, backoffMs(i, READ_RETRY_BASE_MS, heartbeatOf(name), 1)))
        }
      })
      const check: Effect.Effect<void, LockLost> = readPatiently.pipe(
        Effect.flatMap((now) => {
          const reason = now === "unreadable"
            ? "unreadable" as const
            : now === undefined
            ? "missing" as const
            : now.record?.token !== record.token
            ? "token-changed" as const
            : undefined
          if (reason === undefined) {
            return Effect.map(Clock.currentTimeMillis, (t) => {
              confirmedAt = Math.max(confirmedAt, t)
            })
          }
          const lost = new LockLost({ name, reason })
          return Deferred.fail(lostSignal, lost).pipe(Effect.zipRight(Effect.fail(lost)))
        })
      )
      const heartbeat = Effect.gen(function*() {
        while (true) {
          yield* Effect.sleep(heartbeatOf(name))
          const alive = yield* check.pipe(Effect.as(true), Effect.catchAll(() => Effect.succeed(false)))
          if (!alive) return
          const now = yield* Clock.currentTimeMillis
          yield* fs.setTimes(path, now, now).pipe(Effect.catchAll((e) => Effect.logDebug(e.message)))
        }
      })
      yield* Effect.forkIn(Effect.interruptible(heartbeat), scope)
      return {
        name,
        path,
        token: record.token,
        acquiredAt: record.acquiredAt,
        verify: check.pipe(Effect.as(true), Effect.catchAll(() => Effect.succeed(false))),
        ensureHeld: check,
        lost: Deferred.await(lostSignal)
      }
    })

  return hold
}
