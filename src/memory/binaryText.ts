/**
 * Whether a file's bytes are not text a person can read in a terminal: a NUL, bytes that are not UTF-8, or control
 * characters (other than tab, newline, carriage return and form feed) in more than one byte of a hundred.
 * `pm show` and `/memory show` print a note instead of such a file: raw bytes would garble the terminal.
 */
import { grouped } from "./counts.ts"

export const isBinaryContent = (bytes: Uint8Array): boolean => {
  if (bytes.includes(0)) return true
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    // A file read with a cap may end inside a character: only the last three bytes may be cut.
    if (!validUtf8Prefix(bytes)) return true
  }
  let controls = 0
  for (const b of bytes) if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c) controls++
  return controls * 100 > bytes.length
}

const validUtf8Prefix = (bytes: Uint8Array): boolean => {
  for (let cut = 1; cut <= 3 && cut < bytes.length; cut++) {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, bytes.length - cut))
      return true
    } catch {
      // try a shorter prefix
    }
  }
  return false
}

/** What `pm show` and `/memory show` print instead of a file that is not text. */
export const binaryNote = (filename: string, sizeBytes: number): string =>
  `(not shown: ${filename} is not text, ${grouped(sizeBytes)} bytes; a topic file is Markdown. pm lint says what is wrong with it, pm forget ${filename} deletes it.)`
