/**
 * The change journal (`memory-roots/<hash>/journal/journal.jsonl`): JSON lines, the previous content of every updated
 * or deleted file kept beside it by sha256 (`journal/blobs/<sha256>`). A writer journals each change twice: an intent
 * line (an entry with an `id`) right before the bytes are replaced, from the bytes it is replacing, and an outcome
 * line (`done`, `failed` or `unknown`) once it knows. An intent whose outcome never came (the process was killed) is
 * `pending` until a later undo settles it by looking at the file. Pure: schema, encoding, decoding that tolerates a
 * torn last line, grouping by task and each file's net change. The pruning policy is journalPrune.ts's, the undo
 * decision journalUndo.ts's.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"

export const JOURNAL_DIR = "journal"
export const JOURNAL_FILE = "journal.jsonl"
export const BLOBS_DIR = "blobs"

export const JOURNAL_STATE_FILE = "state.json"


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
  mode: Schema.optional(Schema.Number),
  /**
   * Where the new content came from (src/writes/provenance.ts): `user`, `assistant`, `tool: <what it read>`,
   * `model`, `dream`, `person` (`remember`), or `approved: <the held source>`. Absent on older lines.
   */
  source: Schema.optional(Schema.String)
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
  /** For an undo: the task it undid. A recovery that rolled its task back sets it too. */
  undoes: Schema.optional(Schema.String),
  /** For a recovery (kind `recover`): the interrupted task it rolled back, or settled by the index (no `undoes`). */
  recovers: Schema.optional(Schema.String),
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
