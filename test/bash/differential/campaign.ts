/**
 * One differential campaign: generate commands from a seed, classify each, run the allowed ones under bash and
 * collect every mismatch. Shared by the suite (bounded) and scripts/fuzz-guard.mjs (long runs).
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { grammarCommand, mutate, rng } from "./generate.ts"
import type { Harness } from "./harness.ts"
import type { Mismatch } from "./oracle.ts"

export interface SeedRow {
  readonly command: string
  readonly class: number
  readonly note: string
  /** The test shows under the sandbox that bash runs something the guard's reading does not show. */
  readonly demo?: boolean
  /** Programs the demonstration needs installed (it runs them for real). */
  readonly needs?: ReadonlyArray<string>
  /** A long input: `command` followed by `text` repeated `times` times. */
  readonly repeat?: { readonly text: string; readonly times: number }
}

const fixture = (name: string): string => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url))

export const seedCommand = (s: SeedRow): string => s.command + (s.repeat === undefined ? "" : s.repeat.text.repeat(s.repeat.times))

export const loadSeeds = (): ReadonlyArray<SeedRow> =>
  readFileSync(fixture("bash-bypass-seeds.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as SeedRow)

/** Mutation sources: the seeds (short ones) and the corpus. */
export const loadMutationSources = (): ReadonlyArray<string> => {
  const corpus = readFileSync(fixture("bash-corpus.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .map((l) => (JSON.parse(l) as { command: string }).command)
  return [...loadSeeds().filter((s) => s.repeat === undefined).map((s) => s.command), ...corpus].filter((c) => c.length < 2000)
}

export interface CampaignOptions {
  readonly seed: number
  /** How many commands to generate (half grammar, half mutation). */
  readonly count: number
  /** Stop generating once this many commands have run under bash. */
  readonly maxExecutions?: number
  readonly onMismatch?: (m: Mismatch, index: number) => void
}

export interface CampaignResult {
  readonly seed: number
  readonly generated: number
  readonly allowed: number
  readonly executed: number
  readonly mismatches: ReadonlyArray<Mismatch & { readonly index: number }>
}

/**
 * Runs a campaign. Asynchronous only to yield before each command: the guard and each run under bash are synchronous,
 * and a vitest worker whose event loop is held for 60 s in one stretch (2,400 commands on a loaded machine) loses its
 * RPC channel to the main process.
 */
export const runCampaign = async (h: Harness, options: CampaignOptions): Promise<CampaignResult> => {
  const r = rng(options.seed)
  const sources = loadMutationSources()
  const mismatches: Array<Mismatch & { readonly index: number }> = []
  const seen = new Set<string>()
  let allowed = 0
  let executed = 0
  let generated = 0
  for (let i = 0; i < options.count; i++) {
    if (options.maxExecutions !== undefined && executed >= options.maxExecutions) break
    const command = i % 2 === 0 ? grammarCommand(r) : mutate(r, r.pick(sources))
    generated++
    if (seen.has(command)) continue
    seen.add(command)
    await new Promise<void>((resolve) => setImmediate(resolve))
    const checked = h.check(command)
    if (checked.verdict.verdict !== "read-only") continue
    allowed++
    executed++
    if (checked.mismatch !== undefined) {
      mismatches.push({ ...checked.mismatch, index: i })
      options.onMismatch?.(checked.mismatch, i)
    }
  }
  return { seed: options.seed, generated, allowed, executed, mismatches }
}
