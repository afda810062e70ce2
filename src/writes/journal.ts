/**
 * The change journal (`memory-roots/<hash>/journal/journal.jsonl`): JSON lines, the previous content of every updated
 * or deleted file kept beside it by sha256 (`journal/blobs/<sha256>`). A writer journals each change twice: an intent
 * line (an entry with an `id`) right before the bytes are replaced, from the bytes it is replacing, and an outcome
 * line (`done`, `failed` or `unknown`) once it knows. An intent whose outcome never came (the process was killed) is
 * `pending` until a later undo settles it by looking at the file. Pure: schema, encoding, decoding that tolerates a
 * torn last line, grouping by task, the pruning policy and the undo decision.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"

export const JOURNAL_DIR = "journal"
export const JOURNAL_FILE = "journal.jsonl"
export const BLOBS_DIR = "blobs"

export const JOURNAL_STATE_FILE = "state.json"

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

export const Sha256Hex = Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/))

export const sha256Hex = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex")

export const ChangeOp = Schema.Literal("create", "update", "delete")
export type ChangeOp = typeof ChangeOp.Type

export const JournalChange = Schema.Struct({
  /** Path relative to the (real) memory directory, `/`-separated. */
  file: Schema.String,
  op: ChangeOp,
  /** sha256 of the content before (null for a create) and after (null for a delete). */
  before: Schema.NullOr(Sha256Hex),
  after: Schema.NullOr(Sha256Hex),
  /** Permission bits of the file before the change, restored with its bytes. */
  mode: Schema.optional(Schema.Number)
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
  /** An undo's last line: the undo ran to its end (a killed undo leaves its task to be undone again). */
  finished: Schema.optional(Schema.Boolean),
  /** An intent: the change was journaled before its publish; an outcome line with this id follows. Absent: done. */
  id: Schema.optional(Schema.String),
  changes: Schema.Array(JournalChange)
})
export type JournalEntry = typeof JournalEntry.Type

/** What became of an intent: published (`done`), not published (`failed`), or not known (`unknown`). */
export const ChangeOutcome = Schema.Literal("done", "failed", "unknown")
export type ChangeOutcome = typeof ChangeOutcome.Type

export const JournalOutcome = Schema.Struct({
  v: Schema.Literal(1),
  id: Schema.String,
  task: Schema.String,
  outcome: ChangeOutcome,
  /** Settled by a later undo from the file's state, after the writer was killed before it could say. */
  recovered: Schema.optional(Schema.Boolean)
})
export type JournalOutcome = typeof JournalOutcome.Type

const decodeEntry = Schema.decodeUnknownEither(Schema.parseJson(JournalEntry))
const decodeOutcome = Schema.decodeUnknownEither(Schema.parseJson(JournalOutcome))
const encodeEntryJson = Schema.encodeSync(Schema.parseJson(JournalEntry))
const encodeOutcomeJson = Schema.encodeSync(Schema.parseJson(JournalOutcome))

/** One line, newline included: appended with a single write so readers see all of it or a torn tail. */
export const encodeEntry = (entry: JournalEntry): string => `${encodeEntryJson(entry)}\n`
export const encodeOutcome = (outcome: JournalOutcome): string => `${encodeOutcomeJson(outcome)}\n`

export interface DecodedJournal {
  /** Oldest first, as written. */
  readonly entries: ReadonlyArray<JournalEntry>
  /** Outcome of each intent id that has one (the last line wins). */
  readonly outcomes: ReadonlyMap<string, ChangeOutcome>
  /** Lines that did not decode (not counting a torn last line). */
  readonly invalidLines: number
  /** True when the file ended in a partial line (a write cut short), which was skipped. */
  readonly tornTail: boolean
}

const decodeLine = (line: string): JournalEntry | JournalOutcome | undefined => {
  const entry = decodeEntry(line)
  if (Either.isRight(entry)) return entry.right
  const outcome = decodeOutcome(line)
  return Either.isRight(outcome) ? outcome.right : undefined
}

const isOutcome = (line: JournalEntry | JournalOutcome): line is JournalOutcome => "outcome" in line

export const decodeJournal = (text: string): DecodedJournal => {
  const lines = text.split("\n")
  // A file written only by whole-line appends ends in "\n", so the last piece is "". Anything else is a torn tail,
  // unless it happens to be a complete line whose newline was the only thing lost.
  const tail = lines.pop() ?? ""
  const entries: Array<JournalEntry> = []
  const outcomes = new Map<string, ChangeOutcome>()
  let invalidLines = 0
  const take = (decoded: JournalEntry | JournalOutcome) => {
    if (isOutcome(decoded)) outcomes.set(decoded.id, decoded.outcome)
    else entries.push(decoded)
  }
  for (const line of lines) {
    if (line.trim() === "") continue
    const decoded = decodeLine(line)
    if (decoded === undefined) invalidLines++
    else take(decoded)
  }
  let tornTail = false
  if (tail.trim() !== "") {
    const decoded = decodeLine(tail)
    if (decoded === undefined) tornTail = true
    else take(decoded)
  }
  return { entries, outcomes, invalidLines, tornTail }
}

/** A change of a grouped task, with what became of it. */
export type ChangeStatus = ChangeOutcome | "pending"
export interface TaskChange extends JournalChange {
  readonly status: ChangeStatus
  /** The intent's id (absent on entries journaled as done). */
  readonly id?: string
}

/** A task as log and undo see it: the first entry's metadata, every change in order with its status. */
export interface TaskRecord extends Omit<JournalEntry, "changes" | "id"> {
  readonly changes: ReadonlyArray<TaskChange>
}

/**
 * One record per task: the first entry's metadata, every change in order, placed where the task's last entry is (so
 * a task that ran alongside another sorts by when it finished). `finished` is set when any of its entries has it.
 */
export const groupByTask = (
  entries: ReadonlyArray<JournalEntry>,
  outcomes: ReadonlyMap<string, ChangeOutcome> = new Map()
): Array<TaskRecord> => {
  const lastIndex = new Map<string, number>()
  entries.forEach((e, i) => lastIndex.set(e.task, i))
  const merged = new Map<string, TaskRecord>()
  for (const e of entries) {
    const status: ChangeStatus = e.id === undefined ? "done" : (outcomes.get(e.id) ?? "pending")
    const changes = e.changes.map((c): TaskChange => ({ ...c, status, ...(e.id === undefined ? {} : { id: e.id }) }))
    const seen = merged.get(e.task)
    if (seen === undefined) {
      const { id: _id, changes: _changes, ...meta } = e
      merged.set(e.task, { ...meta, changes })
    } else {
      merged.set(e.task, { ...seen, ...(e.finished === true ? { finished: true } : {}), changes: [...seen.changes, ...changes] })
    }
  }
  return entries.flatMap((e, i) => (lastIndex.get(e.task) === i ? [merged.get(e.task)!] : []))
}

/**
 * The net change of one file from the task's published changes: the last one's `after`, and the `before` of the run of
 * changes that ends there with no gap (a change whose `before` is not the previous one's `after` means someone else
 * changed the file in between; what came before that gap is not this task's to undo). `gap` says one was found.
 */
export interface FileNet {
  readonly file: string
  readonly before: string | null
  readonly after: string | null
  readonly mode: number | undefined
  readonly gap: boolean
  /** Some change to the file is pending or unknown. */
  readonly unsettled: boolean
}

export const fileNets = (task: TaskRecord): Array<FileNet> => {
  const files: Array<string> = []
  for (const c of task.changes) if (!files.includes(c.file)) files.push(c.file)
  return files.map((file) => {
    const mine = task.changes.filter((c) => c.file === file)
    const done = mine.filter((c) => c.status === "done")
    const unsettled = mine.some((c) => c.status === "pending" || c.status === "unknown")
    if (done.length === 0) return { file, before: null, after: null, mode: undefined, gap: false, unsettled }
    const last = done[done.length - 1]!
    let first = last
    let gap = false
    for (let i = done.length - 2; i >= 0; i--) {
      if (done[i]!.after !== first.before) {
        gap = true
        break
      }
      first = done[i]!
    }
    return { file, before: first.before, after: last.after, mode: first.mode, gap, unsettled }
  }).filter((n) => n.before !== n.after || n.unsettled)
}

/**
 * The net change per file of a task, from its published changes, files whose net change is nothing left out: what
 * `pm log` shows and what undo reverses. A change that was journaled but never published does not count.
 */
export const netChanges = (task: TaskRecord | JournalEntry): Array<JournalChange> =>
  fileNets(asRecord(task)).flatMap((n): Array<JournalChange> =>
    n.before === n.after
      ? []
      : [{ file: n.file, op: n.before === null ? "create" : n.after === null ? "delete" : "update", before: n.before, after: n.after }]
  )

export const asRecord = (task: TaskRecord | JournalEntry): TaskRecord =>
  ({ ...task, changes: task.changes.map((c) => ("status" in c ? c : { ...c, status: "done" as const })) }) as TaskRecord

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

/** Tasks undone by an undo that ran to its end. */
export const undoneTasks = (tasks: ReadonlyArray<TaskRecord>): ReadonlySet<string> =>
  new Set(tasks.flatMap((t) => (t.undoes !== undefined && t.finished === true ? [t.undoes] : [])))

/**
 * The task `pm undo` acts on: `task` when given (any task, an undo included: undoing an undo redoes), else the newest
 * task that is not an undo, has not been undone, and changed bytes (a task whose changes were never published, or
 * net out, is passed over). Undefined when there is none.
 */
export const undoTarget = (records: ReadonlyArray<TaskRecord | JournalEntry>, task?: string): TaskRecord | undefined => {
  const tasks = records.map(asRecord)
  if (task !== undefined) return [...tasks].reverse().find((t) => t.task === task)
  const undone = undoneTasks(tasks)
  return [...tasks].reverse().find((t) => t.undoes === undefined && !undone.has(t.task) && netChanges(t).length > 0)
}

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
