/**
 * Background runs as `/memory status` and `pm status` show them: one record per run, a short history of the recent
 * ones per kind (src/background/runHistory.ts keeps it in `background-runs.json`, in the project's folder beside its
 * memory directory), the newest per kind in full. Pure.
 */
import type { UsageTotals } from "../model/usage.ts"
import { HELD_MARK } from "../writes/held.ts"
import type { SandboxMode } from "../safety/sandbox.ts"

export type BackgroundKind = "extract" | "dream"

/**
 * How a run ended. `saved`: it changed memory files; `nothing`: it ran and had nothing to save; `failed`: the model,
 * the provider, the configuration or a change it tried failed (the detail says which); `skipped`: it did not run
 * (the detail says why); `busy`: another session held the lock; `stopped`: interrupted (memory off, reload, exit);
 * `queued`: the session ended first and handed its messages to the project's queue (src/background/queue.ts).
 */
export type RunOutcome = "saved" | "nothing" | "failed" | "skipped" | "busy" | "stopped" | "queued"

export const RUN_OUTCOMES: ReadonlyArray<RunOutcome> = ["saved", "nothing", "failed", "skipped", "busy", "stopped", "queued"]

/** A memory change the task tried and could not make (its last attempt at that file failed). */
export interface UnsavedChange {
  readonly file: string
  readonly reason: string
}

export interface RunRecord {
  readonly kind: BackgroundKind
  /** Epoch ms when the run ended. */
  readonly at: number
  /** `exit`: the hand-off at the session's end; `queue`: a job of the queue, run by a later session or `pm extract`. */
  readonly trigger: "turn" | "trailing" | "manual" | "compaction" | "exit" | "queue"
  readonly outcome: RunOutcome
  /** Why it was skipped or failed, or how the task ended (request kind, turn limit...). */
  readonly detail: string
  readonly filesChanged: ReadonlyArray<string>
  readonly turns: number
  readonly usage: UsageTotals
  /** Changes the task tried and could not make; a run with some that saved nothing is `failed`. */
  readonly unsaved?: ReadonlyArray<UnsavedChange>
  /**
   * How the run's background bash ran, when the run got as far as its tools: inside the OS sandbox, refused for want
   * of one, or behind the guard alone. `pm status` reads it instead of starting the sandbox itself.
   */
  readonly sandbox?: SandboxMode
}

/** The detail of a run that failed only because changes the model asked for could not be made (the files are in `unsaved`). */
export const unsavedDetail = (n: number): string =>
  n === 1 ? "the change the model asked for could not be made" : `the ${n} changes the model asked for could not be made`

/** The files of `unsaved` whose writes were held for the person's review (src/writes/held.ts), not failed. */
export const heldFiles = (unsaved: ReadonlyArray<UnsavedChange>): ReadonlyArray<string> =>
  unsaved.filter((u) => u.reason.includes(HELD_MARK)).map((u) => u.file)

/** The changes of `unsaved` that failed (held ones left out): what makes a run failed. */
export const failedChanges = (unsaved: ReadonlyArray<UnsavedChange>): ReadonlyArray<UnsavedChange> =>
  unsaved.filter((u) => !u.reason.includes(HELD_MARK))

/** The detail of a run whose every change was held for review. */
export const heldDetail = (n: number): string =>
  n === 1 ? "the change the model asked for is held for your review" : `the ${n} changes the model asked for are held for your review`

/** What a person is told when a run held writes for review. */
export const heldNotice = (kind: BackgroundKind, files: ReadonlyArray<string>): string =>
  `Project memory: the ${kind === "extract" ? "extraction" : "dream"} held ${files.join(", ")} for your review instead of saving ` +
  `${files.length === 1 ? "it" : "them"}: the words came from a file or tool output rather than from you, or read as an instruction to do something risky. /memory review shows ${files.length === 1 ? "it" : "them"}.`

/** Whether `detail` says no more than `unsaved` does (also in the words of records written before). */
export const isUnsavedDetail = (detail: string): boolean =>
  /^(\d+ change\(s\) could not be made|the change the model asked for could not be made|the \d+ changes the model asked for could not be made)$/.test(detail)

/** The newest run of each kind. */
export type RunsFile = Partial<Record<BackgroundKind, RunRecord>>

export const RUNS_FILE = "background-runs.json"

const KIND_LABEL: Record<BackgroundKind, string> = { extract: "Extraction", dream: "Dream" }

export const formatUsage = (u: UsageTotals): string =>
  `${u.requests} requests, ${u.input} input / ${u.output} output tokens, cache ${u.cacheRead} read / ${u.cacheWrite} written, $${u.cost.toFixed(4)}`

const files = (n: number) => `${n} file${n === 1 ? "" : "s"}`

/** What happened, in a few words: "saved 2 files (a.md, b.md): fork request", "failed: model error: ...". */
export const formatOutcome = (kind: BackgroundKind, r: RunRecord): string => {
  const unsaved = (r.unsaved ?? []).length === 0
    ? ""
    : `; could not save ${r.unsaved!.map((u) => `${u.file} (${u.reason})`).join(", ")}`
  switch (r.outcome) {
    case "saved":
      return `saved ${files(r.filesChanged.length)} (${r.filesChanged.join(", ")}): ${r.detail}${unsaved}`
    case "nothing":
      return `nothing to save: ${r.detail}${unsaved}`
    case "failed":
      // A failure that is only the changes left unsaved says so once, with each file and why.
      if (unsaved !== "" && r.filesChanged.length === 0 && isUnsavedDetail(r.detail)) return `failed: ${unsaved.slice(2)}`
      return `failed: ${r.detail}${r.filesChanged.length > 0 ? `; saved ${files(r.filesChanged.length)} before that (${r.filesChanged.join(", ")})` : ""}${unsaved}`
    case "busy":
      return `skipped: another session was ${kind === "dream" ? "dreaming" : "extracting"}`
    case "skipped":
    case "stopped":
    case "queued":
      return `${r.outcome}: ${r.detail}`
  }
}

/** One line per run: when, outcome (why skipped / files changed / error), turns, tokens and cost. */
export const formatRun = (kind: BackgroundKind, r: RunRecord | undefined): string => {
  const label = `Last ${KIND_LABEL[kind].toLowerCase()}:`.padEnd(18)
  if (r === undefined) return `${label}never`
  const cost = r.turns > 0 ? `; ${r.turns} turn${r.turns === 1 ? "" : "s"}, ${formatUsage(r.usage)}` : ""
  return `${label}${new Date(r.at).toISOString()} ${r.trigger}: ${formatOutcome(kind, r)}${cost}`
}

/** The runs of the recent-runs list: those not already shown in full (the newest of each kind), oldest first. */
export const earlierRuns = (history: ReadonlyArray<RunRecord>, shown: RunsFile): ReadonlyArray<RunRecord> => {
  const same = (a: RunRecord, b: RunRecord | undefined) =>
    b !== undefined && a.kind === b.kind && a.at === b.at && a.trigger === b.trigger && a.outcome === b.outcome && a.detail === b.detail
  return history.filter((r) => !same(r, shown.extract) && !same(r, shown.dream))
}

/** A line of the recent-runs list: time, kind, trigger, outcome and reason (no usage). */
export const formatHistoryLine = (r: RunRecord): string =>
  `  ${new Date(r.at).toISOString()} ${(r.kind === "extract" ? "extraction" : "dream").padEnd(10)} ${r.trigger.padEnd(10)} ${formatOutcome(r.kind, r)}`
