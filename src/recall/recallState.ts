/**
 * Per-branch recall state: selector history, budget used, files the main agent read in full and files recall
 * already injected (each with the mtime seen). A plain value, rebuilt by folding the branch's session entries, so compaction and branch navigation only
 * need a rebuild. Pure.
 */
import { BRANCH_RECALL_BUDGET } from "../limits.ts"
import type { SelectorTurn } from "./selectorPrompt.ts"

export interface BranchRecallState {
  readonly history: ReadonlyArray<SelectorTurn>
  readonly budgetUsed: number
  /** filename (relative to the memory directory) -> mtime when it was read in full. */
  readonly readSet: ReadonlyMap<string, number>
  /** filename -> mtime when recall injected it: the model has that version in context until a compaction. */
  readonly surfaced: ReadonlyMap<string, number>
}

export const emptyRecallState: BranchRecallState = { history: [], budgetUsed: 0, readSet: new Map(), surfaced: new Map() }

/** Custom entry types the extension appends (never sent to the model). */
export const RECALL_ENTRY = "pm-recall"
export const READ_ENTRY = "pm-read"

export interface RecallEntryData {
  readonly query: string
  readonly selected: ReadonlyArray<string>
  readonly budgetUsed: number
  /** The mtime of each injected file as read (entries written before this field suppress nothing). */
  readonly mtimes?: Readonly<Record<string, number>>
}

export interface ReadEntryData {
  readonly filename: string
  readonly mtimeMs: number
}

export const budgetExhausted = (s: BranchRecallState): boolean => s.budgetUsed >= BRANCH_RECALL_BUDGET
export const budgetRemaining = (s: BranchRecallState): number => Math.max(0, BRANCH_RECALL_BUDGET - s.budgetUsed)

/**
 * A file is suppressed while it is unchanged since the main agent read it in full, or since recall injected it on
 * this branch: the model has that very text in context already.
 */
export const isSuppressed = (s: BranchRecallState, filename: string, currentMtimeMs: number | undefined): boolean => {
  if (currentMtimeMs === undefined) return false
  return s.readSet.get(filename) === currentMtimeMs || s.surfaced.get(filename) === currentMtimeMs
}

export const withRecall = (s: BranchRecallState, d: RecallEntryData): BranchRecallState => {
  const mtimes = Object.entries(d.mtimes ?? {}).filter(([f]) => d.selected.includes(f))
  const surfaced = mtimes.length === 0 ? s.surfaced : new Map([...s.surfaced, ...mtimes])
  return { ...s, history: [...s.history, { query: d.query, selected: d.selected }], budgetUsed: s.budgetUsed + d.budgetUsed, surfaced }
}

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

const isMtimes = (m: unknown): boolean =>
  m === undefined || (typeof m === "object" && m !== null && !Array.isArray(m) && Object.values(m).every((v) => typeof v === "number"))

const isRecallData = (d: unknown): d is RecallEntryData =>
  typeof d === "object" && d !== null && typeof (d as RecallEntryData).query === "string" &&
  Array.isArray((d as RecallEntryData).selected) && typeof (d as RecallEntryData).budgetUsed === "number" &&
  isMtimes((d as RecallEntryData).mtimes)

const isReadData = (d: unknown): d is ReadEntryData =>
  typeof d === "object" && d !== null && typeof (d as ReadEntryData).filename === "string" && typeof (d as ReadEntryData).mtimeMs === "number"

/**
 * Folds the active branch; state before the latest compaction no longer reaches the model, so it is dropped (and a
 * file recalled before it may be recalled again).
 */
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
