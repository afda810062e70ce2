/**
 * When a background failure is told to the person, and in which words: once when a kind of task starts failing, not
 * again for every turn while the failure persists, and once when it works again. Pure: the background session keeps
 * the state per kind and hands each finished run's record here.
 *
 * A run counts as failing when its outcome is `failed` or it left changes it could not make; as working when it
 * saved something or had nothing to save, with nothing left unsaved. Skips, busy locks and interruptions change
 * nothing.
 *
 * The notice is for the person, not the model: what failed in a short sentence, the files by their names in the
 * memory directory, and what happens next. Why a change could not be made is told to the model in its own words
 * (instructions, absolute paths); those stay in the run record, which `/memory status` and `pm status` show.
 */
import { failedChanges, isUnsavedDetail, type BackgroundKind, type RunRecord } from "./runs.ts"

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
const NEXT: Record<BackgroundKind, string> = { extract: "the next extraction", dream: "the next dream" }

/** "a.md", "a.md and b.md", "a.md, b.md and c.md". */
const list = (names: ReadonlyArray<string>): string =>
  names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`

/** `text` with the memory directory's own paths given by their names in it. */
const inMemory = (text: string, memoryDirs: ReadonlyArray<string>): string =>
  memoryDirs.reduce((t, dir) => (dir === "" ? t : t.split(`${dir.replace(/\/+$/, "")}/`).join("")), text)

/** What failed, in a short sentence: the failure's reason, and the files left unsaved with what happens next. */
const whatFailed = (r: RunRecord, memoryDirs: ReadonlyArray<string>): string => {
  // Writes held for review did not fail: the person is told of them apart.
  const unsaved = failedChanges(r.unsaved ?? []).map((u) => inMemory(u.file, memoryDirs))
  const failed = r.outcome === "failed" && !(unsaved.length > 0 && isUnsavedDetail(r.detail))
    ? `failed: ${inMemory(r.detail, memoryDirs).replace(/[.\s]+$/, "")}`
    : undefined
  const notSaved = unsaved.length === 0
    ? undefined
    : `${r.filesChanged.length > 0 && failed === undefined ? `saved ${list(r.filesChanged)} but ` : ""}could not save ${list(unsaved)} (the model asked for ${unsaved.length === 1 ? "a change that" : "changes that"} could not be made; ${NEXT[r.kind]} tries again)`
  return [failed, notSaved].filter((x) => x !== undefined).join(", and ")
}

/** One line: a notification or a line on stderr. */
const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, " ")

/** `memoryDirs`: the memory directory as the task saw it (its paths are shown by their names in it). */
export const failureNotice = (
  state: FailureState,
  record: RunRecord,
  memoryDirs: ReadonlyArray<string> = []
): { readonly state: FailureState; readonly notice: Notice | undefined } => {
  const failing = record.outcome === "failed" || failedChanges(record.unsaved ?? []).length > 0
  const worked = !failing && (record.outcome === "saved" || record.outcome === "nothing")
  if (failing) {
    if (state._tag === "Failing") return { state: { ...state, runs: state.runs + 1 }, notice: undefined }
    return {
      state: { _tag: "Failing", since: record.at, runs: 1 },
      notice: {
        level: "warning",
        text: oneLine(`Project memory: the ${LABEL[record.kind]} ${whatFailed(record, memoryDirs)}. Not repeated while it keeps failing; /memory status lists the recent runs and why.`)
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
