/**
 * What `pm eval` prints: the figures of each part as JSON for machines (`--json`: `recall_at_5`, `precision_at_5`,
 * `abstention`, `coverage`, `forbidden_saves`, `poisoning_resistance`, with the usage) and as a short table for
 * people. Cost is null when Pi's model table holds no price for the model. Pure.
 */
import type { UsageTotals } from "../model/usage.ts"
import type { CaseVerdict, ExtractScores, RecallResult, RecallScores } from "./scores.ts"

export interface UsageFigures {
  readonly requests: number
  readonly input_tokens: number
  readonly output_tokens: number
  readonly cache_read_tokens: number
  readonly cache_write_tokens: number
  /** In the currency of Pi's model table (US dollars); null when the table has no price for the model. */
  readonly cost: number | null
}

export const usageFigures = (u: UsageTotals, priced: boolean): UsageFigures => ({
  requests: u.requests,
  input_tokens: u.input,
  output_tokens: u.output,
  cache_read_tokens: u.cacheRead,
  cache_write_tokens: u.cacheWrite,
  cost: priced ? u.cost : null
})

export interface RecallFolderFigures {
  readonly folder: string
  readonly topics: number
  readonly scores: RecallScores
  readonly results: ReadonlyArray<RecallResult>
}

export const recallJson = (model: string, folders: ReadonlyArray<RecallFolderFigures>, all: RecallScores, usage: UsageFigures) => ({
  model,
  recall_at_5: all.recall_at_5,
  precision_at_5: all.precision_at_5,
  abstention: all.abstention,
  prompts: all.prompts,
  failures: all.failures,
  folders: folders.map((f) => ({
    folder: f.folder,
    topics: f.topics,
    recall_at_5: f.scores.recall_at_5,
    precision_at_5: f.scores.precision_at_5,
    abstention: f.scores.abstention,
    prompts: f.scores.prompts,
    failures: f.scores.failures,
    results: f.results.map((r) => ({ prompt: r.prompt, expect: r.expect, selected: r.selected, ...(r.failure === undefined ? {} : { failure: r.failure }) }))
  })),
  usage
})

export const extractJson = (model: string, s: ExtractScores, usage: UsageFigures) => ({
  model,
  coverage: s.coverage,
  forbidden_saves: s.forbiddenSaved,
  poisoning_resistance: s.poisoning_resistance,
  cases: s.cases,
  expected: s.expected,
  covered: s.covered,
  forbidden: s.forbidden,
  planted: s.planted,
  planted_saved: s.plantedSaved,
  saved_files: s.savedFiles,
  failures: s.failures,
  verdicts: s.verdicts.map((v: CaseVerdict) => ({
    case: v.id,
    covered: v.covered,
    missed: v.missed,
    forbidden_saved: v.forbiddenSaved,
    saved_files: v.savedFiles,
    ...(v.failure === undefined ? {} : { failure: v.failure })
  })),
  usage
})

/** A share as "0.85 (17/20)", or "—" when there was nothing to count. */
export const shareText = (value: number | null, n: number, d: number): string => (value === null ? "—" : `${value.toFixed(2)} (${n}/${d})`)

export const usageLine = (u: UsageFigures): string =>
  `${u.requests} request${u.requests === 1 ? "" : "s"}, ${u.input_tokens} input and ${u.output_tokens} output tokens` +
  (u.cache_read_tokens > 0 ? ` (${u.cache_read_tokens} read from cache)` : "") +
  (u.cost === null ? "; cost not known (Pi's model table has no price for this model)." : `; cost $${u.cost.toFixed(4)}.`)

const abstained = (s: RecallScores): number => Math.round((s.abstention ?? 0) * s.noMemoryPrompts)

/** The recall table's rows: one per folder, then all folders together. */
export const recallRows = (folders: ReadonlyArray<RecallFolderFigures>, all: RecallScores): ReadonlyArray<ReadonlyArray<string>> =>
  [...folders.map((f) => ({ name: f.folder, s: f.scores })), ...(folders.length > 1 ? [{ name: "all", s: all }] : [])].map(({ name, s }) => [
    name,
    String(s.prompts),
    shareText(s.recall_at_5, s.hits, s.expected),
    shareText(s.precision_at_5, s.hits, s.returned),
    shareText(s.abstention, abstained(s), s.noMemoryPrompts),
    String(s.failures)
  ])

export const RECALL_HEADER = ["folder", "prompts", "recall@5", "precision@5", "abstention", "failed"] as const

/** The extraction part in a few lines. */
export const extractLines = (s: ExtractScores): ReadonlyArray<string> => [
  `Conversations: ${s.cases}; memories saved: ${s.savedFiles}${s.failures > 0 ? `; extractions that did not finish: ${s.failures}` : ""}.`,
  `Coverage: ${shareText(s.coverage, s.covered, s.expected)} of the expected memories were saved.`,
  `Forbidden saves: ${s.forbiddenSaved} of ${s.forbidden} texts that must not be saved (secrets, the current task, what the repository says, planted instructions) were.`,
  `Poisoning resistance: ${shareText(s.poisoning_resistance, s.planted - s.plantedSaved, s.planted)} of the instructions planted in tool output or files were kept out of memory.`,
  ...s.verdicts.flatMap((v) => [
    ...v.missed.map((m) => `- ${v.id}: missed "${m}"`),
    ...v.forbiddenSaved.map((f) => `- ${v.id}: saved ${f.kind} text "${f.text}"`),
    ...(v.failure === undefined ? [] : [`- ${v.id}: ${v.failure}`])
  ])
]
