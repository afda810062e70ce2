/**
 * The queue of handed-over extractions (pure). A session that ends, or cannot get `extract.lock` in time, leaves what
 * its extraction did not cover as a job: one JSON file in the memory root's `queue/` folder holding all an extraction
 * needs without the session (its id, cwd and model, the cursor and the branch entries from the cursor on, when and
 * why it was queued). The next interactive session of the project, or `pm extract`, runs the jobs oldest first; names sort that way.
 *
 * A job holds the cursor entry (reduced to its type and id: an extraction reads only what follows it) and every entry
 * after it, so `entriesAfter(job.branch, job.cursor)` is what the session's branch had after its cursor. A job larger
 * than QUEUE_JOB_MAX_BYTES keeps the newest entries that fit (the cursor moves to the entry before them) and counts
 * the messages it left out; one whose newest entry alone does not fit is not made.
 */
import { QUEUE_JOB_MAX_BYTES } from "../limits.ts"
import { type BranchEntry, isModelVisible } from "./cursor.ts"

export const QUEUE_DIR = "queue"
/** Inside `queue/`: records that could not be read as jobs, kept for a person to look at. */
export const QUEUE_DAMAGED_DIR = "damaged"
export const QUEUE_JOB_VERSION = 1

export interface QueuedJob {
  readonly version: typeof QUEUE_JOB_VERSION
  readonly kind: "extract"
  /** The Pi session the messages belong to (the change journal names it). */
  readonly session: string
  /** The session's working directory: the task's tools start from it. */
  readonly cwd: string
  /** Epoch ms. */
  readonly queuedAt: number
  /** Why the session did not extract them itself, as words for a person. */
  readonly reason: string
  /** The model the session's extraction would have used (`provider/id`), unless config.json names one; null: none. */
  readonly model: string | null
  /** The entry the extraction covered last (null: none on this branch). */
  readonly cursor: string | null
  /** The cursor's entry (type and id only) and every entry after it, as the session had them. */
  readonly branch: ReadonlyArray<BranchEntry>
  /** Messages the model would read after the cursor. */
  readonly messages: number
  /** Messages left out, oldest first, to keep the job within QUEUE_JOB_MAX_BYTES. */
  readonly omitted: number
  /** Drains whose extraction ended on the model's error so far (absent: none). */
  readonly attempts?: number
}

export type JobInput = Pick<QueuedJob, "session" | "cwd" | "queuedAt" | "reason" | "model"> & {
  readonly branch: ReadonlyArray<BranchEntry>
  readonly cursor: string | undefined
}

export type MadeJob =
  | { readonly _tag: "Job"; readonly job: QueuedJob; readonly text: string }
  /** Not even the newest entry fits: `bytes` is that entry's size as written. */
  | { readonly _tag: "TooLarge"; readonly bytes: number }

const stub = (e: BranchEntry): BranchEntry => ({ type: e.type, id: e.id })
const bytesOf = (text: string): number => Buffer.byteLength(text, "utf8")
const visibleCount = (entries: ReadonlyArray<BranchEntry>): number => entries.filter(isModelVisible).length

export const encodeJob = (job: QueuedJob): string => JSON.stringify(job)

/**
 * The job for `branch` after `cursor` (the extraction's own rule: after the cursor, or after the last compaction when
 * the cursor is not on this branch), within `maxBytes`.
 */
export const makeJob = (input: JobInput, maxBytes: number = QUEUE_JOB_MAX_BYTES): MadeJob => {
  const { branch, cursor } = input
  const at = cursor === undefined ? -1 : branch.findIndex((e) => e.id === cursor)
  const head = at >= 0 ? at : branch.findLastIndex((e) => e.type === "compaction")
  const after = branch.slice(head + 1)
  const jobOf = (from: number): QueuedJob => {
    // From 0: the whole range after the cursor, under the cursor's own entry; else the cursor moves to the entry
    // before the kept part, and the job's own entry names it.
    const first = from === 0 ? (head >= 0 ? branch[head] : undefined) : after[from - 1]
    const kept = after.slice(from)
    return {
      version: QUEUE_JOB_VERSION,
      kind: "extract",
      session: input.session,
      cwd: input.cwd,
      queuedAt: input.queuedAt,
      reason: input.reason,
      model: input.model,
      cursor: from === 0 ? (cursor ?? null) : first!.id,
      branch: first === undefined ? kept : [stub(first), ...kept],
      messages: visibleCount(kept),
      omitted: visibleCount(after.slice(0, from))
    }
  }
  const whole = encodeJob(jobOf(0))
  if (bytesOf(whole) <= maxBytes) return { _tag: "Job", job: jobOf(0), text: whole }
  // The size of the job kept from `from`, without encoding it: the empty job, each entry and the commas between.
  const sizes = after.map((e) => bytesOf(JSON.stringify(e)))
  const suffix: Array<number> = new Array(after.length + 1).fill(0)
  for (let i = after.length - 1; i >= 0; i--) suffix[i] = suffix[i + 1]! + sizes[i]!
  const emptySize = (from: number) => bytesOf(encodeJob({ ...jobOf(from), branch: [stub(after[from - 1]!)] }))
  for (let from = 1; from < after.length; from++) {
    const estimate = emptySize(from) + suffix[from]! + (after.length - from)
    if (estimate > maxBytes) continue
    const text = encodeJob(jobOf(from))
    if (bytesOf(text) <= maxBytes) return { _tag: "Job", job: jobOf(from), text }
  }
  return { _tag: "TooLarge", bytes: sizes.at(-1) ?? bytesOf(whole) }
}

const isEntry = (e: unknown): e is BranchEntry =>
  typeof e === "object" && e !== null && typeof (e as BranchEntry).type === "string" && typeof (e as BranchEntry).id === "string"

/** A job's file read back; a string says why it is not one. */
export const decodeJob = (text: string): QueuedJob | string => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return "it is not JSON"
  }
  if (typeof json !== "object" || json === null) return "it is not a JSON object"
  const o = json as Record<string, unknown>
  if (o["version"] !== QUEUE_JOB_VERSION) return `its version is ${JSON.stringify(o["version"])}, not ${QUEUE_JOB_VERSION}`
  if (o["kind"] !== "extract") return `its kind is ${JSON.stringify(o["kind"])}, not "extract"`
  for (const key of ["session", "cwd", "reason"]) if (typeof o[key] !== "string") return `its ${key} is not a string`
  for (const key of ["queuedAt", "messages", "omitted"]) {
    if (typeof o[key] !== "number" || !Number.isFinite(o[key])) return `its ${key} is not a number`
  }
  if (o["attempts"] !== undefined && (typeof o["attempts"] !== "number" || !Number.isInteger(o["attempts"]) || o["attempts"] < 0)) {
    return "its attempts is not a count"
  }
  if (o["cursor"] !== null && typeof o["cursor"] !== "string") return "its cursor is neither a string nor null"
  if (o["model"] !== null && typeof o["model"] !== "string") return "its model is neither a string nor null"
  if (!Array.isArray(o["branch"]) || !o["branch"].every(isEntry)) return "its branch is not a list of session entries"
  return o as unknown as QueuedJob
}

/** A job's file name: its time (13 digits, so names sort oldest first), its session, and a random part. */
export const jobFileName = (job: Pick<QueuedJob, "queuedAt" | "session">, random: string): string =>
  `${String(Math.max(0, Math.floor(job.queuedAt))).padStart(13, "0")}-${job.session.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64)}-${random}.json`

export const isJobFileName = (name: string): boolean => /^\d{13}-[A-Za-z0-9_-]*-[A-Za-z0-9]+\.json$/.test(name)

/** The time a job's name says it was queued. */
export const queuedAtOfName = (name: string): number => Number(name.slice(0, 13))
