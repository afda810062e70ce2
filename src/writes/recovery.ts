/**
 * The recovery decision (pure): what to do with the files of a task that was interrupted (its process killed, or the
 * task failing part way), so that memory ends whole. Decides only; layers/writes/journalRecover.ts carries it out
 * through the writer's compare-and-swap and checks each hash again right before it replaces a file.
 *
 * The rule. A task is rolled back: every file it changed that is still what it left goes back to its previous bytes
 * (`rollback`), provided that the index and every file whose existence the task changed (it created or deleted it)
 * can go back. When one of those cannot (someone changed it after the task: the main agent, a person, a background
 * task holding another lock), the index as it is now decides instead (`index`): MEMORY.md is left as it is, a file
 * the task created is removed only if the index does not link it, a file it deleted comes back only if the index
 * links it, and updated files go back where they can. Either way no index line links a missing file because of the
 * task, no file it created is left unindexed, and nothing anyone else wrote is replaced.
 */
import { asRecord, fileNets, type JournalEntry, type TaskRecord } from "./journal.ts"
import { planUndo, type UndoAction } from "./journalUndo.ts"

export type RecoveryMode = "rollback" | "index"

export interface RecoveryPlan {
  readonly task: string
  readonly mode: RecoveryMode
  /** In order: MEMORY.md first (so that when it cannot go back after all, nothing else has moved yet). */
  readonly actions: ReadonlyArray<UndoAction>
  /** Files left as they are, and why. */
  readonly left: ReadonlyArray<{ readonly file: string; readonly reason: string }>
}

/** The index as it is now: the files it links, or undefined when there is no MEMORY.md (every topic then counts). */
export type IndexLinks = ReadonlySet<string> | undefined

export const KEPT_FOR_INDEX = "kept as it is, to agree with the index as it is now"
export const INDEX_KEPT = "kept as it is: a file whose existence this task changed was changed after it, so the index as it is decides"

/**
 * Decides the recovery of `task` from the current hash of each file (null when missing), which stored blobs exist,
 * and the links of the index as it is now. `forceIndex` asks for the `index` mode (MEMORY.md turned out to have
 * changed when it was about to be put back).
 */
export const planRecovery = (
  task: TaskRecord | JournalEntry,
  currentHash: (file: string) => string | null,
  blobExists: (sha: string) => boolean,
  links: IndexLinks,
  indexFile: string,
  forceIndex = false
): RecoveryPlan => {
  const record = asRecord(task)
  const nets = new Map(fileNets(record).map((n) => [n.file, n]))
  const undo = planUndo(record, currentHash, blobExists)
  const existence = (file: string) => {
    const net = nets.get(file)
    return net !== undefined && (file === indexFile || (net.before === null) !== (net.after === null))
  }
  const blocked = undo.refused.some((r) => existence(r.file))
  const byIndexFirst = <T extends { readonly file: string }>(xs: ReadonlyArray<T>) =>
    [...xs.filter((x) => x.file === indexFile), ...xs.filter((x) => x.file !== indexFile)]
  if (!blocked && !forceIndex) return { task: record.task, mode: "rollback", actions: byIndexFirst(undo.actions), left: undo.refused }

  const left: Array<{ file: string; reason: string }> = [...undo.refused]
  const actions: Array<UndoAction> = []
  for (const a of undo.actions) {
    const net = nets.get(a.file)!
    const linked = links === undefined || links.has(a.file)
    const keep = a.file === indexFile
      ? a.action === "none"
      : a.action === "remove"
      ? !linked
      : a.action === "restore" && net.after === null
      ? linked
      : true
    if (keep) actions.push(a)
    else left.push({ file: a.file, reason: a.file === indexFile ? INDEX_KEPT : KEPT_FOR_INDEX })
  }
  return { task: record.task, mode: "index", actions, left }
}
