/**
 * The undo decision (pure): which task `pm undo` acts on, and for each file of it whether to restore, remove, leave
 * alone or refuse, from the file's current hash. Decides only; the journal layer carries the plan out and checks each
 * hash again right before it replaces a file.
 */
import { asRecord, fileNets, type JournalEntry, netChanges, type TaskRecord } from "./journal.ts"

/** Tasks undone by an undo that ran to its end. */
export const undoneTasks = (tasks: ReadonlyArray<TaskRecord>): ReadonlySet<string> =>
  new Set(tasks.flatMap((t) => (t.undoes !== undefined && t.finished === true ? [t.undoes] : [])))

/**
 * The task `pm undo` acts on: `task` when given (any task, an undo included: undoing an undo redoes), else the newest
 * task that is not an undo or a recovery, has not been undone (or rolled back by a recovery), and changed bytes (a
 * task whose changes were never published, or net out, is passed over). Undefined when there is none.
 */
export const undoTarget = (records: ReadonlyArray<TaskRecord | JournalEntry>, task?: string): TaskRecord | undefined => {
  const tasks = records.map(asRecord)
  if (task !== undefined) return [...tasks].reverse().find((t) => t.task === task)
  const undone = undoneTasks(tasks)
  return [...tasks].reverse().find((t) =>
    t.undoes === undefined && t.recovers === undefined && !undone.has(t.task) && netChanges(t).length > 0
  )
}

/** The recovery that rolled `task` back (ran to its end, and put the task's files back), if any. */
export const rolledBackBy = (records: ReadonlyArray<TaskRecord | JournalEntry>, task: string): TaskRecord | undefined =>
  records.map(asRecord).find((t) => t.recovers === task && t.undoes === task && t.finished === true)

export type UndoAction =
  | { readonly file: string; readonly action: "restore"; readonly blob: string; readonly expect: string | null; readonly mode: number | undefined }
  | { readonly file: string; readonly action: "remove"; readonly expect: string }
  | { readonly file: string; readonly action: "none" }

export interface UndoPlan {
  readonly task: string
  readonly actions: ReadonlyArray<UndoAction>
  readonly refused: ReadonlyArray<{ readonly file: string; readonly reason: string }>
  /** Files where an earlier change of the task was kept, because someone else changed the file in between. */
  readonly gaps: ReadonlyArray<string>
}

export const CHANGED_SINCE = "it was changed after this task"

/**
 * Decides the undo of `task` from the current hash of each file (null when the file does not exist): a file is put
 * back only when it is exactly what the task left; one already at its previous state needs nothing; anything else
 * was changed since and is refused. The writer checks the same hash again right before each rename or unlink.
 */
export const planUndo = (
  task: TaskRecord | JournalEntry,
  currentHash: (file: string) => string | null,
  blobExists: (sha: string) => boolean
): UndoPlan => {
  const actions: Array<UndoAction> = []
  const refused: Array<{ file: string; reason: string }> = []
  const gaps: Array<string> = []
  for (const net of fileNets(asRecord(task))) {
    const { file, before, after } = net
    if (net.unsettled) {
      refused.push({ file, reason: "a change to it was interrupted and the file now holds neither its old nor its new bytes" })
      continue
    }
    if (net.gap) gaps.push(file)
    const current = currentHash(file)
    if (current === before) actions.push({ file, action: "none" })
    else if (current !== after) {
      refused.push({
        file,
        reason: current === null ? "it was deleted after this task" : after === null ? "it was created again after this task" : CHANGED_SINCE
      })
    } else if (before === null) actions.push({ file, action: "remove", expect: current! })
    else if (!blobExists(before)) refused.push({ file, reason: "its previous content is no longer kept (history pruned)" })
    else actions.push({ file, action: "restore", blob: before, expect: current, mode: net.mode })
  }
  return { task: task.task, actions, refused, gaps }
}
