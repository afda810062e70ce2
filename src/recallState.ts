/**
 * Per-branch recall state: selector history, budget used, and files the main agent read in full (with the mtime
 * seen). A plain value, rebuilt by folding the branch's session entries, so compaction and branch navigation only
 * need a rebuild. Pure.
 */
import { BRANCH_RECALL_BUDGET } from "./limits.ts"
import type { SelectorTurn } from "./selectorPrompt.ts"

export interface BranchRecallState {
  readonly history: ReadonlyArray<SelectorTurn>
  readonly budgetUsed: number
  /** filename (relative to the memory directory) -> mtime when it was read in full. */
  readonly readSet: ReadonlyMap<string, number>
}

export const emptyRecallState: BranchRecallState = { history: [], budgetUsed: 0, readSet: new Map() }

/** Custom entry types the extension appends (never sent to the model). */
export const RECALL_ENTRY = "pm-recall"
export const READ_ENTRY = "pm-read"

export interface RecallEntryData {
  readonly query: string
  readonly selected: ReadonlyArray<string>
  readonly budgetUsed: number
}

export interface ReadEntryData {
  readonly filename: string
  readonly mtimeMs: number
}

export const budgetExhausted = (s: BranchRecallState): boolean => s.budgetUsed >= BRANCH_RECALL_BUDGET
export const budgetRemaining = (s: BranchRecallState): number => Math.max(0, BRANCH_RECALL_BUDGET - s.budgetUsed)

/** A file is suppressed while it is unchanged since the main agent read it in full. */
export const isSuppressed = (s: BranchRecallState, filename: string, currentMtimeMs: number | undefined): boolean => {
  const seen = s.readSet.get(filename)
  return seen !== undefined && currentMtimeMs !== undefined && seen === currentMtimeMs
}

export const withRecall = (s: BranchRecallState, d: RecallEntryData): BranchRecallState => ({
  ...s,
  history: [...s.history, { query: d.query, selected: d.selected }],
  budgetUsed: s.budgetUsed + d.budgetUsed
})

export const withRead = (s: BranchRecallState, d: ReadEntryData): BranchRecallState => {
  const readSet = new Map(s.readSet)
  readSet.set(d.filename, d.mtimeMs)
  return { ...s, readSet }
}

/** The fields of a Pi session entry this fold reads. */
export interface EntryLike {
  readonly type: string
  readonly customType?: string
  readonly data?: unknown
}

const isRecallData = (d: unknown): d is RecallEntryData =>
  typeof d === "object" && d !== null && typeof (d as RecallEntryData).query === "string" &&
  Array.isArray((d as RecallEntryData).selected) && typeof (d as RecallEntryData).budgetUsed === "number"

const isReadData = (d: unknown): d is ReadEntryData =>
  typeof d === "object" && d !== null && typeof (d as ReadEntryData).filename === "string" && typeof (d as ReadEntryData).mtimeMs === "number"

/** Folds the active branch; state before the latest compaction no longer reaches the model, so it is dropped. */
export const rebuildRecallState = (branch: ReadonlyArray<EntryLike>): BranchRecallState => {
  let start = 0
  branch.forEach((e, i) => {
    if (e.type === "compaction") start = i + 1
  })
  let state = emptyRecallState
  for (const e of branch.slice(start)) {
    if (e.type !== "custom") continue
    if (e.customType === RECALL_ENTRY && isRecallData(e.data)) state = withRecall(state, e.data)
    else if (e.customType === READ_ENTRY && isReadData(e.data)) state = withRead(state, e.data)
  }
  return state
}
