/**
 * MEMORY.md merged line by line when both machines changed it, so that no line is lost: every line either side
 * added is kept, a line either side removed (present in their common base, gone from that side) stays removed, and
 * two lines that link the same file are one (ours kept). Our lines come first in our order, then the other side's
 * new lines in theirs. Pure. `mergeIndexBytes` does the same on the files' bytes, each byte one character both ways,
 * so a line keeps its bytes whatever its encoding (CRLF, a BOM, invalid UTF-8): only whole lines move.
 */

const LINK = /\]\(([^)\s]+)\)/

/** The file a line links, if any (the dedup key); else the line itself. */
const keyOf = (line: string): string => LINK.exec(line)?.[1] ?? `line:${line.trim()}`

const linesOf = (text: string): Array<string> => text.split("\n").filter((l) => l.trim() !== "")

export const mergeIndex = (base: string, ours: string, theirs: string): string => {
  const baseKeys = new Set(linesOf(base).map(keyOf))
  const ourLines = linesOf(ours)
  const theirLines = linesOf(theirs)
  const ourKeys = new Set(ourLines.map(keyOf))
  const theirKeys = new Set(theirLines.map(keyOf))
  const out: Array<string> = []
  const seen = new Set<string>()
  for (const line of ourLines) {
    const key = keyOf(line)
    // Removed on their side (it was in the base, they no longer have it): gone.
    if (baseKeys.has(key) && !theirKeys.has(key)) continue
    if (seen.has(key)) continue
    seen.add(key)
    out.push(line)
  }
  for (const line of theirLines) {
    const key = keyOf(line)
    if (seen.has(key)) continue
    // Removed on our side: gone.
    if (baseKeys.has(key) && !ourKeys.has(key)) continue
    seen.add(key)
    out.push(line)
  }
  return out.length === 0 ? "" : `${out.join("\n")}\n`
}

/** `mergeIndex` over the three files' bytes, byte for byte (latin1 maps every byte to one character and back). */
export const mergeIndexBytes = (base: Uint8Array, ours: Uint8Array, theirs: Uint8Array): Uint8Array => {
  const text = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1")
  return new Uint8Array(Buffer.from(mergeIndex(text(base), text(ours), text(theirs)), "latin1"))
}
