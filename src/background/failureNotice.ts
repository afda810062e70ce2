/**
 * When a background failure is told to the person: once when a kind of task starts failing, not again for every
 * turn while the failure persists, and once when it works again. Pure: the background session keeps the state per
 * kind and hands each finished run's record here.
 *
 * A run counts as failing when its outcome is `failed` or it left changes it could not make; as working when it
 * saved something or had nothing to save, with nothing left unsaved. Skips, busy locks and interruptions change
 * nothing.
 */
import type { BackgroundKind, RunRecord } from "./runs.ts"

export type FailureState =
  | { readonly _tag: "Working" }
  /** Failing since `since` (epoch ms), over `runs` runs; its start was told. */
  | { readonly _tag: "Failing"; readonly since: number; readonly runs: number }

export const working: FailureState = { _tag: "Working" }

export interface Notice {
  readonly level: "warning" | "info"
  readonly text: string
}

const LABEL: Record<BackgroundKind, string> = { extract: "memory extraction", dream: "memory dream" }

const reasonOf = (r: RunRecord): string => {
  const unsaved = (r.unsaved ?? []).map((u) => `could not save ${u.file}: ${u.reason}`)
  return [...(r.outcome === "failed" ? [r.detail] : []), ...unsaved].join("; ")
}

/** One line: a notification or a line on stderr. */
const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, " ")

export const failureNotice = (
  state: FailureState,
  record: RunRecord
): { readonly state: FailureState; readonly notice: Notice | undefined } => {
  const failing = record.outcome === "failed" || (record.unsaved ?? []).length > 0
  const worked = !failing && (record.outcome === "saved" || record.outcome === "nothing")
  if (failing) {
    if (state._tag === "Failing") return { state: { ...state, runs: state.runs + 1 }, notice: undefined }
    return {
      state: { _tag: "Failing", since: record.at, runs: 1 },
      notice: {
        level: "warning",
        text: oneLine(`Project memory: the ${LABEL[record.kind]} failed: ${reasonOf(record).replace(/[.\s]+$/, "")}. Not repeated while it keeps failing; /memory status lists the recent runs.`)
      }
    }
  }
  if (worked && state._tag === "Failing") {
    return {
      state: working,
      notice: { level: "info", text: `Project memory: the ${LABEL[record.kind]} works again (${state.runs} failed run${state.runs === 1 ? "" : "s"} since ${new Date(state.since).toISOString()}).` }
    }
  }
  return { state, notice: undefined }
}

/**
 * A configuration problem told at session start (an unknown model) starts the failure of that kind: its runs then
 * fail for the same reason, and that is not told again.
 */
export const configuredFailure = (at: number): FailureState => ({ _tag: "Failing", since: at, runs: 0 })
