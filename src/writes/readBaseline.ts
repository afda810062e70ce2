/**
 * Read baselines of a background task (pure): what a `read` records, when a `write` must ask for a re-read, and how
 * `edit` applies its replacements. The registry itself lives in layers/writes/memoryTask.ts, one per task. A baseline
 * compares bytes (their sha256), never decoded text: two files that differ only in bytes that are not UTF-8 decode
 * to the same text.
 */
import { createHash } from "node:crypto"

const sha256Hex = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

/** How the task's `read` went, as the read tool reports it. */
export type ReadOutcome =
  | {
    readonly kind: "text"
    readonly offset?: number
    readonly limit?: number
    /** Pi's `details.truncation?.truncated`: the default window (2,000 lines or 50 KiB) cut the result. */
    readonly truncated: boolean
  }
  | { readonly kind: "image" }

export interface Baseline {
  /** Floored mtime of the file when it was read. */
  readonly mtimeMs: number
  /** The sha256 of the whole file, for full reads; undefined for a page, which cannot vouch for the rest of the file. */
  readonly sha256: string | undefined
}

/** A full read records content; a page records only the time; a truncated or image read clears the baseline. */
export const baselineAction = (outcome: ReadOutcome): "full" | "page" | "clear" => {
  if (outcome.kind === "image" || outcome.truncated) return "clear"
  return outcome.offset === undefined && outcome.limit === undefined ? "full" : "page"
}

export const makeBaseline = (outcome: ReadOutcome, mtimeMs: number, bytes: Uint8Array): Baseline | undefined => {
  const action = baselineAction(outcome)
  if (action === "clear") return undefined
  return { mtimeMs: Math.floor(mtimeMs), sha256: action === "full" ? sha256Hex(bytes) : undefined }
}

/**
 * For an existing file: "missing" without a baseline; "stale" when the floored mtime is later than the baseline and
 * the bytes differ from those read (a page has no bytes to compare, so any later mtime is stale).
 * `currentBytes` is only called when the mtime moved.
 */
export const judgeWrite = (
  baseline: Baseline | undefined,
  currentMtimeMs: number,
  currentBytes: () => Uint8Array
): "ok" | "missing" | "stale" => {
  if (baseline === undefined) return "missing"
  if (Math.floor(currentMtimeMs) <= baseline.mtimeMs) return "ok"
  return baseline.sha256 !== undefined && baseline.sha256 === sha256Hex(currentBytes()) ? "ok" : "stale"
}

export interface Replacement {
  readonly oldText: string
  readonly newText: string
}

export type EditFailure = "empty" | "not-found" | "ambiguous" | "overlap" | "no-change" | "undecodable"

export type EditResult =
  | { readonly _tag: "Applied"; readonly content: string }
  | { readonly _tag: "Failed"; readonly reason: EditFailure; readonly index: number }

const occurrences = (content: string, needle: string): ReadonlyArray<number> => {
  const found: Array<number> = []
  for (let at = content.indexOf(needle); at !== -1 && found.length < 2; at = content.indexOf(needle, at + 1)) {
    found.push(at)
  }
  return found
}

/** Each oldText must occur exactly once in the original; the replacements must not overlap. Exact matching. */
export const applyEdits = (content: string, edits: ReadonlyArray<Replacement>): EditResult => {
  const spans: Array<{ start: number; end: number; text: string; index: number }> = []
  for (const [index, edit] of edits.entries()) {
    if (edit.oldText.length === 0) return { _tag: "Failed", reason: "empty", index }
    const found = occurrences(content, edit.oldText)
    if (found.length === 0) return { _tag: "Failed", reason: "not-found", index }
    if (found.length > 1) return { _tag: "Failed", reason: "ambiguous", index }
    spans.push({ start: found[0]!, end: found[0]! + edit.oldText.length, text: edit.newText, index })
  }
  spans.sort((a, b) => a.start - b.start)
  for (let i = 1; i < spans.length; i++) {
    if (spans[i]!.start < spans[i - 1]!.end) return { _tag: "Failed", reason: "overlap", index: spans[i]!.index }
  }
  let result = ""
  let cursor = 0
  for (const span of spans) {
    result += content.slice(cursor, span.start) + span.text
    cursor = span.end
  }
  result += content.slice(cursor)
  if (result === content) return { _tag: "Failed", reason: "no-change", index: 0 }
  return { _tag: "Applied", content: result }
}

export const describeEditFailure = (path: string, reason: EditFailure, index: number, total: number): string => {
  const which = total > 1 ? `edits[${index}]` : "oldText"
  switch (reason) {
    case "empty":
      return `${which} is empty in ${path}. Give the exact text to replace.`
    case "not-found":
      return `${which} was not found in ${path}. It must match the file exactly, including whitespace; read the file again.`
    case "ambiguous":
      return `${which} occurs more than once in ${path}. Include more surrounding text so it matches exactly once.`
    case "overlap":
      return `${which} overlaps another edit in ${path}. Merge them into one edit or target separate regions.`
    case "no-change":
      return `The edits leave ${path} unchanged. Nothing was written.`
    case "undecodable":
      return `${which} holds U+FFFD where ${path} holds bytes that are not valid UTF-8; those bytes cannot be matched or replaced. Edit only the text around them.`
  }
}
