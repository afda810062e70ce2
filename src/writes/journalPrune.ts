/**
 * The journal's retention policy (pure): which whole tasks to keep, by count, age and the bytes of previous content
 * they reference, and when the journal layer should prune at all. Decides only; the layer rewrites the journal and
 * removes the blobs no kept task references.
 */
import { asRecord, type JournalEntry, type TaskRecord } from "./journal.ts"
import { grouped } from "../memory/counts.ts"

/** Pruning: keep the last 20 tasks or those of the last 30 days, whichever keeps more, within 20 MiB of content. */
export const JOURNAL_KEEP_TASKS = 20
export const JOURNAL_KEEP_MS = 30 * 24 * 60 * 60 * 1000
export const JOURNAL_MAX_CONTENT_BYTES = 20 * 1024 * 1024
/**
 * Pruning runs when recording would take the kept content past JOURNAL_MAX_CONTENT_BYTES, and then keeps at most this
 * much, so that a journal at its cap is not rewritten on every change; and when the journal file has grown by half
 * since it was last pruned (at least JOURNAL_PRUNE_MIN_BYTES), so the cost of a change stays independent of history.
 */
export const JOURNAL_PRUNE_TO_BYTES = 16 * 1024 * 1024
export const JOURNAL_PRUNE_MIN_BYTES = 256 * 1024

/** The content blobs a task needs for its undo: the previous content of each updated or deleted file. */
export const blobsOf = (task: TaskRecord | JournalEntry): ReadonlyArray<string> =>
  task.changes.flatMap((c) => (c.before === null ? [] : [c.before]))

export interface PrunePlan {
  /** Tasks kept, oldest first. */
  readonly keep: ReadonlyArray<TaskRecord>
  readonly dropped: number
  /** Blobs the kept tasks reference. */
  readonly keptBlobs: ReadonlySet<string>
  /** Bytes of content the kept tasks reference (each blob counted once). */
  readonly keptBytes: number
}

/**
 * Which tasks to keep, whole (a task's changes are never split): the newest `max(last 20 tasks, tasks of the last 30
 * days)`, then, newest first, only as many as fit in `maxBytes` of referenced content (a blob shared by several
 * tasks counts once); everything older than the first task that does not fit goes too, so the history kept is always
 * a contiguous newest part. The newest task is kept whatever its size. A task's time is its last change's.
 * `blobSize` gives a stored blob's size (undefined when missing: counts as 0, its undo will refuse).
 */
export const planPrune = (
  records: ReadonlyArray<TaskRecord | JournalEntry>,
  now: number,
  blobSize: (sha: string) => number | undefined,
  limits: { readonly keepTasks?: number; readonly keepMs?: number; readonly maxBytes?: number; readonly lastAt?: (task: TaskRecord) => number } = {}
): PrunePlan => {
  const keepTasks = limits.keepTasks ?? JOURNAL_KEEP_TASKS
  const keepMs = limits.keepMs ?? JOURNAL_KEEP_MS
  const maxBytes = limits.maxBytes ?? JOURNAL_MAX_CONTENT_BYTES
  const at = limits.lastAt ?? ((t: TaskRecord) => Date.parse(t.at))
  const tasks = records.map(asRecord)
  const newestFirst = [...tasks].reverse()
  const firstOld = newestFirst.findIndex((t) => !(now - at(t) <= keepMs))
  const withinAge = firstOld === -1 ? newestFirst.length : firstOld
  const candidates = newestFirst.slice(0, Math.max(keepTasks, withinAge))
  const counted = new Set<string>()
  let keptBytes = 0
  let kept = 0
  for (const task of candidates) {
    const fresh = [...new Set(blobsOf(task))].filter((b) => !counted.has(b))
    const bytes = fresh.reduce((sum, b) => sum + (blobSize(b) ?? 0), 0)
    // The newest task is always kept: it may still be running.
    if (kept > 0 && keptBytes + bytes > maxBytes) break
    keptBytes += bytes
    for (const b of fresh) counted.add(b)
    kept++
  }
  const keep = candidates.slice(0, kept).reverse()
  return { keep, dropped: tasks.length - keep.length, keptBlobs: counted, keptBytes }
}

/**
 * What a person is told when a change replaces a file of `previousBytes` bytes larger than the journal's content cap:
 * the journal keeps the previous content of its newest task whatever its size, so the change can be undone, but the
 * pruning that follows keeps nothing older beside it, and the next change's pruning drops it. Undefined at or below
 * the cap, where the usual retention holds.
 */
export const undoWindowNote = (file: string, previousBytes: number, cap: number = JOURNAL_MAX_CONTENT_BYTES): string | undefined =>
  previousBytes <= cap
    ? undefined
    : `${file} is ${grouped(previousBytes)} bytes, more than the ${grouped(cap)} bytes of ` +
      "previous content the journal keeps: this change can be undone until the next change of memory, and the changes " +
      "made before it can no longer be undone."
