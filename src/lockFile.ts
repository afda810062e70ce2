/**
 * Lock files: what is written inside one, how to read it back, and when a lock someone else holds may be taken
 * over. Pure; the I/O lives in layers/LockService.ts.
 */
import * as Schema from "effect/Schema"
/** The JSON inside `locks/<name>` and `locks/<name>.recover`. */
export const LockRecord = Schema.Struct({
  /** A positive integer: `process.kill(0 | negative, 0)` would address process groups. */
  pid: Schema.Int.pipe(Schema.positive()),
  token: Schema.String.pipe(Schema.minLength(1)),
  acquiredAt: Schema.Number
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
  /** Younger than its timeout: its holder is presumed to be working (heartbeats keep it young). */
  | "fresh"
  /** Older than its timeout but its holder's process still exists: never taken from a live process. */
  | "holder-alive"
  /** Older than its timeout and the holder is gone (or the file is unreadable): may be recovered. */
  | "stale"

export interface JudgeInput {
  readonly existing: ExistingLock
  readonly now: number
  readonly timeoutMs: number
  /** Whether the recorded PID names a live process. Not consulted for fresh or unreadable files. */
  readonly isAlive: (record: LockRecord) => boolean
}

export const lockAgeMs = (existing: ExistingLock, now: number): number => Math.max(0, now - existing.mtimeMs)

export const judgeLock = ({ existing, isAlive, now, timeoutMs }: JudgeInput): LockJudgement => {
  if (lockAgeMs(existing, now) <= timeoutMs) return "fresh"
  if (existing.record === undefined) return "stale"
  return isAlive(existing.record) ? "holder-alive" : "stale"
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
