/**
 * A background task's change of a memory file, carried out on the file's bytes (pure). The model sees text: a file's
 * bytes that are not UTF-8 reach it as U+FFFD, and it cannot give them back. So an edit matches and replaces bytes
 * (its oldText and newText encoded), and a whole-file write keeps the bytes of every part the new text leaves as the
 * model saw it (a U+FFFD in the new text where the file held bytes that are not UTF-8 keeps those bytes); a write or
 * edit that would replace such bytes is refused with the line they are on. A leading BOM the new text lacks is kept.
 */
import { type EditResult, type Replacement } from "./readBaseline.ts"

const encoder = new TextEncoder()
const REPLACEMENT = [0xef, 0xbf, 0xbd] as const
const BOM = [0xef, 0xbb, 0xbf] as const

/** A run of bytes that is not UTF-8: what one U+FFFD stands for when the file is decoded. */
export interface IllFormed {
  readonly start: number
  readonly end: number
}

/** How many continuation bytes follow `lead`, and the range the first of them must fall in (Unicode's table 3-7). */
const shapeOf = (lead: number): { readonly more: number; readonly lo: number; readonly hi: number } | undefined => {
  if (lead >= 0xc2 && lead <= 0xdf) return { more: 1, lo: 0x80, hi: 0xbf }
  if (lead === 0xe0) return { more: 2, lo: 0xa0, hi: 0xbf }
  if (lead === 0xed) return { more: 2, lo: 0x80, hi: 0x9f }
  if (lead >= 0xe1 && lead <= 0xef) return { more: 2, lo: 0x80, hi: 0xbf }
  if (lead === 0xf0) return { more: 3, lo: 0x90, hi: 0xbf }
  if (lead === 0xf4) return { more: 3, lo: 0x80, hi: 0x8f }
  if (lead >= 0xf1 && lead <= 0xf3) return { more: 3, lo: 0x80, hi: 0xbf }
  return undefined
}

/**
 * The runs of bytes that are not UTF-8, each one the maximal subpart a decoder turns into one U+FFFD (the WHATWG
 * decoder's rule, which Node's follows). Empty for valid UTF-8.
 */
export const illFormedRuns = (bytes: Uint8Array): ReadonlyArray<IllFormed> => {
  const runs: Array<IllFormed> = []
  let i = 0
  while (i < bytes.length) {
    const lead = bytes[i]!
    if (lead < 0x80) {
      i++
      continue
    }
    const shape = shapeOf(lead)
    if (shape === undefined) {
      runs.push({ start: i, end: i + 1 })
      i++
      continue
    }
    let k = 1
    for (; k <= shape.more; k++) {
      const b = bytes[i + k]
      const [lo, hi] = k === 1 ? [shape.lo, shape.hi] : [0x80, 0xbf]
      if (b === undefined || b < lo || b > hi) break
    }
    if (k > shape.more) i += k
    else {
      runs.push({ start: i, end: i + k })
      i += k
    }
  }
  return runs
}

/** The 1-based line of byte `at`. */
export const lineAt = (bytes: Uint8Array, at: number): number => {
  let line = 1
  for (let i = 0; i < at; i++) if (bytes[i] === 0x0a) line++
  return line
}

const isReplacementAt = (bytes: Uint8Array, at: number): boolean =>
  bytes[at] === REPLACEMENT[0] && bytes[at + 1] === REPLACEMENT[1] && bytes[at + 2] === REPLACEMENT[2]

const startsWithBom = (bytes: Uint8Array): boolean => BOM.every((b, i) => bytes[i] === b)

export type SpliceResult =
  | { readonly _tag: "Spliced"; readonly bytes: Uint8Array }
  /** The new text replaces bytes that are not UTF-8, on this line of the file. */
  | { readonly _tag: "Undecodable"; readonly line: number }

/**
 * The bytes a whole-file write of `text` over `before` publishes: `text` encoded, except that the longest start and
 * end it shares with `before` as the model saw it keep `before`'s bytes (each U+FFFD of `text` standing for one run
 * of bytes that are not UTF-8), and a leading BOM of `before` stays when `text` has none. Refused when the part in
 * between, the one the write really replaces, holds bytes that are not UTF-8.
 */
export const spliceText = (before: Uint8Array, text: string): SpliceResult => {
  const withBom = startsWithBom(before) && !text.startsWith("\uFEFF") ? `\uFEFF${text}` : text
  const after = encoder.encode(withBom)
  const runs = illFormedRuns(before)
  if (runs.length === 0) return { _tag: "Spliced", bytes: after }
  // The shared start: byte for byte, and one U+FFFD for each run that is not UTF-8.
  let i = 0
  let j = 0
  let r = 0
  for (;;) {
    const run = runs[r]
    if (run !== undefined && run.start === i) {
      if (!isReplacementAt(after, j)) break
      i = run.end
      j += 3
      r++
    } else if (i < before.length && j < after.length && before[i] === after[j]) {
      i++
      j++
    } else break
  }
  // The shared end, never reaching back into the shared start.
  let bi = before.length
  let bj = after.length
  let s = runs.length - 1
  for (;;) {
    const run = runs[s]
    if (run !== undefined && s >= r && run.end === bi) {
      if (bj - 3 < j || !isReplacementAt(after, bj - 3)) break
      bi = run.start
      bj -= 3
      s--
    } else if (bi > i && bj > j && before[bi - 1] === after[bj - 1] && (run === undefined || s < r || run.end < bi)) {
      bi--
      bj--
    } else break
  }
  const lost = runs.find((run) => run.start < bi && run.end > i)
  if (lost !== undefined) return { _tag: "Undecodable", line: lineAt(before, lost.start) }
  return { _tag: "Spliced", bytes: Buffer.concat([before.subarray(0, i), after.subarray(j, bj), before.subarray(bi)]) }
}

const occurrences = (haystack: Buffer, needle: Uint8Array): ReadonlyArray<number> => {
  const found: Array<number> = []
  for (let at = haystack.indexOf(needle); at !== -1 && found.length < 2; at = haystack.indexOf(needle, at + 1)) found.push(at)
  return found
}

export type ByteEditResult =
  | { readonly _tag: "Applied"; readonly bytes: Uint8Array }
  | Extract<EditResult, { readonly _tag: "Failed" }>

/**
 * The edits applied to the file's bytes: each oldText, encoded, must occur exactly once and the replacements must not
 * overlap (the rules of readBaseline's applyEdits); every byte outside the matched ones is kept. An oldText holding
 * U+FFFD that is not found in a file holding bytes that are not UTF-8 fails as "undecodable".
 */
export const applyByteEdits = (bytes: Uint8Array, edits: ReadonlyArray<Replacement>): ByteEditResult => {
  const haystack = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const spans: Array<{ start: number; end: number; bytes: Uint8Array; index: number }> = []
  for (const [index, edit] of edits.entries()) {
    if (edit.oldText.length === 0) return { _tag: "Failed", reason: "empty", index }
    const needle = encoder.encode(edit.oldText)
    const found = occurrences(haystack, needle)
    if (found.length === 0) {
      const undecodable = edit.oldText.includes("\uFFFD") && illFormedRuns(bytes).length > 0
      return { _tag: "Failed", reason: undecodable ? "undecodable" : "not-found", index }
    }
    if (found.length > 1) return { _tag: "Failed", reason: "ambiguous", index }
    spans.push({ start: found[0]!, end: found[0]! + needle.length, bytes: encoder.encode(edit.newText), index })
  }
  spans.sort((a, b) => a.start - b.start)
  for (let i = 1; i < spans.length; i++) {
    if (spans[i]!.start < spans[i - 1]!.end) return { _tag: "Failed", reason: "overlap", index: spans[i]!.index }
  }
  const parts: Array<Uint8Array> = []
  let cursor = 0
  for (const span of spans) {
    parts.push(haystack.subarray(cursor, span.start), span.bytes)
    cursor = span.end
  }
  parts.push(haystack.subarray(cursor))
  const result = Buffer.concat(parts)
  if (result.equals(haystack)) return { _tag: "Failed", reason: "no-change", index: 0 }
  return { _tag: "Applied", bytes: result }
}
