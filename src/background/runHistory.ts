/**
 * The recent background runs of a project: the last RUN_HISTORY_PER_KIND of each kind, oldest first, as kept in
 * `background-runs.json` (`{ "version": 2, "runs": [...] }`). A file of the first format (one record per kind,
 * `{ "extract": {...}, "dream": {...} }`) is read as a history of those records, its "ran" outcomes as saved,
 * nothing or failed. Pure; the file is written by the background session (a unique temporary name, then a rename).
 */
import { type BackgroundKind, RUN_OUTCOMES, type RunOutcome, type RunRecord, type RunsFile } from "./runs.ts"

export const RUN_HISTORY_PER_KIND = 10
export const RUN_HISTORY_VERSION = 2

export type RunHistory = ReadonlyArray<RunRecord>

const KINDS: ReadonlyArray<BackgroundKind> = ["extract", "dream"]

const isRecord = (r: unknown): r is RunRecord => {
  if (typeof r !== "object" || r === null) return false
  const x = r as Record<string, unknown>
  return KINDS.includes(x["kind"] as BackgroundKind) && typeof x["at"] === "number" && typeof x["outcome"] === "string" &&
    typeof x["detail"] === "string" && Array.isArray(x["filesChanged"])
}

/** A record of the first format: "ran" said nothing of success; an error answer was its detail. */
const migrated = (r: RunRecord): RunRecord => {
  const outcome = r.outcome as string
  if ((RUN_OUTCOMES as ReadonlyArray<string>).includes(outcome)) return r
  if (outcome === "ran") {
    const next: RunOutcome = r.detail.startsWith("model error:") ? "failed" : r.filesChanged.length > 0 ? "saved" : "nothing"
    return { ...r, outcome: next }
  }
  return { ...r, outcome: "failed", detail: r.detail === "" ? `unknown outcome "${outcome}"` : r.detail }
}

/** Oldest first, at most RUN_HISTORY_PER_KIND per kind. */
const trimmed = (runs: ReadonlyArray<RunRecord>): RunHistory => {
  const kept: Array<RunRecord> = []
  const seen: Record<BackgroundKind, number> = { extract: 0, dream: 0 }
  for (const r of [...runs].sort((a, b) => a.at - b.at).reverse()) {
    if (seen[r.kind]++ < RUN_HISTORY_PER_KIND) kept.push(r)
  }
  return kept.reverse()
}

export const parseRunHistory = (text: string): RunHistory => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return []
  }
  if (typeof json !== "object" || json === null) return []
  const o = json as Record<string, unknown>
  const runs = Array.isArray(o["runs"]) ? o["runs"] : KINDS.map((k) => o[k])
  return trimmed(runs.filter(isRecord).map(migrated))
}

export const addRun = (history: RunHistory, record: RunRecord): RunHistory => trimmed([...history, record])

/** Two histories of the same file (another session wrote between our reads): every record once. */
export const mergeRunHistories = (a: RunHistory, b: RunHistory): RunHistory => {
  const key = (r: RunRecord) => `${r.kind}|${r.at}|${r.trigger}|${r.outcome}|${r.detail}`
  const seen = new Set<string>()
  return trimmed([...a, ...b].filter((r) => (seen.has(key(r)) ? false : (seen.add(key(r)), true))))
}

export const serializeRunHistory = (history: RunHistory): string =>
  `${JSON.stringify({ version: RUN_HISTORY_VERSION, runs: history }, null, 2)}\n`

/** The newest run of each kind. */
export const latestRuns = (history: RunHistory): RunsFile => {
  const out: { -readonly [K in BackgroundKind]?: RunRecord } = {}
  for (const r of history) if (out[r.kind] === undefined || out[r.kind]!.at <= r.at) out[r.kind] = r
  return out
}
