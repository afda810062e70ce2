/**
 * Background writes held for the person's review (`pm review`, `/memory review`): one JSON file per write in
 * `memory-roots/<hash>/held/<id>.json`, outside the memory folder, so nothing held is ever indexed, scanned or
 * recalled until the person approves it. Pure: the record's schema, its id, its file name and how a list of them
 * reads to a person. At most HELD_MAX_ITEMS wait at once (src/limits.ts).
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"

export const HELD_DIR = "held"

/** Eight lowercase hex digits: short enough to type after `pm review approve`. */
export const HeldId = Schema.String.pipe(Schema.pattern(/^[0-9a-f]{8}$/))

export const HeldItem = Schema.Struct({
  v: Schema.Literal(1),
  id: HeldId,
  /** The topic file the write was for, relative to the memory folder. */
  file: Schema.String,
  /** The whole content the write would have left in the file. */
  content: Schema.String,
  /** Where its substance came from (src/writes/provenance.ts), and why it was held. */
  source: Schema.String,
  reason: Schema.String,
  /** ISO 8601 time it was held, the kind of task that tried the write and its session. */
  at: Schema.String,
  task: Schema.String,
  session: Schema.NullOr(Schema.String)
})
export type HeldItem = typeof HeldItem.Type

const decodeItem = Schema.decodeUnknownEither(Schema.parseJson(HeldItem))
const encodeItem = Schema.encodeSync(Schema.parseJson(HeldItem))

export const encodeHeld = (item: HeldItem): string => `${encodeItem(item)}\n`

/** The record, or undefined for a file that is not one (torn, edited by hand). */
export const decodeHeld = (text: string): HeldItem | undefined => {
  const decoded = decodeItem(text.trim())
  return Either.isRight(decoded) ? decoded.right : undefined
}

export const heldIdOf = (file: string, content: string, at: string): string =>
  createHash("sha256").update(`${file}\n${at}\n${content}`).digest("hex").slice(0, 8)

export const heldFileName = (id: string): string => `${id}.json`

export const isHeldFileName = (name: string): boolean => /^[0-9a-f]{8}\.json$/.test(name)

/** The words every held write's refusal carries: how a run's record tells a held write from a failed one. */
export const HELD_MARK = "it is held for the person's review"

/** What the model is told when its write is held: nothing was saved, the person decides. */
export const heldToolMessage = (file: string, reason: string, id: string): string =>
  `${file} was not saved; ${HELD_MARK} (item ${id}) and is not memory unless they approve it. Why: ${reason}. ` +
  "Do not retry it, and do not add an index line for it."

/** What the model is told when the review queue is full: the write is refused outright. */
export const heldFullMessage = (file: string, reason: string, max: number): string =>
  `${file} was not saved: ${reason}. It would be held for the person's review, but ${max} writes already wait there, ` +
  "so it is refused. Do not retry it."
