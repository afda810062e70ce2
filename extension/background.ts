/** Formatting of the background agents' state for `/memory status`, `/memory extract` and `/memory dream`. */
import type { BackgroundStatus } from "../layers/background/BackgroundSession.ts"
import { formatRun, formatUsage, type RunRecord } from "../layers/background/BackgroundSession.ts"
import { earlierRuns, formatHistoryLine } from "../src/background/runs.ts"
import { nextDreamText } from "../src/session/nextDream.ts"

/** When the next dream may run: the time condition, then the session count. */
export const nextDreamLine = (d: NonNullable<BackgroundStatus["dream"]>, now: number): string =>
  `Next dream:       ${nextDreamText(d.eligibleAt, now, d.minSessions)}`

/** The project's queue: how many extractions wait and since when, and records set aside. */
export const queueLine = (q: NonNullable<BackgroundStatus["queue"]>, now: number): string =>
  `Queued:           ${
    q.count === 0
      ? "no extraction waits"
      : `${q.count} extraction${q.count === 1 ? "" : "s"} handed over by ended sessions, the oldest for ${waitedFor(q.oldestAt!, now)}; the next interactive session of this project runs them, pm extract now`
  }${q.damaged === 0 ? "" : `; ${q.damaged} unreadable record${q.damaged === 1 ? " was" : "s were"} set aside in the queue's damaged/ folder`}`

const waitedFor = (at: number, now: number): string => {
  const minutes = Math.max(0, Math.round((now - at) / 60_000))
  return minutes < 120 ? `${minutes} min` : minutes < 2880 ? `${Math.round(minutes / 60)} h` : `${Math.round(minutes / 1440)} days`
}

export const backgroundStatusLines = (s: BackgroundStatus, now: number = Date.now()): ReadonlyArray<string> => {
  // Each run once: the newest of each kind in full above, the ones before it in the list.
  const earlier = earlierRuns(s.history, s.runs)
  return [
    `Background:       ${[s.running ? "extracting now" : undefined, s.dreaming === true ? "dreaming now" : undefined].filter((x) => x !== undefined).join(", ") || "idle"}; session usage ${formatUsage(s.totals)}`,
    formatRun("extract", s.runs.extract),
    // The attempt time has its own "Last dream" line above; the run's details join once a dream has run here.
    ...(s.runs.dream === undefined ? [] : [formatRun("dream", s.runs.dream).replace(/^Last dream:\s*/, "Dream run:        ")]),
    ...(s.dream === undefined ? [] : [nextDreamLine(s.dream, now)]),
    ...(earlier.length === 0 ? [] : ["Earlier background runs (newest first):", ...[...earlier].reverse().map(formatHistoryLine)])
  ]
}

export const extractReport = (r: RunRecord): string => `Memory extraction: ${formatRun("extract", r).replace(/^Last extraction:\s*/, "")}`

export const dreamReport = (r: RunRecord): string => `Memory dream: ${formatRun("dream", r).replace(/^Last dream:\s*/, "")}`
