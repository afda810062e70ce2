/**
 * How a lock is judged: the service's settings resolved from its config (timeouts, heartbeat, back-off, grace) and
 * the judgement of a lock file, by its holder first (on this machine: pid gone or reused means left), then by age.
 * Reads no file itself: it judges what the caller read.
 */
import { hostname } from "node:os"
import { LOCK_TIMEOUTS_MS, LOCK_UNREADABLE_GRACE_MS, type LockName } from "../../src/limits.ts"
import { type ExistingLock, type HolderState, judgeLock, type LockJudgement, type LockRecord } from "../../src/storage/lockFile.ts"
import type { LockServiceConfig } from "./lockInterface.ts"
import { liveTokens, machineOf, pidIsAlive, processStartOf } from "./lockProcess.ts"

/** The config with its defaults filled in, and the judge built over it. */
export interface LockSettings {
  readonly timeoutOf: (name: LockName) => number
  readonly heartbeatOf: (name: LockName) => number
  readonly recoverStaleMs: number
  readonly backoff: { readonly baseMs: number; readonly capMs: number }
  readonly machine: string | undefined
  readonly graceMs: number
  readonly progressMs: number
  readonly host: string
  readonly judge: (existing: ExistingLock, now: number, timeoutMs: number) => LockJudgement
}

export const lockSettingsOf = (config: LockServiceConfig): LockSettings => {
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

  return { timeoutOf, heartbeatOf, recoverStaleMs, backoff, machine, graceMs, progressMs, host, judge }
}
