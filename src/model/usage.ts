/**
 * Model usage added up over requests: the per-process totals of the model registry, one background run's usage and a
 * session's background totals all count the same way. Every request counts once, with or without a usage report (a
 * missing report adds nothing else). Pure.
 */

/** The part of a provider's usage report that is added up (pi-ai's `Usage` fits). */
export interface UsageReport {
  readonly input?: number
  readonly output?: number
  readonly cacheRead?: number
  readonly cacheWrite?: number
  readonly cost?: { readonly total?: number }
}

export interface UsageTotals {
  readonly requests: number
  readonly input: number
  readonly output: number
  readonly cacheRead: number
  readonly cacheWrite: number
  readonly cost: number
}

export const zeroUsage: UsageTotals = { requests: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 }

/** One more request, with its usage when the provider reported one. */
export const addUsage = (t: UsageTotals, u: UsageReport | undefined): UsageTotals => ({
  requests: t.requests + 1,
  input: t.input + (u?.input ?? 0),
  output: t.output + (u?.output ?? 0),
  cacheRead: t.cacheRead + (u?.cacheRead ?? 0),
  cacheWrite: t.cacheWrite + (u?.cacheWrite ?? 0),
  cost: t.cost + (u?.cost?.total ?? 0)
})
