/**
 * LockService: named cross-process leases under `memory-roots/<hash>/locks/`.
 *
 * A lock is a file published exclusively (a complete temp file hard-linked to its name, so it is never seen empty)
 * holding `{ pid, token, acquiredAt, host, machine, start, kind }`. Holding it is a scoped resource:
 * the file is removed when the scope closes, whatever the exit. While held, a heartbeat fiber refreshes the file's
 * mtime and watches the token; if the file disappears or carries another token the lock is lost, and `withLock`
 * interrupts the work running under it. A read that fails for another reason is retried with back-off for as long
 * as no peer could judge the file stale (one timeout since the token was last seen). A busy lock is a typed result, never an error, so callers pick skip or wait.
 *
 * A lock is judged by its holder first: on this machine (same boot and PID namespace) a holder whose pid is gone or
 * now names a process with another start time has left, and its lock is taken over at once, whatever its age. A
 * holder that cannot be checked that way is judged by age first, as before: older than the timeout AND its pid
 * gone. An unparseable file is stale once a few seconds old. Takeover happens only through the `<name>.recover`
 * arbitration file, so two recoverers cannot both win. See docs/concurrency.md.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import { readFileSync, readlinkSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { LOCK_FUTURE_TOLERANCE_MS, LOCK_TIMEOUTS_MS, LOCK_UNREADABLE_GRACE_MS, type LockName } from "../../src/limits.ts"
import {
  backoffMs,
  decodeLockRecord,
  describeHolder,
  encodeLockRecord,
  type ExistingLock,
  heldForMs,
  type HolderState,
  judgeLock,
  type LockJudgement,
  lockAgeMs,
  type LockRecord,
  sameLock,
  startTimeOfStat
} from "../../src/storage/lockFile.ts"
import { FileSystem } from "./FileSystem.ts"
import { FsReason, fsReasonText } from "./FsError.ts"
import { type FileSystemShape } from "./fileSystemShape.ts"

/** The lock's file could not be created or read for a reason other than "someone holds it". */
export class LockFailed extends Data.TaggedError("LockFailed")<{
  readonly name: string
  readonly op: string
  readonly reason: FsReason
  readonly detail: string
}> {
  override get message(): string {
    return `lock ${this.name}: ${this.op} failed: ${fsReasonText(this.reason, this.detail)}`
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
  /** Since the file's last heartbeat. */
  readonly ageMs: number
  /** Who holds it, for a person: "pm forget, pid 4242 on host, for 12 s". */
  readonly description: string
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
  /** The file's name in the locks directory: a known lock, a `.recover` arbitration file, or another. */
  readonly name: string
  readonly holder: LockRecord | undefined
  /** Since the last heartbeat (the file's mtime). */
  readonly ageMs: number
  /** Since the holder took it (its record), or the file's age when unreadable. */
  readonly heldForMs: number
  readonly judgement: LockJudgement
  /** The holder as `describeHolder` words it. */
  readonly description: string
}

export interface WaitOptions {
  /** Give up (returning Busy) after this long. */
  readonly maxWaitMs: number
  /** Recorded in the lock as what holds it; default: this process's kind (`setLockHolderKind`). */
  readonly kind?: string
  /** Called while waiting, about every `progressMs` (config), with the current holder: for progress on stderr. */
  readonly onWaiting?: (busy: Busy, waitedMs: number) => Effect.Effect<void>
}

export interface LockServiceShape {
  /** One attempt. Scoped: an acquired lock is released when the scope closes. */
  readonly acquire: (
    locksDir: string,
    name: LockName,
    options?: { readonly kind?: string }
  ) => Effect.Effect<AcquireResult, LockFailed, Scope.Scope>
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
  /** Every file in the locks directory (known locks, `.recover` files, any other), judged; [] when there is none. */
  readonly inspectAll: (locksDir: string) => Effect.Effect<ReadonlyArray<LockStatus>, LockFailed>
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
  /** A process's start time (Linux: /proc/<pid>/stat field 22); undefined when unknown. */
  readonly processStart?: (pid: number) => string | undefined
  /** This process table's identity (boot id and PID namespace); undefined where it cannot be read. */
  readonly machine?: string | undefined
  /** An unparseable lock file older than this is stale. Default LOCK_UNREADABLE_GRACE_MS. */
  readonly unreadableGraceMs?: number
  /** How often `onWaiting` is called while waiting. Default 2 s. */
  readonly progressMs?: number
}

export const pidIsAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Linux: the start time of `pid` in clock ticks since boot; undefined elsewhere or when it cannot be read. */
export const processStartOf = (pid: number): string | undefined => {
  try {
    return startTimeOfStat(readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return undefined
  }
}

/** Linux: boot id and PID namespace, which together say whether a recorded pid is one of ours to check. */
const readMachine = (): string | undefined => {
  try {
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()
    const ns = readlinkSync("/proc/self/ns/pid")
    return boot === "" ? undefined : `${boot}/${ns}`
  } catch {
    return undefined
  }
}
let ourMachine: string | undefined | null = null
export const machineOf = (): string | undefined => {
  if (ourMachine === null) ourMachine = readMachine()
  return ourMachine
}
let ourStart: string | undefined | null = null
const ourStartTime = (): string | undefined => {
  if (ourStart === null) ourStart = processStartOf(process.pid)
  return ourStart
}

/** `pm forget` when this process is the pm CLI (its script is pm, pm.js...), else "a pm process" until set. */
const defaultKind = (): string => {
  const script = (process.argv[1] ?? "").split(/[\\/]/).pop() ?? ""
  if (!/^pm(\.[cm]?[jt]s)?$/.test(script)) return "a pm process"
  const command = process.argv.slice(2).find((a) => /^[a-z][a-z-]*$/.test(a))
  return command === undefined ? "pm" : `pm ${command}`
}
let holderKind = defaultKind()
/** What this process is, recorded in every lock it takes unless the caller names a kind ("pm forget", "a pi session"). */
export const setLockHolderKind = (kind: string): void => {
  holderKind = kind
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
  const startOf = config.processStart ?? processStartOf
  const machine = "machine" in config ? config.machine : machineOf()
  const graceMs = config.unreadableGraceMs ?? LOCK_UNREADABLE_GRACE_MS
  const progressMs = config.progressMs ?? 2_000
  const host = hostname()

  const holderState = (record: LockRecord): HolderState => {
    const checkable = machine !== undefined && record.machine === machine
    if (record.pid === process.pid && (checkable || record.machine === undefined)) {
      // Our own pid: alive only as the holder of a token we hold now; otherwise an earlier process had our pid.
      const ours = liveTokens.has(record.token)
      return checkable ? (ours ? "alive" : "gone") : ours ? "alive-unverified" : "gone-unverified"
    }
    if (!checkable) return pidAlive(record.pid) ? "alive-unverified" : "gone-unverified"
    if (!pidAlive(record.pid)) return "gone"
    if (record.start === undefined) return "alive-unverified"
    const start = startOf(record.pid)
    if (start === undefined) return "alive-unverified"
    return start === record.start ? "alive" : "gone"
  }
  const judge = (existing: ExistingLock, now: number, timeoutMs: number): LockJudgement =>
    judgeLock({ existing, now, timeoutMs, unreadableGraceMs: graceMs, holder: holderState })

  const failed = (name: string, op: string) => (e: { reason: FsReason; detail: string }) =>
    new LockFailed({ name, op, reason: e.reason, detail: e.detail })

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

  type Attempt = { readonly _tag: "Created"; readonly record: LockRecord; readonly path: string } | Busy

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
      const won = yield* createExclusive(name, recoverPath, encodeLockRecord(arbiter))
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
        const created = yield* createExclusive(name, path, encodeLockRecord(record))
        if (created) return { _tag: "Created", record, path } as const
        return busy(name, yield* readExisting(name, path), yield* Clock.currentTimeMillis)
      }).pipe(Effect.ensuring(removeIfOurs(name, recoverPath, arbiter.token)))
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
        if (yield* createExclusive(name, path, encodeLockRecord(record))) {
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

  const acquireLoop = (
    locksDir: string,
    name: LockName,
    maxWaitMs: number,
    options: { readonly kind?: string; readonly onWaiting?: WaitOptions["onWaiting"] } = {}
  ) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const scope = yield* Effect.scope
        const kind = options.kind ?? holderKind
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

  const acquire = Effect.fn("LockService.acquire")(function*(locksDir: string, name: LockName, options?: { readonly kind?: string }) {
    return yield* acquireLoop(locksDir, name, 0, options)
  })

  const acquireOrWait = Effect.fn("LockService.acquireOrWait")(
    function*(locksDir: string, name: LockName, options: WaitOptions) {
      return yield* acquireLoop(locksDir, name, options.maxWaitMs, options)
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
        const result = yield* acquireLoop(locksDir, name, options?.maxWaitMs ?? 0, options)
        if (result._tag === "Busy") return result
        // `use` runs as a fiber this one waits for, and interrupts (waiting for its end) when it is interrupted
        // itself or the lock is lost: the lock is released only once `use` has really ended, finalizers included.
        const work = yield* Effect.fork(use(result.lock))
        let lost: LockLost | undefined
        yield* Effect.forkScoped(result.lock.lost.pipe(
          Effect.catchAll((e) => Effect.sync(() => void (lost = e)).pipe(Effect.zipRight(Fiber.interrupt(work))))
        ))
        const exit = yield* Fiber.await(work).pipe(Effect.onInterrupt(() => Fiber.interrupt(work)))
        if (lost !== undefined && Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)) return yield* Effect.fail(lost)
        const value = yield* exit
        return { _tag: "Done", value } as const
      })
    ).pipe(Effect.withSpan("LockService.withLock", { attributes: { name } }))

  /** The timeout a file in the locks directory is judged by: its lock's, the arbitration one, or the longest. */
  const timeoutOfFile = (file: string): number =>
    file.endsWith(RECOVER_SUFFIX)
      ? recoverStaleMs
      : file in LOCK_TIMEOUTS_MS
      ? timeoutOf(file as LockName)
      : Math.max(...Object.keys(LOCK_TIMEOUTS_MS).map((n) => timeoutOf(n as LockName)))

  /** Looks only: a future mtime is reported as now, never rewritten. */
  const statusOf = (locksDir: string, file: string): Effect.Effect<LockStatus | undefined, LockFailed> =>
    Effect.gen(function*() {
      const found = yield* readExisting(file, join(locksDir, file))
      if (found === undefined) return undefined
      const now = yield* Clock.currentTimeMillis
      const existing = { ...found, mtimeMs: Math.min(found.mtimeMs, now) }
      return {
        name: file,
        holder: existing.record,
        ageMs: lockAgeMs(existing, now),
        heldForMs: heldForMs(existing, now),
        judgement: judge(existing, now, timeoutOfFile(file)),
        description: describeHolder(existing, now)
      } satisfies LockStatus
    })

  const inspect = Effect.fn("LockService.inspect")(function*(locksDir: string, name: LockName) {
    return yield* statusOf(locksDir, name)
  })

  const inspectAll = Effect.fn("LockService.inspectAll")(function*(locksDir: string) {
    const entries = yield* fs.readDirectory(locksDir).pipe(
      Effect.catchIf((e) => e.reason === "NotFound", () => Effect.succeed([])),
      Effect.mapError(failed("locks", "list"))
    )
    // Temp files of a create in progress (or of one killed mid-create) are not locks.
    const files = entries.filter((e) => !e.name.endsWith(".tmp")).map((e) => e.name).sort()
    const statuses = yield* Effect.forEach(files, (file) => statusOf(locksDir, file))
    return statuses.filter((s): s is LockStatus => s !== undefined)
  })

  return { acquire, acquireOrWait, withLock, inspect, inspectAll, timeoutOf }
}

export class LockService extends Context.Tag("pm/LockService")<LockService, LockServiceShape>() {
  static readonly layerWith = (config: LockServiceConfig): Layer.Layer<LockService, never, FileSystem> =>
    Layer.effect(LockService, Effect.map(FileSystem, (fs) => makeLockService(fs, config)))
  static readonly layer: Layer.Layer<LockService, never, FileSystem> = LockService.layerWith({})
}
