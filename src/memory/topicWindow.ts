/** The part of a topic file that recall may inject: whole UTF-8 lines within 200 lines and 4,096 bytes. Pure. */
import { RECALL_MAX_BYTES, RECALL_MAX_LINES } from "../limits.ts"

export interface RecallWindow {
  readonly text: string
  readonly truncated: boolean
  /** Lines seen in the bytes given (a lower bound when the file continues past them). */
  readonly totalLines: number
  readonly keptLines: number
}

const NEWLINE = 0x0a

/**
 * Works on bytes so the limit is exact and no multi-byte character is cut. The limit applies to the injected text:
 * kept lines joined by their line breaks, so a line is kept only when the text up to its end stays within 4,096
 * bytes. A first line longer than that yields nothing. Decoding (UTF-8 with replacement, as Node does) happens only
 * on the kept bytes.
 */
export const recallWindow = (bytes: Uint8Array, fileContinues = false): RecallWindow => {
  let start = 0
  let textEnd = 0
  let kept = 0
  let total = 0
  let truncated = false
  while (start < bytes.length) {
    const nl = bytes.indexOf(NEWLINE, start)
    const contentEnd = nl === -1 ? bytes.length : nl
    total++
    if (!truncated) {
      if (kept >= RECALL_MAX_LINES || contentEnd > RECALL_MAX_BYTES) truncated = true
      else {
        kept++
        textEnd = contentEnd
      }
    }
    if (nl === -1) break
    start = nl + 1
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, textEnd).toString("utf8")
  return { text, truncated: truncated || fileContinues, totalLines: total, keptLines: kept }
}
export const recallTruncationNote = (w: RecallWindow, path: string): string =>
  `[Truncated: only the first ${w.keptLines} line${w.keptLines === 1 ? "" : "s"} of this memory were recalled (limit ${RECALL_MAX_LINES} lines or ${RECALL_MAX_BYTES} bytes). Read ${path} for the rest.]`
