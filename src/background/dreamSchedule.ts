/**
 * When a dream (the periodic consolidation) is due, and what happens to its attempt time afterwards. Pure: the
 * caller reads the clock, the shared state and the session directory; this module only decides.
 */

export interface DreamThresholds {
  /** Hours since the last attempt before the next one (24 by default). */
  readonly minHours: number
  /** Other sessions of this project updated since the last attempt (5 by default). */
  readonly minSessions: number
  /** The session-directory scan behind that count runs at most this often per process (10 minutes). */
  readonly scanIntervalMs: number
}

export const DEFAULT_DREAM_THRESHOLDS: DreamThresholds = { minHours: 24, minSessions: 5, scanIntervalMs: 10 * 60_000 }

const HOUR_MS = 3_600_000

/** Pi's session id syntax: letters, digits, `.`, `_` and `-`, starting and ending with a letter or digit. */
export const PI_SESSION_ID = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/

/** The first line of a Pi `.jsonl` session file. */
export interface SessionHeader {
  readonly id: string
  /** The working directory the session was started in, when recorded. */
  readonly cwd: string | undefined
}

/** The header of a session file from its first line, or undefined when it is not a Pi session header. */
export const parseSessionHeader = (firstLine: string): SessionHeader | undefined => {
  let value: unknown
  try {
    value = JSON.parse(firstLine)
  } catch {
    return undefined
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
  const record = value as Record<string, unknown>
  if (record["type"] !== "session" || typeof record["id"] !== "string" || !PI_SESSION_ID.test(record["id"])) return undefined
  return { id: record["id"], cwd: typeof record["cwd"] === "string" ? record["cwd"] : undefined }
}

/** When the time condition is met: never dreamed means now. */
export const eligibleAt = (lastDreamAt: number | null, thresholds: DreamThresholds = DEFAULT_DREAM_THRESHOLDS): number =>
  lastDreamAt === null ? Number.NEGATIVE_INFINITY : lastDreamAt + thresholds.minHours * HOUR_MS

/** The cheap check that runs first: enough time since the last attempt. */
export const timeIsDue = (lastDreamAt: number | null, now: number, thresholds: DreamThresholds = DEFAULT_DREAM_THRESHOLDS): boolean =>
  now >= eligibleAt(lastDreamAt, thresholds)

export interface SessionFile {
  readonly id: string
  readonly mtimeMs: number
}

/**
 * The other sessions updated since the last attempt, newest first: the current session is left out, and so is any
 * session not updated after `lastDreamAt` (all count when there was none). One id appears once.
 */
export const recentSessions = (
  files: ReadonlyArray<SessionFile>,
  options: { readonly lastDreamAt: number | null; readonly currentSessionId: string | undefined }
): ReadonlyArray<string> => {
  const newest = new Map<string, number>()
  for (const file of files) {
    if (file.id === options.currentSessionId) continue
    if (options.lastDreamAt !== null && file.mtimeMs <= options.lastDreamAt) continue
    newest.set(file.id, Math.max(newest.get(file.id) ?? Number.NEGATIVE_INFINITY, file.mtimeMs))
  }
  return [...newest.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([id]) => id)
}

export type DreamDecision =
  | { readonly _tag: "Due"; readonly sessions: ReadonlyArray<string> }
  | { readonly _tag: "NotYet"; readonly eligibleAt: number }
  | { readonly _tag: "TooFewSessions"; readonly found: number; readonly needed: number }
  | { readonly _tag: "ScanThrottled"; readonly nextScanAt: number }

/** How a dream task ended, as far as its attempt time is concerned. */
export type DreamTaskEnd =
  /** The task returned: with changes, with none, or with an API error reported as its result. */
  | "returned"
  /** Interrupted (abort, invalidation, shutdown). */
  | "aborted"
  /** Threw while the forked task was running, without being aborted. */
  | "failed-in-fork"
  /** Failed after the task had completed (for example while reporting). */
  | "failed-after-completion"

/** Only a task that threw during the fork step, without being aborted, gives its attempt time back. */
export const rollsBackAttemptTime = (end: DreamTaskEnd): boolean => end === "failed-in-fork"
