/** Formatting of the background agents' state for `/memory status` and `/memory extract`. */
import type { BackgroundStatus } from "../layers/background/BackgroundSession.ts"
import { formatRun, formatUsage, type RunRecord } from "../layers/background/BackgroundSession.ts"

export const backgroundStatusLines = (s: BackgroundStatus): ReadonlyArray<string> => [
  `Background:       ${s.running ? "extracting now" : "idle"}; session usage ${formatUsage(s.totals)}`,
  formatRun("extract", s.runs.extract),
  // The dream's attempt time is on its own line already; its run details join once it has run.
  ...(s.runs.dream === undefined ? [] : [formatRun("dream", s.runs.dream)])
]

export const extractReport = (r: RunRecord): string => `Memory extraction: ${formatRun("extract", r).replace(/^Last extraction:\s*/, "")}`
