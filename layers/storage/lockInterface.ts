/**
 * The LockService's interface: the two errors, what a caller gets back (a held lock, Busy, a status) and the
 * options. Types and errors only; the Tag is in LockService.ts, the implementation in its lock*.ts siblings.
 */
import type * as Effect from "effect/Effect"
import * as Data from "effect/Data"
import type * as Scope from "effect/Scope"
import type { LockName } from "../../src/limits.ts"
import type { LockJudgement, LockRecord } from "../../src/storage/lockFile.ts"
import { type FsError, type FsReason, fsReasonText } from "./FsError.ts"

/** The lock's file could not be created or read for a reason other than "someone holds it". */
export class LockFailed extends Data.TaggedError("LockFailed")<{
  readonly name: string
  readonly op: string
  readonly cause: FsError
}> {
  /** The file system's reason, for callers that sort failures by it. */
  get reason(): FsReason {
    return this.cause.reason
  }
  override get message(): string {
    return `lock ${this.name}: ${this.op} failed: ${fsReasonText(this.cause.reason, this.cause.detail)}`
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
