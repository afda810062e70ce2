/** Each counting limit at, below and above its edge, with multi-byte text. */
import { describe, expect, it } from "vitest"
import {
  BACKFILL_MAX_LINES,
  BACKFILL_MAX_UNITS,
  INDEX_LINE_MAX_CHARS,
  INDEX_MAX_LINES,
  INDEX_MAX_UNITS,
  INDEX_TRUNCATION_WARNING,
  RECALL_MAX_BYTES,
  RECALL_MAX_LINES
} from "../../src/limits.ts"
import { buildBackfillIndex, fitLines, indexLine, isLinkable, trimIndex } from "../../src/memory/memoryIndex.ts"
import { recallTruncationNote, recallWindow } from "../../src/memory/topicWindow.ts"

/** `n` lines of mixed multi-byte text whose joined length (with \n between) is exactly `units` UTF-16 units. */
const linesOfUnits = (n: number, units: number): Array<string> => {
  const per = Math.floor((units - (n - 1)) / n)
  const lines: Array<string> = []
  const pieces = ["😀", "项", "e\u0301", "a"]
  for (let i = 0; i < n; i++) {
    let line = ""
    let k = i
    while (line.length + 2 <= per) line += pieces[k++ % pieces.length]
    lines.push(line)
  }
  // Top up the last line to the exact total with single-unit CJK.
  const short = units - lines.join("\n").length
  lines[n - 1] += "项".repeat(short)
  expect(lines.join("\n").length).toBe(units)
  return lines
}

const isWellFormed = (s: string): boolean => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s)

describe("trimIndex: 200 lines / 25,000 UTF-16 units", () => {
  it("keeps 200 lines untouched", () => {
    const lines = Array.from({ length: INDEX_MAX_LINES }, (_, i) => `- [项目 ${i} 😀](t${i}.md)`)
    const w = trimIndex(lines.join("\n"))
    expect(w).toMatchObject({ lines: 200, truncated: false })
    expect(w.text).toBe(lines.join("\n"))
    expect(w.text).not.toContain(INDEX_TRUNCATION_WARNING)
  })

  it("cuts 201 lines to 200 and appends the warning", () => {
    const lines = Array.from({ length: INDEX_MAX_LINES + 1 }, (_, i) => `- [项目 ${i}](t${i}.md)`)
    const w = trimIndex(lines.join("\n"))
    expect(w).toMatchObject({ lines: 200, truncated: true })
    expect(w.text.startsWith(`${lines.slice(0, 200).join("\n")}\n`)).toBe(true)
    expect(w.text).not.toContain(lines[200])
    expect(w.text.split("\n").at(-1)).toContain(INDEX_TRUNCATION_WARNING)
    expect(w.chars).toBe(lines.slice(0, 200).join("\n").length)
  })

  it("keeps exactly 25,000 units of emoji, CJK and combining marks", () => {
    const lines = linesOfUnits(120, INDEX_MAX_UNITS)
    const w = trimIndex(lines.join("\n"))
    expect(w).toMatchObject({ lines: 120, chars: INDEX_MAX_UNITS, truncated: false })
  })

  it("cuts at the last whole line when 25,001 units arrive first, never splitting an emoji", () => {
    const lines = linesOfUnits(120, INDEX_MAX_UNITS)
    lines[119] += "😀" // 25,002 units
    const w = trimIndex(lines.join("\n"))
    expect(w).toMatchObject({ lines: 119, truncated: true })
    const body = w.text.slice(0, w.chars)
    expect(body).toBe(lines.slice(0, 119).join("\n"))
    expect(isWellFormed(w.text)).toBe(true)
    expect(w.text.endsWith(".")).toBe(true)
    expect(w.text).toContain(INDEX_TRUNCATION_WARNING)
  })

  it("applies whichever limit is reached first", () => {
    // Many short lines: the line limit; few long lines: the unit limit.
    expect(trimIndex("x\n".repeat(300)).lines).toBe(200)
    const long = Array.from({ length: 150 }, () => "项".repeat(199))
    const w = trimIndex(long.join("\n"))
    expect(w.lines).toBe(Math.floor((INDEX_MAX_UNITS + 1) / 200))
    expect(w.truncated).toBe(true)
  })

  it("trims blank space, a BOM and CRLF before counting", () => {
    const w = trimIndex(`\uFEFF\r\n\r\n${"- [a](a.md)\r\n".repeat(INDEX_MAX_LINES)}\r\n\r\n`)
    expect(w).toMatchObject({ lines: 200, truncated: false })
    expect(w.text).not.toContain("\r")
    expect(trimIndex("  \n\n ")).toEqual({ text: "", lines: 0, chars: 0, truncated: false })
  })

  it("yields only the warning when the first line alone is over the window", () => {
    const w = trimIndex("项".repeat(INDEX_MAX_UNITS + 1))
    expect(w).toMatchObject({ lines: 0, chars: 0, truncated: true })
    expect(w.text.trim().startsWith(INDEX_TRUNCATION_WARNING)).toBe(true)
  })
})

describe("backfill window: 160 lines / 20,000 units", () => {
  it("fitLines keeps 160 lines and cuts the 161st", () => {
    const lines = Array.from({ length: 161 }, (_, i) => `l${i}`)
    expect(fitLines(lines.slice(0, 160), BACKFILL_MAX_LINES, BACKFILL_MAX_UNITS)).toEqual({ kept: lines.slice(0, 160), truncated: false })
    expect(fitLines(lines, BACKFILL_MAX_LINES, BACKFILL_MAX_UNITS)).toEqual({ kept: lines.slice(0, 160), truncated: true })
  })

  it("fitLines keeps exactly 20,000 multi-byte units and cuts at 20,001", () => {
    const lines = linesOfUnits(140, BACKFILL_MAX_UNITS)
    expect(fitLines(lines, BACKFILL_MAX_LINES, BACKFILL_MAX_UNITS).truncated).toBe(false)
    const over = [...lines.slice(0, 139), `${lines[139]}a`]
    expect(fitLines(over, BACKFILL_MAX_LINES, BACKFILL_MAX_UNITS)).toEqual({ kept: lines.slice(0, 139), truncated: true })
  })

  const entries = (n: number, description?: (i: number) => string) =>
    Array.from({ length: n }, (_, i) => ({ filename: `t${i}.md`, title: `T${i}`, description: description?.(i) }))

  it("writes one line per topic up to 160", () => {
    expect(buildBackfillIndex(entries(160)).trimEnd().split("\n")).toHaveLength(160)
    const text = buildBackfillIndex(entries(161))
    expect(text.trimEnd().split("\n")).toHaveLength(160)
    expect(text).not.toContain("(t160.md)")
  })

  it("stays within 20,000 units when lines are long, keeping whole lines", () => {
    const text = buildBackfillIndex(entries(160, (i) => `${i} ${"😀项e\u0301".repeat(60)}`))
    const body = text.replace(/\n$/, "")
    expect(body.length).toBeLessThanOrEqual(BACKFILL_MAX_UNITS)
    expect(body.length).toBeGreaterThan(BACKFILL_MAX_UNITS - INDEX_LINE_MAX_CHARS - 1)
    const lines = body.split("\n")
    expect(lines.length).toBeLessThan(160)
    lines.forEach((line, i) => expect(line.startsWith(`- [T${i}](t${i}.md) - ${i} `)).toBe(true))
    expect(isWellFormed(text)).toBe(true)
  })

  it("leaves out names that cannot be linked safely and yields nothing without topics", () => {
    expect(isLinkable("a]b.md")).toBe(false)
    expect(isLinkable("a\nb.md")).toBe(false)
    expect(isLinkable("/abs.md")).toBe(false)
    expect(isLinkable("sub/ok.md")).toBe(true)
    expect(buildBackfillIndex([{ filename: "a]b.md", title: "x", description: undefined }])).toBe("")
    expect(buildBackfillIndex([])).toBe("")
  })
})

describe("index line: 150 characters", () => {
  it("keeps a short line as is, with spaces and parentheses in the target encoded", () => {
    expect(indexLine({ filename: "my notes (old).md", title: "Notes", description: "the old ones" })).toBe(
      "- [Notes](my%20notes%20%28old%29.md) - the old ones"
    )
    expect(indexLine({ filename: "a.md", title: "A", description: undefined })).toBe("- [A](a.md)")
  })

  it("cuts a long hook to exactly 150 characters with an ellipsis", () => {
    const line = indexLine({ filename: "a.md", title: "A", description: "项".repeat(400) })
    expect(line.length).toBe(INDEX_LINE_MAX_CHARS)
    expect(line.endsWith("…")).toBe(true)
    const fits = indexLine({ filename: "a.md", title: "A", description: "项".repeat(INDEX_LINE_MAX_CHARS - "- [A](a.md) - ".length) })
    expect(fits.length).toBe(INDEX_LINE_MAX_CHARS)
    expect(fits.endsWith("…")).toBe(false)
  })

  it("shortens a long title so the link line stays within 150 characters", () => {
    const line = indexLine({ filename: "a.md", title: "项".repeat(300), description: "hook" })
    expect(line.length).toBeLessThanOrEqual(INDEX_LINE_MAX_CHARS)
    expect(line).toMatch(/^- \[项+…\]\(a\.md\)$/)
    const emojiTitle = indexLine({ filename: "a.md", title: "😀".repeat(300), description: undefined })
    expect(emojiTitle.length).toBeLessThanOrEqual(INDEX_LINE_MAX_CHARS)
    expect(isWellFormed(emojiTitle)).toBe(true)
  })

  it("never cuts an emoji in half, whatever the parity of the head", () => {
    for (const title of ["A", "AB", "ABC", "ABCD"]) {
      const line = indexLine({ filename: "a.md", title, description: "😀".repeat(200) })
      expect(line.length).toBeLessThanOrEqual(INDEX_LINE_MAX_CHARS)
      expect(isWellFormed(line), title).toBe(true)
      expect(Buffer.from(line, "utf8").toString("utf8")).toBe(line)
    }
  })
})

describe("recallWindow: 200 lines / 4,096 UTF-8 bytes, whole lines", () => {
  const enc = (s: string): Uint8Array => Buffer.from(s, "utf8")

  /** Lines of 4-byte emoji, 3-byte CJK and 2+1-byte combining text; the kept text (without the last \n) is `bytes`. */
  const textOfBytes = (bytes: number): string => {
    let s = ""
    const pieces = ["😀", "项", "é", "e\u0301"]
    let i = 0
    while (Buffer.byteLength(s) + 50 < bytes) {
      s += pieces[i++ % pieces.length]
      if (i % 20 === 0) s += "\n"
    }
    s += "a".repeat(bytes - Buffer.byteLength(s))
    expect(Buffer.byteLength(s)).toBe(bytes)
    return s
  }

  it("keeps 200 lines and stops at the 201st", () => {
    const at = recallWindow(enc("项\n".repeat(RECALL_MAX_LINES)))
    expect(at).toMatchObject({ keptLines: 200, truncated: false })
    const over = recallWindow(enc("项\n".repeat(RECALL_MAX_LINES + 1)))
    expect(over).toMatchObject({ keptLines: 200, truncated: true })
    expect(over.text).toBe("项\n".repeat(200).slice(0, -1))
  })

  it("keeps exactly 4,096 bytes of multi-byte text", () => {
    const text = textOfBytes(RECALL_MAX_BYTES)
    const w = recallWindow(enc(`${text}\n`))
    expect(w.truncated).toBe(false)
    expect(w.text).toBe(text)
  })

  it("drops the whole last line at 4,097 bytes and never cuts a character", () => {
    for (const extra of ["a", "😀", "项", "\u0301"]) {
      const text = textOfBytes(RECALL_MAX_BYTES) + extra
      const w = recallWindow(enc(text))
      expect(w.truncated).toBe(true)
      expect(text.startsWith(w.text)).toBe(true)
      expect(text.slice(w.text.length, w.text.length + 1)).toBe("\n")
      expect(w.text).not.toContain("\uFFFD")
      expect(Buffer.byteLength(w.text)).toBeLessThanOrEqual(RECALL_MAX_BYTES)
    }
  })

  it("yields nothing when the first line alone is over 4,096 bytes", () => {
    const line = "😀".repeat(1024) + "a"
    expect(Buffer.byteLength(line)).toBe(RECALL_MAX_BYTES + 1)
    const w = recallWindow(enc(`${line}\nsecond line\n`))
    expect(w).toMatchObject({ text: "", keptLines: 0, truncated: true })
  })

  it("keeps a first line of exactly 4,096 bytes", () => {
    const line = "😀".repeat(1024)
    const w = recallWindow(enc(line))
    expect(w).toMatchObject({ text: line, keptLines: 1, truncated: false })
  })

  it("marks the window truncated when the caller read only part of the file", () => {
    expect(recallWindow(enc("short\n"), true).truncated).toBe(true)
  })

  it("decodes invalid UTF-8 with replacement but keeps NUL-bearing lines", () => {
    const w = recallWindow(new Uint8Array([0x61, 0x00, 0x62, 0x0a, 0xff, 0x0a]))
    expect(w.text).toBe("a\u0000b\n\uFFFD")
  })

  it("has a truncation note naming the kept lines and the limits", () => {
    const w = recallWindow(enc("x\n".repeat(300)))
    const note = recallTruncationNote(w, "/m/a.md")
    expect(note).toContain("200 lines")
    expect(note).toContain(`${RECALL_MAX_BYTES} bytes`)
    expect(note).toContain("/m/a.md")
  })
})
