/**
 * LockService: named cross-process leases under `memory-roots/<hash>/locks/`.
 *
 * A lock is a file created exclusively (`wx`) holding `{ pid, token, acquiredAt }`. Holding it is a scoped resource:
 * the file is removed when the scope closes, whatever the exit. While held, a heartbeat fiber refreshes the file's
 * mtime and watches the token; if the file disappears or carries another token the lock is lost, and `withLock`
 * interrupts the work running under it. A read that fails for another reason is retried with back-off for as long
 * as no peer could judge the file stale (one timeout since the token was last seen). A busy lock is a typed result, never an error, so callers pick skip or wait.
 *
 * Takeover happens only when the file is older than the lock's timeout AND its holder's process is gone, and only
 * through the `<name>.recover` arbitration file, so two recoverers cannot both win. See docs/concurrency.md.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import { join } from "node:path"
import { LOCK_TIMEOUTS_MS, type LockName } from "../src/limits.ts"
import {
  backoffMs,
  decodeLockRecord,
  encodeLockRecord,
  type ExistingLock,
  judgeLock,
  type LockJudgement,
  lockAgeMs,
  type LockRecord,
  sameLock
} from "../src/lockFile.ts"
import { type FileInfo, FileSystem, FsReason, type FileSystemShape } from "./FileSystem.ts"

/** The lock's file could not be created or read for a reason other than "someone holds it". */
export class LockFailed extends Data.TaggedError("LockFailed")<{
  readonly name: string
  readonly op: string
  readonly reason: FsReason
  readonly detail: string
}> {
  override get message(): string {
    return `lock ${this.name}: ${this.op} failed: ${this.reason}${this.detail ? ` (${this.detail})` : ""}`
  }
}

/**
 * The lock file vanished or now carries another token, or could not be read at all for a whole timeout: the work
 * that relied on it must stop.
 */
export class LockLost extends Data.TaggedError("LockLost")<{
  readonly name: string
  readonly reason: "missing" | "token-changed" | "unreadable"
}> {
  override get message(): string {
    return `lock ${this.name} was lost (${this.reason}); the work holding it was stopped`
  }
}

/** Someone else holds the lock. `holder` is undefined when the file could not be parsed. */
export interface Busy {
  readonly _tag: "Busy"
  readonly name: LockName
  readonly holder: LockRecord | undefined
  readonly ageMs: number
}

export interface HeldLock {
  readonly name: LockName
  readonly path: string
  readonly token: string
  readonly acquiredAt: number
  /** Reads the file now (waiting out transient read errors): true while it still carries our token. */
  readonly verify: Effect.Effect<boolean>
  /** Call before each critical step: fails with LockLost (and signals `lost`) unless the token on disk is ours. */
  readonly ensureHeld: Effect.Effect<void, LockLost>
  /** Never succeeds; fails once the heartbeat or `ensureHeld` sees the lock gone. Race work against it. */
  readonly lost: Effect.Effect<never, LockLost>
}

export type AcquireResult = { readonly _tag: "Acquired"; readonly lock: HeldLock } | Busy
export type LockOutcome<A> = { readonly _tag: "Done"; readonly value: A } | Busy

export interface LockStatus {
  readonly name: LockName
  readonly holder: LockRecord | undefined
  readonly ageMs: number
  readonly judgement: LockJudgement
}

export interface WaitOptions {
  /** Give up (returning Busy) after this long. */
  readonly maxWaitMs: number
}

export interface LockServiceShape {
  /** One attempt. Scoped: an acquired lock is released when the scope closes. */
  readonly acquire: (locksDir: string, name: LockName) => Effect.Effect<AcquireResult, LockFailed, Scope.Scope>
  /** Retries with jittered back-off until acquired or `maxWaitMs` has passed. Interruptible while waiting. */
  readonly acquireOrWait: (
    locksDir: string,
    name: LockName,
    options: WaitOptions
  ) => Effect.Effect<AcquireResult, LockFailed, Scope.Scope>
  /**
   * Runs `use` while holding the lock and releases it afterwards. `use` is interrupted if the lock is lost, and the
   * whole effect then fails with LockLost. Without `maxWaitMs` a busy lock returns Busy at once.
   */
  readonly withLock: <A, E, R>(
    locksDir: string,
    name: LockName,
    use: (lock: HeldLock) => Effect.Effect<A, E, R>,
    options?: Partial<WaitOptions>
  ) => Effect.Effect<LockOutcome<A>, E | LockLost | LockFailed, R>
  /** Who holds the lock, for status displays. Undefined when free. */
  readonly inspect: (locksDir: string, name: LockName) => Effect.Effect<LockStatus | undefined, LockFailed>
  readonly timeoutOf: (name: LockName) => number
}

export interface LockServiceConfig {
  /** Per-lock timeouts; tests pass short ones. Defaults to LOCK_TIMEOUTS_MS. */
  readonly timeouts?: Partial<Record<LockName, number>>
  /** Heartbeat period. Default: a quarter of the lock's timeout, at most 10 s. */
  readonly heartbeatMs?: number
  /** A `.recover` file older than this whose creator is gone is cleared. Default 30 s. */
  readonly recoverStaleMs?: number
  /** Back-off while waiting: first delay and cap, in milliseconds. */
  readonly backoff?: { readonly baseMs: number; readonly capMs: number }
  /** PID liveness. Default `process.kill(pid, 0)`, with EPERM meaning alive. */
  readonly isAlive?: (pid: number) => boolean
}

export const pidIsAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Tokens of the locks this process holds right now, whichever layer instance took them. A lock file naming our own
 * PID but a token not in here was left by an earlier process that had the same PID.
 */
const liveTokens = new Set<string>()

const RECOVER_SUFFIX = ".recover"
const MAX_VANISHED_RETRIES = 8
/** First delay when re-reading a held lock after a transient error; it doubles up to the heartbeat period. */
const READ_RETRY_BASE_MS = 10

export const makeLockService = (fs: FileSystemShape, config: LockServiceConfig = {}): LockServiceShape => {
  const timeoutOf = (name: LockName): number => config.timeouts?.[name] ?? LOCK_TIMEOUTS_MS[name]
  const heartbeatOf = (name: LockName): number =>
    config.heartbeatMs ?? Math.max(10, Math.min(10_000, Math.floor(timeoutOf(name) / 4)))
  const recoverStaleMs = config.recoverStaleMs ?? 30_000
  const backoff = config.backoff ?? { baseMs: 1, capMs: 20 }
  const pidAlive = config.isAlive ?? pidIsAlive
  const isAlive = (record: LockRecord): boolean =>
    record.pid === process.pid ? liveTokens.has(record.token) : pidAlive(record.pid)

  const failed = (name: string, op: string) => (e: { reason: FsReason; detail: string }) =>
    new LockFailed({ name, op, reason: e.reason, detail: e.detail })

  /** Creates the file exclusively; false when it already exists. Creates the locks directory on demand. */
  const createExclusive = (name: string, path: string, text: string): Effect.Effect<boolean, LockFailed> =>
    fs.writeFile(path, text, { flag: "wx" }).pipe(
      Effect.as(true),
      Effect.catchIf(
        (e) => e.reason === "NotFound",
        () =>
          fs.makeDirectory(join(path, ".."), { recursive: true }).pipe(
            Effect.zipRight(fs.writeFile(path, text, { flag: "wx" })),
            Effect.as(true)
          )
      ),
      Effect.catchIf((e) => e.reason === "AlreadyExists", () => Effect.succeed(false)),
      Effect.mapError(failed(name, "create"))
    )

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
    ageMs: existing === undefined ? 0 : lockAgeMs(existing, now)
  })

  const newRecord = Effect.map(Clock.currentTimeMillis, (now): LockRecord => ({
    pid: process.pid,
    token: randomUUID(),
    acquiredAt: now
  }))

  type Attempt = { readonly _tag: "Created"; readonly record: LockRecord; readonly path: string } | Busy

  /** Clears a `.recover` file whose recoverer died mid-recovery. */
  const clearStaleRecover = (name: LockName, recoverPath: string): Effect.Effect<void, LockFailed> =>
    Effect.gen(function*() {
      const existing = yield* readExisting(name, recoverPath)
      const now = yield* Clock.currentTimeMillis
      if (existing === undefined || lockAgeMs(existing, now) <= recoverStaleMs) return
      if (existing.record !== undefined && isAlive(existing.record)) return
      // Re-read just before removing: only the file we judged is removed.
      const again = yield* readExisting(name, recoverPath)
      if (again !== undefined && sameLock(existing, again)) {
        yield* fs.unlink(recoverPath).pipe(
          Effect.catchIf((e) => e.reason === "NotFound", () => Effect.void),
          Effect.mapError(failed(name, "unlink"))
        )
      }
    })

  /** Takes over a lock judged stale, arbitrated by `<name>.recover`. */
  const recover = (name: LockName, path: string, judged: ExistingLock): Effect.Effect<Attempt, LockFailed> =>
    Effect.gen(function*() {
      const recoverPath = path + RECOVER_SUFFIX
      const arbiter = yield* newRecord
      const won = yield* createExclusive(name, recoverPath, encodeLockRecord(arbiter))
      if (!won) {
        yield* clearStaleRecover(name, recoverPath)
        return busy(name, judged, yield* Clock.currentTimeMillis)
      }
      return yield* Effect.gen(function*() {
        // The winner re-reads: the lock may have been released, recovered by an earlier winner, or refreshed.
        const current = yield* readExisting(name, path)
        const now = yield* Clock.currentTimeMillis
        if (current !== undefined) {
          const stillStale = sameLock(judged, current) &&
            judgeLock({ existing: current, now, timeoutMs: timeoutOf(name), isAlive }) === "stale"
          if (!stillStale) return busy(name, current, now)
          yield* Effect.logDebug(`taking over stale lock ${name}`, current.record)
          yield* fs.unlink(path).pipe(
            Effect.catchIf((e) => e.reason === "NotFound", () => Effect.void),
            Effect.mapError(failed(name, "unlink"))
          )
        }
        const record = yield* newRecord
        const created = yield* createExclusive(name, path, encodeLockRecord(record))
        if (created) return { _tag: "Created", record, path } as const
        return busy(name, yield* readExisting(name, path), yield* Clock.currentTimeMillis)
      }).pipe(Effect.ensuring(removeIfOurs(name, recoverPath, arbiter.token)))
    })

  /**
   * One acquisition attempt, without the scope: Created means the caller now owns the file. While waiting, a young
   * file is recognised by its mtime alone (one stat); its content is read only to judge an old file or to report
   * the holder (`describe`).
   */
  const attempt = (locksDir: string, name: LockName, describe: boolean): Effect.Effect<Attempt, LockFailed> =>
    Effect.gen(function*() {
      const path = join(locksDir, name)
      for (let i = 0; i < MAX_VANISHED_RETRIES; i++) {
        const record = yield* newRecord
        if (yield* createExclusive(name, path, encodeLockRecord(record))) {
          return { _tag: "Created", record, path } as const
        }
        if (!describe) {
          const info = yield* fs.stat(path).pipe(
            Effect.map((i): FileInfo | undefined => i),
            Effect.catchIf((e) => e.reason === "NotFound", () => Effect.succeed(undefined)),
            Effect.mapError(failed(name, "stat"))
          )
          if (info === undefined) continue
          const now = yield* Clock.currentTimeMillis
          const young = { record: undefined, mtimeMs: info.mtimeMs }
          if (lockAgeMs(young, now) <= timeoutOf(name)) return busy(name, young, now)
        }
        const existing = yield* readExisting(name, path)
        if (existing === undefined) continue // released between our create and our read: try again
        const now = yield* Clock.currentTimeMillis
        const judgement = judgeLock({ existing, now, timeoutMs: timeoutOf(name), isAlive })
        if (judgement !== "stale") return busy(name, existing, now)
        return yield* recover(name, path, existing)
      }
      return busy(name, undefined, yield* Clock.currentTimeMillis)
    })

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
        Effect.suspend(() => {
          liveTokens.delete(record.token)
          return removeIfOurs(name, path, record.token)
        })
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

  const acquireLoop = (locksDir: string, name: LockName, maxWaitMs: number) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const scope = yield* Effect.scope
        const start = yield* Clock.currentTimeMillis
        for (let i = 0;; i++) {
          const remainingBefore = maxWaitMs - ((yield* Clock.currentTimeMillis) - start)
          const result = yield* attempt(locksDir, name, remainingBefore <= 0)
          if (result._tag === "Created") {
            const lock = yield* hold(scope, name, result)
            return { _tag: "Acquired", lock } as AcquireResult
          }
          const remaining = maxWaitMs - ((yield* Clock.currentTimeMillis) - start)
          if (remaining <= 0) {
            // The last look names the holder.
            const last = remainingBefore <= 0 ? result : yield* attempt(locksDir, name, true)
            if (last._tag === "Busy") return last as AcquireResult
            return { _tag: "Acquired", lock: yield* hold(scope, name, last) } as AcquireResult
          }
          const delay = Math.min(remaining, backoffMs(i, backoff.baseMs, backoff.capMs, Math.random()))
          yield* restore(Effect.sleep(delay))
        }
      })
    )

  const acquire = Effect.fn("LockService.acquire")(function*(locksDir: string, name: LockName) {
    return yield* acquireLoop(locksDir, name, 0)
  })

  const acquireOrWait = Effect.fn("LockService.acquireOrWait")(
    function*(locksDir: string, name: LockName, options: WaitOptions) {
      return yield* acquireLoop(locksDir, name, options.maxWaitMs)
    }
  )

  const withLock = <A, E, R>(
    locksDir: string,
    name: LockName,
    use: (lock: HeldLock) => Effect.Effect<A, E, R>,
    options?: Partial<WaitOptions>
  ): Effect.Effect<LockOutcome<A>, E | LockLost | LockFailed, R> =>
    Effect.scoped(
      Effect.gen(function*() {
        const result = yield* acquireLoop(locksDir, name, options?.maxWaitMs ?? 0)
        if (result._tag === "Busy") return result
        const value = yield* Effect.raceFirst(use(result.lock), result.lock.lost)
        return { _tag: "Done", value } as const
      })
    ).pipe(Effect.withSpan("LockService.withLock", { attributes: { name } }))

  const inspect = Effect.fn("LockService.inspect")(function*(locksDir: string, name: LockName) {
    const existing = yield* readExisting(name, join(locksDir, name))
    if (existing === undefined) return undefined
    const now = yield* Clock.currentTimeMillis
    return {
      name,
      holder: existing.record,
      ageMs: lockAgeMs(existing, now),
      judgement: judgeLock({ existing, now, timeoutMs: timeoutOf(name), isAlive })
    } satisfies LockStatus
  })

  return { acquire, acquireOrWait, withLock, inspect, timeoutOf }
}

export class LockService extends Context.Tag("pm/LockService")<LockService, LockServiceShape>() {
  static readonly layerWith = (config: LockServiceConfig): Layer.Layer<LockService, never, FileSystem> =>
    Layer.effect(LockService, Effect.map(FileSystem, (fs) => makeLockService(fs, config)))
  static readonly layer: Layer.Layer<LockService, never, FileSystem> = LockService.layerWith({})
}
