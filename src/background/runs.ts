/**
 * The record of a background task's last run, per kind, as `/memory status` and `pm status` show it. Kept in
 * `background-runs.json` in the project's folder beside its memory directory. Pure.
 */
export type BackgroundKind = "extract" | "dream"

export interface RunUsage {
  readonly requests: number
  readonly input: number
  readonly output: number
  readonly cacheRead: number
  readonly cacheWrite: number
  readonly cost: number
}

export const zeroRunUsage: RunUsage = { requests: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 }

export interface RunRecord {
  readonly kind: BackgroundKind
  /** Epoch ms when the run ended. */
  readonly at: number
  readonly trigger: "turn" | "trailing" | "manual" | "compaction"
  readonly outcome: "skipped" | "busy" | "ran" | "failed" | "stopped"
  /** Why it was skipped, how the task stopped, or the error. */
  readonly detail: string
  readonly filesChanged: ReadonlyArray<string>
  readonly turns: number
  readonly usage: RunUsage
}

export type RunsFile = Partial<Record<BackgroundKind, RunRecord>>

export const RUNS_FILE = "background-runs.json"

export const addRunUsage = (
  t: RunUsage,
  u: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; cost?: { total?: number } } | undefined
): RunUsage => ({
  requests: t.requests + 1,
  input: t.input + (u?.input ?? 0),
  output: t.output + (u?.output ?? 0),
  cacheRead: t.cacheRead + (u?.cacheRead ?? 0),
  cacheWrite: t.cacheWrite + (u?.cacheWrite ?? 0),
  cost: t.cost + (u?.cost?.total ?? 0)
})

export const parseRunsFile = (text: string): RunsFile => {
  try {
    const json = JSON.parse(text) as unknown
    if (typeof json !== "object" || json === null) return {}
    const out: Record<string, RunRecord> = {}
    for (const kind of ["extract", "dream"] as const) {
      const r = (json as Record<string, unknown>)[kind] as RunRecord | undefined
      if (r !== undefined && typeof r === "object" && typeof r.at === "number" && typeof r.outcome === "string") out[kind] = r
    }
    return out
  } catch {
    return {}
  }
}

const KIND_LABEL: Record<BackgroundKind, string> = { extract: "Extraction", dream: "Dream" }

export const formatUsage = (u: RunUsage): string =>
  `${u.requests} requests, ${u.input} input / ${u.output} output tokens, cache ${u.cacheRead} read / ${u.cacheWrite} written, $${u.cost.toFixed(4)}`

/** One line per run: when, outcome (why skipped / files changed / error), turns, tokens and cost. */
export const formatRun = (kind: BackgroundKind, r: RunRecord | undefined): string => {
  const label = `Last ${KIND_LABEL[kind].toLowerCase()}:`.padEnd(18)
  if (r === undefined) return `${label}never`
  const what = r.outcome === "skipped"
    ? `skipped (${r.detail})`
    : r.outcome === "busy"
    ? kind === "dream" ? "skipped (another session was dreaming)" : `not run yet: ${r.detail}`
    : r.outcome === "ran"
    ? `${r.filesChanged.length === 0 ? "no files changed" : `changed ${r.filesChanged.join(", ")}`} (${r.detail})`
    : `${r.outcome === "stopped" ? "stopped" : "failed"}: ${r.detail}`
  const cost = r.turns > 0 ? `; ${r.turns} turn${r.turns === 1 ? "" : "s"}, ${formatUsage(r.usage)}` : ""
  return `${label}${new Date(r.at).toISOString()} ${r.trigger}: ${what}${cost}`
}
