/**
 * Change notices (pure): what the main agent is told about memory files a background task changed.
 *
 * Each change is recorded at once as a custom session entry (`pm-memory-notice`, never sent to the model by Pi
 * itself), so it is on disk the moment the file is, survives a quit, a kill, `/new` and a reload, and never starts
 * or extends a turn. Before each model request the records are turned into hidden notices placed where the records
 * sit in the conversation: consecutive records of one task (no message between them) make one notice naming every
 * file it changed, so a task that saves a topic and its index line costs one short notice, not two long ones.
 */
import { sanitizeMemoryText, systemReminder } from "../safety/sanitize.ts"

export const NOTICE_ENTRY = "pm-memory-notice"
/** The hidden message type of a notice as the model receives it. */
export const NOTICE_MESSAGE = "pm-memory-update"

export type NoticeBy = "extraction" | "dream"
export type NoticeOp = "write" | "edit" | "delete"

/** One change, as recorded in the session. `file` is relative to the memory directory when inside it. */
export interface NoticeRecord {
  readonly task: string
  readonly by: NoticeBy
  readonly op: NoticeOp
  readonly file: string
}

export const isNoticeRecord = (d: unknown): d is NoticeRecord => {
  if (typeof d !== "object" || d === null) return false
  const r = d as Record<string, unknown>
  return typeof r["task"] === "string" && (r["by"] === "extraction" || r["by"] === "dream") &&
    (r["op"] === "write" || r["op"] === "edit" || r["op"] === "delete") && typeof r["file"] === "string"
}

export interface NoticeGroup {
  readonly task: string
  readonly by: NoticeBy
  /** Each file once, in the order first changed, with what was done to it overall. */
  readonly files: ReadonlyArray<{ readonly file: string; readonly op: NoticeOp }>
}

/** A file written then edited is still a new version written; a later write or delete replaces what came before. */
const combine = (before: NoticeOp, after: NoticeOp): NoticeOp => (before === "write" && after === "edit" ? "write" : after)

const addTo = (group: NoticeGroup, record: NoticeRecord): NoticeGroup => {
  const at = group.files.findIndex((f) => f.file === record.file)
  if (at < 0) return { ...group, files: [...group.files, { file: record.file, op: record.op }] }
  const files = [...group.files]
  files[at] = { file: record.file, op: combine(files[at]!.op, record.op) }
  return { ...group, files }
}

const PAST: Record<NoticeOp, string> = { write: "written", edit: "edited", delete: "deleted" }

/**
 * The notice: which files, and what happened to each. Nothing else: the memory directory is named in the
 * instructions, the files say the rest, and a changed index adds its own line to the instructions from the next
 * request on.
 */
export const renderNotice = (group: NoticeGroup): string =>
  systemReminder(`Memory files changed by the background ${group.by}: ${group.files.map((f) => `${sanitizeMemoryText(f.file)} (${PAST[f.op]})`).join(", ")}.`)

/** The parts of Pi's session projection (`buildSessionProjection().entries`) the placement reads. */
export interface ProjectedEntry {
  readonly sourceEntry: { readonly type: string; readonly customType?: string; readonly data?: unknown; readonly timestamp?: string }
  readonly messages: ReadonlyArray<{ readonly role: string; readonly timestamp?: number }>
}

/** A message of the `context` event (Pi's agent messages, system messages already left out). */
export interface ContextMessage {
  readonly role: string
  readonly timestamp?: number
}

interface Placed {
  readonly group: NoticeGroup
  /** How many non-system messages precede the records in the projection. */
  readonly position: number
  /** The message just before, to find the same spot in the request's messages. */
  readonly anchor: { readonly role: string; readonly timestamp: number | undefined } | undefined
  readonly timestamp: number
}

/** The notices of a projection, each with where its records sit among the non-system messages. */
export const noticeGroups = (entries: ReadonlyArray<ProjectedEntry>): ReadonlyArray<Placed> => {
  const placed: Array<Placed> = []
  let visible = 0
  let anchor: Placed["anchor"]
  for (const { sourceEntry, messages } of entries) {
    if (sourceEntry.type === "custom" && sourceEntry.customType === NOTICE_ENTRY && isNoticeRecord(sourceEntry.data)) {
      const record = sourceEntry.data
      const last = placed.at(-1)
      if (last !== undefined && last.position === visible && last.group.task === record.task) {
        placed[placed.length - 1] = { ...last, group: addTo(last.group, record) }
      } else {
        const at = Date.parse(sourceEntry.timestamp ?? "")
        placed.push({
          group: addTo({ task: record.task, by: record.by, files: [] }, record),
          position: visible,
          anchor,
          timestamp: Number.isFinite(at) ? at : anchor?.timestamp ?? 0
        })
      }
      continue
    }
    for (const m of messages) {
      if (m.role === "system") continue
      visible++
      anchor = { role: m.role, timestamp: m.timestamp }
    }
  }
  return placed
}

const sameMessage = (m: ContextMessage | undefined, anchor: NonNullable<Placed["anchor"]>): boolean =>
  m !== undefined && m.role === anchor.role && m.timestamp === anchor.timestamp

/** Where a notice goes in the request: after its anchor, and never between a tool call and its results. */
const indexFor = (messages: ReadonlyArray<ContextMessage>, p: Placed): number => {
  let at: number
  if (p.anchor === undefined) at = 0
  else if (sameMessage(messages[p.position - 1], p.anchor)) at = p.position
  else {
    // Another extension changed the list before us: find the anchor itself; failing that, the end is always safe.
    const found = messages.findLastIndex((m) => sameMessage(m, p.anchor!))
    at = found < 0 ? messages.length : found + 1
  }
  // Tool results, and an answer that was already being written when the change happened (it started earlier, it
  // is stored after the record), come first: the model is told after what it said without knowing.
  while (at < messages.length) {
    const m = messages[at]!
    if (m.role !== "toolResult" && !(m.role === "assistant" && m.timestamp !== undefined && m.timestamp <= p.timestamp)) break
    at++
  }
  return at
}

export interface NoticeMessage {
  readonly role: "custom"
  readonly customType: typeof NOTICE_MESSAGE
  readonly content: string
  readonly display: false
  readonly timestamp: number
}

/**
 * The request's messages with the notices placed, or undefined when the branch holds none (the list is then
 * left as it is). The same session gives the same list on every request: a notice never moves once placed.
 */
export const withNotices = <M extends ContextMessage>(
  messages: ReadonlyArray<M>,
  entries: ReadonlyArray<ProjectedEntry>
): Array<M | NoticeMessage> | undefined => {
  const placed = noticeGroups(entries)
  if (placed.length === 0) return undefined
  const out: Array<M | NoticeMessage> = [...messages]
  const inserts = placed.map((p) => ({ at: indexFor(messages, p), p }))
  // From the last to the first, so earlier indices stay valid; stable for notices at the same spot.
  for (let i = inserts.length - 1; i >= 0; i--) {
    const { at, p } = inserts[i]!
    out.splice(at, 0, { role: "custom", customType: NOTICE_MESSAGE, content: renderNotice(p.group), display: false, timestamp: p.timestamp })
  }
  return out
}

/** How many notices the model sees among these session entries (for counting the messages after a cursor). */
export const noticeCount = (entries: ReadonlyArray<{ readonly type: string; readonly customType?: string; readonly data?: unknown; readonly message?: { readonly role: string } }>): number => {
  let count = 0
  let lastTask: string | undefined
  for (const e of entries) {
    if (e.type === "custom" && e.customType === NOTICE_ENTRY && isNoticeRecord(e.data)) {
      if (e.data.task !== lastTask) count++
      lastTask = e.data.task
    } else if ((e.type === "message" && e.message?.role !== "system") || e.type === "custom_message" || e.type === "branch_summary" || e.type === "compaction") {
      lastTask = undefined
    }
  }
  return count
}
