/**
 * Lock files: what is written inside one, how to read it back, and when a lock someone else holds may be taken
 * over. Pure; the I/O (reading /proc, the clock, the file) lives in layers/storage/LockService.ts.
 */
import * as Schema from "effect/Schema"
/** The JSON inside `locks/<name>` and `locks/<name>.recover`. */
export const LockRecord = Schema.Struct({
  /** A positive integer: `process.kill(0 | negative, 0)` would address process groups. */
  pid: Schema.Int.pipe(Schema.positive()),
  token: Schema.String.pipe(Schema.minLength(1)),
  acquiredAt: Schema.Number,
  /** The holder's host name, for people reading `pm status`. */
  host: Schema.optional(Schema.String),
  /**
   * Which process table the pid belongs to: boot id and PID namespace. Only a holder recorded with the same value as
   * ours can be judged by its pid; anything else (another machine, container, boot, or an older release that wrote no
   * such field) is judged by age first, as before.
   */
  machine: Schema.optional(Schema.String),
  /** The holder's start time as the kernel reports it (/proc/<pid>/stat), so a reused pid is not taken for it. */
  start: Schema.optional(Schema.String),
  /** What holds it, in words: "pm forget", "extraction in a pi session". */
  kind: Schema.optional(Schema.String)
})
export type LockRecord = typeof LockRecord.Type

const decodeRecord = Schema.decodeUnknownOption(Schema.parseJson(LockRecord))

export const encodeLockRecord = (record: LockRecord): string => JSON.stringify(record)

/** Undefined for an empty, half-written or foreign file. */
export const decodeLockRecord = (text: string): LockRecord | undefined => {
  const decoded = decodeRecord(text)
  return decoded._tag === "Some" ? decoded.value : undefined
}

/** What an acquirer found when exclusive creation failed. */
export interface ExistingLock {
  /** Undefined when the file could not be parsed (empty, half-written, garbage). */
  readonly record: LockRecord | undefined
  readonly mtimeMs: number
}

export type LockJudgement =
  /** Held by a live process, or too young to judge: busy. */
  | "fresh"
  /** Older than its timeout but its holder's process still exists: never taken from a live process. */
  | "holder-alive"
  /** Its holder is gone (or the file is unreadable and old enough): may be recovered. */
  | "stale"

/**
 * What is known of the holder's process.
 * - `alive` / `gone`: proven, on this machine (same process table): the pid exists with the recorded start time, or
 *   it does not (no such pid, another start time, or our own pid with a token we do not hold).
 * - `alive-unverified` / `gone-unverified`: only `kill(pid, 0)` could be asked (another machine, an older record):
 *   judged by age first, so a pid that means another process here does not decide alone.
 */
export type HolderState = "alive" | "gone" | "alive-unverified" | "gone-unverified"

export interface JudgeInput {
  readonly existing: ExistingLock
  readonly now: number
  readonly timeoutMs: number
  /** How long an unparseable (empty, half-written, garbage) file is left to its writer before it counts as stale. */
  readonly unreadableGraceMs: number
  /** The holder's state. Not consulted for unreadable files. */
  readonly holder: (record: LockRecord) => HolderState
}

/** How long a file has gone without a heartbeat. A time in the future (a clock running ahead) counts as now. */
export const lockAgeMs = (existing: ExistingLock, now: number): number => Math.max(0, now - existing.mtimeMs)

/** How long the holder has held it, from its own record; a time in the future counts as now. */
export const heldForMs = (existing: ExistingLock, now: number): number =>
  existing.record === undefined ? lockAgeMs(existing, now) : Math.max(0, now - existing.record.acquiredAt)

/** The holder first, then the age: a dead holder on this machine frees its lock at once, whatever its timeout. */
export const judgeLock = ({ existing, holder, now, timeoutMs, unreadableGraceMs }: JudgeInput): LockJudgement => {
  const age = lockAgeMs(existing, now)
  if (existing.record === undefined) return age <= unreadableGraceMs ? "fresh" : "stale"
  const state = holder(existing.record)
  if (state === "gone") return "stale"
  if (age <= timeoutMs) return "fresh"
  return state === "alive" || state === "alive-unverified" ? "holder-alive" : "stale"
}

/** The start time field (22nd) of a /proc/<pid>/stat line; the command name may hold spaces and parentheses. */
export const startTimeOfStat = (stat: string): string | undefined => {
  const close = stat.lastIndexOf(")")
  if (close < 0) return undefined
  const fields = stat.slice(close + 1).trim().split(/\s+/)
  const start = fields[19]
  return start !== undefined && /^\d+$/.test(start) ? start : undefined
}

/** "pm forget, pid 4242 on build-7, for 12 s": who holds a lock, for messages a person reads. */
export const describeHolder = (existing: ExistingLock | undefined, now: number): string => {
  if (existing === undefined) return "another process"
  const r = existing.record
  const secs = `for ${Math.round(heldForMs(existing, now) / 1000)} s`
  if (r === undefined) return `an unreadable lock file (last touched ${Math.round(lockAgeMs(existing, now) / 1000)} s ago)`
  return `${r.kind ?? "a process"}, pid ${r.pid}${r.host === undefined ? "" : ` on ${r.host}`}, ${secs}`
}

/**
 * The recoverer, after winning `.recover`, re-reads the lock: it proceeds only if the file is still the one it judged
 * stale. A parsed file is identified by its token, an unreadable one by its mtime.
 */
export const sameLock = (judged: ExistingLock, now: ExistingLock): boolean =>
  judged.record !== undefined && now.record !== undefined
    ? judged.record.token === now.record.token
    : judged.record === undefined && now.record === undefined && judged.mtimeMs === now.mtimeMs

/** Bounded exponential back-off with full jitter, for waiting on a busy lock. */
export const backoffMs = (attempt: number, baseMs: number, capMs: number, random: number): number =>
  Math.max(1, Math.round(Math.min(capMs, baseMs * 2 ** Math.min(attempt, 16)) * random))
