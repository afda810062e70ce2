/**
 * MEMORY.md as bytes, for the commands that rewrite it (forget, remember). A line is its bytes with its line end
 * (LF, CRLF, or a lone CR in a file that has no LF at all); a command touches only the lines it means to change, and
 * every other byte (bytes that are not UTF-8, CRLF, a BOM, NUL...) stays exactly as it was. A file too large to
 * rewrite is refused with a sentence, never cut. Pure.
 */
import { MEMORY_REWRITE_MAX_BYTES } from "../limits.ts"
import { indexLinkTargets } from "./lint.ts"
import { decodeTarget } from "./topicNames.ts"

const LF = 0x0a
const CR = 0x0d
const BOM = [0xef, 0xbb, 0xbf] as const
const encoder = new TextEncoder()
/** Lenient and BOM-keeping: only used to find a line's links, never to write. */
const decoder = new TextDecoder("utf-8", { ignoreBOM: true })

/** Why a file of `size` bytes is too large to rewrite (more than MEMORY_REWRITE_MAX_BYTES), or undefined. */
export const rewriteRefusal = (file: string, size: number, limit: number = MEMORY_REWRITE_MAX_BYTES): string | undefined =>
  size <= limit
    ? undefined
    : `${file} is ${size.toLocaleString("en-US")} bytes, more than the ${limit.toLocaleString("en-US")} a command rewrites; ` +
      "nothing was changed. Shorten it by hand (sessions load only its first 200 lines) and run the command again."

/** Where each line ends: the offset just after its line end (or the file's end for a last line without one). */
const lineEnds = (bytes: Uint8Array): Array<number> => {
  const ends: Array<number> = []
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const loneCr = !buffer.includes(LF)
  const sep = loneCr ? CR : LF
  for (let at = buffer.indexOf(sep); at !== -1; at = buffer.indexOf(sep, at + 1)) ends.push(at + 1)
  if (ends.length === 0 || ends[ends.length - 1] !== bytes.length) {
    if (bytes.length > 0) ends.push(bytes.length)
  }
  return ends
}

const LINK_OPEN = Buffer.from("](")

/**
 * The index without the lines that link any of `filenames` (their bytes and their line ends); every other byte kept.
 * A last line without a line end goes alone: the line end before it stays.
 */
export const removeIndexLinkLines = (
  bytes: Uint8Array,
  filenames: ReadonlyArray<string>
): { readonly bytes: Uint8Array; readonly removed: number } => {
  const gone = new Set(filenames)
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const kept: Array<Uint8Array> = []
  let removed = 0
  let keptFrom = 0
  let start = 0
  for (const end of lineEnds(bytes)) {
    const line = buffer.subarray(start, end)
    if (line.includes(LINK_OPEN) && indexLinkTargets(decoder.decode(line)).some((t) => gone.has(decodeTarget(t)))) {
      if (start > keptFrom) kept.push(buffer.subarray(keptFrom, start))
      keptFrom = end
      removed++
    }
    start = end
  }
  if (removed === 0) return { bytes, removed: 0 }
  if (keptFrom < bytes.length) kept.push(buffer.subarray(keptFrom))
  return { bytes: Buffer.concat(kept), removed }
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
