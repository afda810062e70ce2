/**
 * The change journal: one JSON line per task that changed memory (`memory-roots/<hash>/journal/journal.jsonl`), the
 * previous content of every updated or deleted file kept beside it by sha256 (`journal/blobs/<sha256>`). Pure:
 * schema, encoding, decoding that tolerates a torn last line, the pruning policy and the undo decision.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"

export const JOURNAL_DIR = "journal"
export const JOURNAL_FILE = "journal.jsonl"
export const BLOBS_DIR = "blobs"

/** Pruning: keep the last 20 tasks or those of the last 30 days, whichever keeps more, within 20 MiB of content. */
export const JOURNAL_KEEP_TASKS = 20
export const JOURNAL_KEEP_MS = 30 * 24 * 60 * 60 * 1000
export const JOURNAL_MAX_CONTENT_BYTES = 20 * 1024 * 1024

export const Sha256Hex = Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/))

export const sha256Hex = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex")

export const ChangeOp = Schema.Literal("create", "update", "delete")
export type ChangeOp = typeof ChangeOp.Type

export const JournalChange = Schema.Struct({
  /** Path relative to the memory directory, `/`-separated. */
  file: Schema.String,
  op: ChangeOp,
  /** sha256 of the content before (null for a create) and after (null for a delete). */
  before: Schema.NullOr(Sha256Hex),
  after: Schema.NullOr(Sha256Hex)
})
export type JournalChange = typeof JournalChange.Type

/** Task kinds; open-ended so a new command can journal without a schema change, but always a short lowercase word. */
export const TaskKind = Schema.String.pipe(Schema.pattern(/^[a-z][a-z-]{0,31}$/))

export const JournalEntry = Schema.Struct({
  v: Schema.Literal(1),
  task: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128)),
  kind: TaskKind,
  /** ISO 8601 time the change was recorded. */
  at: Schema.String,
  session: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  /** The message range an extractor read (entry ids or indexes as the host names them). */
  range: Schema.optional(Schema.NullOr(Schema.Struct({ from: Schema.String, to: Schema.String }))),
  /** For an undo: the task it undid. */
  undoes: Schema.optional(Schema.String),
  changes: Schema.Array(JournalChange)
})
export type JournalEntry = typeof JournalEntry.Type

const decodeEntry = Schema.decodeUnknownEither(Schema.parseJson(JournalEntry))
const encodeEntryJson = Schema.encodeSync(Schema.parseJson(JournalEntry))

/** One line, newline included: appended with a single write so readers see all of it or a torn tail. */
export const encodeEntry = (entry: JournalEntry): string => `${encodeEntryJson(entry)}\n`

export interface DecodedJournal {
  /** Oldest first, as written. */
  readonly entries: ReadonlyArray<JournalEntry>
  /** Lines that did not decode (not counting a torn last line). */
  readonly invalidLines: number
  /** True when the file ended in a partial line (a write cut short), which was skipped. */
  readonly tornTail: boolean
}

export const decodeJournal = (text: string): DecodedJournal => {
  const lines = text.split("\n")
  // A file written only by whole-line appends ends in "\n", so the last piece is "". Anything else is a torn tail,
  // unless it happens to be a complete entry whose newline was the only thing lost.
  const tail = lines.pop() ?? ""
  const entries: Array<JournalEntry> = []
  let invalidLines = 0
  for (const line of lines) {
    if (line.trim() === "") continue
    const decoded = decodeEntry(line)
    if (Either.isRight(decoded)) entries.push(decoded.right)
    else invalidLines++
  }
  let tornTail = false
  if (tail.trim() !== "") {
    const decoded = decodeEntry(tail)
    if (Either.isRight(decoded)) entries.push(decoded.right)
    else tornTail = true
  }
  return { entries, invalidLines, tornTail }
}

/** The content blobs an entry needs for its undo: the previous content of each updated or deleted file. */
export const blobsOf = (entry: JournalEntry): ReadonlyArray<string> =>
  entry.changes.flatMap((c) => (c.before === null ? [] : [c.before]))

export interface PrunePlan {
  /** Entries kept, oldest first. */
  readonly keep: ReadonlyArray<JournalEntry>
  readonly dropped: number
  /** Blobs no kept entry references: to delete. */
  readonly deleteBlobs: ReadonlyArray<string>
  /** Bytes of content the kept entries reference (each blob counted once). */
  readonly keptBytes: number
}

/**
 * Which entries to keep: the newest `max(last 20 tasks, tasks of the last 30 days)`, then, newest first, only as
 * many as fit in 20 MiB of referenced content (a blob shared by several entries counts once); everything older than
 * the first entry that does not fit goes too, so the history kept is always a contiguous newest part. The newest
 * entry is kept whatever its size.
 * `blobSize` gives a stored blob's size (undefined when missing: counts as 0, its undo will refuse).
 */
export const planPrune = (
  entries: ReadonlyArray<JournalEntry>,
  now: number,
  storedBlobs: ReadonlyArray<string>,
  blobSize: (sha: string) => number | undefined,
  limits: { readonly keepTasks?: number; readonly keepMs?: number; readonly maxBytes?: number } = {}
): PrunePlan => {
  const keepTasks = limits.keepTasks ?? JOURNAL_KEEP_TASKS
  const keepMs = limits.keepMs ?? JOURNAL_KEEP_MS
  const maxBytes = limits.maxBytes ?? JOURNAL_MAX_CONTENT_BYTES
  const newestFirst = [...entries].reverse()
  // Entries are appended in time order, so the tasks of the last 30 days are a newest prefix.
  const firstOld = newestFirst.findIndex((e) => !(now - Date.parse(e.at) <= keepMs))
  const withinAge = firstOld === -1 ? newestFirst.length : firstOld
  const candidates = newestFirst.slice(0, Math.max(keepTasks, withinAge))
  const counted = new Set<string>()
  let keptBytes = 0
  let kept = 0
  for (const entry of candidates) {
    const fresh = [...new Set(blobsOf(entry))].filter((b) => !counted.has(b))
    const bytes = fresh.reduce((sum, b) => sum + (blobSize(b) ?? 0), 0)
    // The newest task is always kept: its record must exist while its change is published.
    if (kept > 0 && keptBytes + bytes > maxBytes) break
    keptBytes += bytes
    for (const b of fresh) counted.add(b)
    kept++
  }
  const keep = candidates.slice(0, kept).reverse()
  return {
    keep,
    dropped: entries.length - keep.length,
    deleteBlobs: storedBlobs.filter((b) => !counted.has(b)),
    keptBytes
  }
}

/** Tasks undone by a later undo entry. */
export const undoneTasks = (entries: ReadonlyArray<JournalEntry>): ReadonlySet<string> =>
  new Set(entries.flatMap((e) => (e.undoes === undefined ? [] : [e.undoes])))

/**
 * The task `pm undo` acts on: `task` when given (any entry, an undo included: undoing an undo redoes), else the
 * newest task that is not itself an undo and has not been undone. Undefined when there is none.
 */
export const undoTarget = (entries: ReadonlyArray<JournalEntry>, task?: string): JournalEntry | undefined => {
  if (task !== undefined) return [...entries].reverse().find((e) => e.task === task)
  const undone = undoneTasks(entries)
  return [...entries].reverse().find((e) => e.undoes === undefined && !undone.has(e.task))
}

export type UndoAction =
  | { readonly file: string; readonly action: "restore"; readonly blob: string; readonly current: string | null }
  | { readonly file: string; readonly action: "remove"; readonly current: string }
  | { readonly file: string; readonly action: "none" }

export interface UndoPlan {
  readonly task: string
  readonly actions: ReadonlyArray<UndoAction>
  readonly refused: ReadonlyArray<{ readonly file: string; readonly reason: string }>
}

/**
 * Decides the undo of `entry` from the current hash of each file (null when the file does not exist). A file is
 * restored only when it is exactly what the task left (its `after` hash); one already back at its `before` state
 * needs nothing; anything else was changed since and is refused. When a task touched a file twice, the first change's
 * `before` is the state to return to and the last change's `after` the state to expect.
 */
export const planUndo = (
  entry: JournalEntry,
  currentHash: (file: string) => string | null,
  blobExists: (sha: string) => boolean
): UndoPlan => {
  const firstBefore = new Map<string, string | null>()
  const lastAfter = new Map<string, string | null>()
  for (const c of entry.changes) {
    if (!firstBefore.has(c.file)) firstBefore.set(c.file, c.before)
    lastAfter.set(c.file, c.after)
  }
  const actions: Array<UndoAction> = []
  const refused: Array<{ file: string; reason: string }> = []
  for (const [file, before] of firstBefore) {
    const after = lastAfter.get(file) ?? null
    const current = currentHash(file)
    if (current === before) {
      actions.push({ file, action: "none" })
    } else if (current !== after) {
      refused.push({
        file,
        reason: current === null ? "it was deleted after this task" : "it was changed after this task; restore it by hand or undo the later task first"
      })
    } else if (before === null) {
      actions.push({ file, action: "remove", current: current! })
    } else if (!blobExists(before)) {
      refused.push({ file, reason: "its previous content is no longer kept (history pruned)" })
    } else {
      actions.push({ file, action: "restore", blob: before, current })
    }
  }
  return { task: entry.task, actions, refused }
}

/** The journal entry that records an undo: each file goes from its current state back to the task's `before`. */
export const undoEntry = (
  plan: UndoPlan,
  meta: { readonly task: string; readonly at: string; readonly session: string | null; readonly model: string | null }
): JournalEntry => ({
  v: 1,
  task: meta.task,
  kind: "undo",
  at: meta.at,
  session: meta.session,
  model: meta.model,
  undoes: plan.task,
  changes: plan.actions.flatMap((a): Array<JournalChange> =>
    a.action === "none"
      ? []
      : a.action === "remove"
        ? [{ file: a.file, op: "delete", before: a.current, after: null }]
        : [{ file: a.file, op: a.current === null ? "create" : "update", before: a.current, after: a.blob }]
  )
})

/**
 * A background task records each change as its own entry, just before publishing it, all under the task's id; log
 * and undo see one entry per task: the first entry's metadata, every change in order, placed where the task's last
 * entry is (so a task that ran alongside another sorts by when it finished).
 */
export const groupByTask = (entries: ReadonlyArray<JournalEntry>): Array<JournalEntry> => {
  const lastIndex = new Map<string, number>()
  entries.forEach((e, i) => lastIndex.set(e.task, i))
  const merged = new Map<string, JournalEntry>()
  for (const e of entries) {
    const seen = merged.get(e.task)
    merged.set(e.task, seen === undefined ? e : { ...seen, changes: [...seen.changes, ...e.changes] })
  }
  return entries.flatMap((e, i) => (lastIndex.get(e.task) === i ? [merged.get(e.task)!] : []))
}

/**
 * The net change per file of a task (first `before`, last `after`), files whose net change is nothing left out: what
 * `pm log` shows. A change that was recorded but whose publish failed is followed by its reversal, so it nets out.
 */
export const netChanges = (entry: JournalEntry): Array<JournalChange> => {
  const firstBefore = new Map<string, string | null>()
  const lastAfter = new Map<string, string | null>()
  for (const c of entry.changes) {
    if (!firstBefore.has(c.file)) firstBefore.set(c.file, c.before)
    lastAfter.set(c.file, c.after)
  }
  return [...firstBefore].flatMap(([file, before]): Array<JournalChange> => {
    const after = lastAfter.get(file) ?? null
    if (before === after) return []
    return [{ file, op: before === null ? "create" : after === null ? "delete" : "update", before, after }]
  })
}
