/**
 * MEMORY.md as bytes, for the commands that rewrite it (forget, remember). A line is its bytes with its line end
 * (LF, CRLF, or a lone CR in a file that has no LF at all); a command touches only the lines it means to change, and
 * every other byte (bytes that are not UTF-8, CRLF, a BOM, NUL...) stays exactly as it was. A file too large to
 * rewrite is refused with a sentence, never cut. Pure.
 */
import { MEMORY_REWRITE_MAX_BYTES } from "../limits.ts"
import { indexLinkTargets } from "./indexLinks.ts"
import { decodeTarget } from "./topicNames.ts"
import { grouped } from "./counts.ts"

const LF = 0x0a
const CR = 0x0d
const BOM = [0xef, 0xbb, 0xbf] as const
const encoder = new TextEncoder()
const LINK_OPEN = Buffer.from("](")
/** Lenient and BOM-keeping: only used to find a line's links, never to write. */
const decoder = new TextDecoder("utf-8", { ignoreBOM: true })

/** Why a file of `size` bytes is too large to rewrite (more than MEMORY_REWRITE_MAX_BYTES), or undefined. */
export const rewriteRefusal = (file: string, size: number, limit: number = MEMORY_REWRITE_MAX_BYTES): string | undefined =>
  size <= limit
    ? undefined
    : `${file} is ${grouped(size)} bytes, more than the ${grouped(limit)} a command rewrites; ` +
      "nothing was changed. Shorten it by hand (sessions load only its first 200 lines) and run the command again."

/**
 * The line around byte `at`: from just after the line end before it to just after its own (the file's end for a last
 * line without one). A lone CR ends a line only in a file with no LF at all.
 */
const lineAround = (buffer: Buffer, at: number, sep: number): { readonly start: number; readonly end: number } => {
  const start = at === 0 ? 0 : buffer.lastIndexOf(sep, at - 1) + 1
  const next = buffer.indexOf(sep, at)
  return { start, end: next === -1 ? buffer.length : next + 1 }
}

const PERCENT = Buffer.from("%")

/**
 * The index without the lines that link any of `filenames` (their bytes and their line ends); every other byte kept.
 * A last line without a line end goes alone: the line end before it stays.
 *
 * Only the lines that could link one of them are decoded and parsed: a link whose target names a file holds that
 * file's name as it is, or a percent-escape (a name with a space is always escaped). A 50 MB index costs a few
 * native searches, not half a million parses.
 */
export const removeIndexLinkLines = (
  bytes: Uint8Array,
  filenames: ReadonlyArray<string>
): { readonly bytes: Uint8Array; readonly removed: number } => {
  const gone = new Set(filenames)
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const sep = buffer.includes(LF) ? LF : CR
  const candidates = new Map<number, number>()
  for (const needle of [...[...gone].map((f) => Buffer.from(f)), PERCENT]) {
    if (needle.length === 0) continue
    for (let at = buffer.indexOf(needle); at !== -1;) {
      const line = lineAround(buffer, at, sep)
      candidates.set(line.start, line.end)
      at = line.end >= buffer.length ? -1 : buffer.indexOf(needle, line.end)
    }
  }
  const removedLines = [...candidates.entries()]
    .filter(([start, end]) => {
      const line = buffer.subarray(start, end)
      return line.includes(LINK_OPEN) && indexLinkTargets(decoder.decode(line)).some((t) => gone.has(decodeTarget(t)))
    })
    .sort((a, b) => a[0] - b[0])
  if (removedLines.length === 0) return { bytes, removed: 0 }
  const kept: Array<Uint8Array> = []
  let keptFrom = 0
  for (const [start, end] of removedLines) {
    if (start > keptFrom) kept.push(buffer.subarray(keptFrom, start))
    keptFrom = end
  }
  if (keptFrom < buffer.length) kept.push(buffer.subarray(keptFrom))
  return { bytes: Buffer.concat(kept), removed: removedLines.length }
}

/** The line end the file uses last (CRLF, LF, or CR in a file without LF); LF for a file with none. */
const lineEndOf = (bytes: Uint8Array): Uint8Array => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const lf = buffer.lastIndexOf(LF)
  if (lf > 0 && buffer[lf - 1] === CR) return Uint8Array.of(CR, LF)
  if (lf === -1 && buffer.includes(CR)) return Uint8Array.of(CR)
  return Uint8Array.of(LF)
}

const isBomOnly = (bytes: Uint8Array): boolean => bytes.length === 3 && BOM.every((b, i) => bytes[i] === b)

/**
 * The index with `line` appended after its last byte, ended as the file ends its lines; a line end is added first
 * only when the file does not end with one (an empty file, or one holding only a BOM, needs none).
 */
export const appendIndexLine = (bytes: Uint8Array, line: string): Uint8Array => {
  const end = lineEndOf(bytes)
  const last = bytes[bytes.length - 1]
  const needsBreak = bytes.length > 0 && !isBomOnly(bytes) && last !== end[end.length - 1]
  return Buffer.concat([bytes, needsBreak ? end : new Uint8Array(), encoder.encode(line), end])
}
