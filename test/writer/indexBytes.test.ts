/**
 * MEMORY.md as bytes (src/memory/indexBytes.ts): forget removes exactly the lines that link the forgotten topics,
 * remember appends its line after the last byte, every other byte kept (not UTF-8, CRLF, a BOM, NUL); and the limits
 * a rewrite of memory has (the size a command rewrites, the journal's note on a previous content it cannot keep),
 * each at, below and above its edge.
 */
import { describe, expect, it } from "vitest"
import { MEMORY_REWRITE_MAX_BYTES } from "../../src/limits.ts"
import { appendIndexLine, removeIndexLinkLines, rewriteRefusal } from "../../src/memory/indexBytes.ts"
import { JOURNAL_MAX_CONTENT_BYTES, undoWindowNote } from "../../src/writes/journalPrune.ts"

const b = (...parts: ReadonlyArray<string | ReadonlyArray<number> | Uint8Array>): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))))

const BOM = [0xef, 0xbb, 0xbf]
const BAD = [0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80] // a lone 0xFF, a cut two-byte sequence, a UTF-16 surrogate

describe("removeIndexLinkLines", () => {
  it("removes exactly the lines linking the topics, with their line ends; every other byte stays", () => {
    const index = b(BOM, "# Memory\r\n", "- [A](a.md) - a\r\n", "- odd ", BAD, " [x](x.md)\n", [0], "\n", "- [B](my%20b.md) - b\n", "tail no newline")
    const out = removeIndexLinkLines(index, ["a.md", "my b.md"])
    expect(out.removed).toBe(2)
    expect(Buffer.from(out.bytes).equals(b(BOM, "# Memory\r\n", "- odd ", BAD, " [x](x.md)\n", [0], "\n", "tail no newline"))).toBe(true)
  })

  it("a line holding bytes that are not UTF-8 is found by its link and removed whole", () => {
    const index = b("- [A](a.md) - a\n", "- [X ", BAD, "](x.md) - ", BAD, "\n", "- [C](c.md)\n")
    const out = removeIndexLinkLines(index, ["x.md"])
    expect(out.removed).toBe(1)
    expect(Buffer.from(out.bytes).equals(b("- [A](a.md) - a\n", "- [C](c.md)\n"))).toBe(true)
  })

  it("a last line without a line end goes alone: the line end before it stays", () => {
    const out = removeIndexLinkLines(b("- [A](a.md)\n- [B](b.md)"), ["b.md"])
    expect(Buffer.from(out.bytes).toString()).toBe("- [A](a.md)\n")
  })

  it("in a file with no LF, a lone CR ends a line; in a file with LF it does not", () => {
    expect(Buffer.from(removeIndexLinkLines(b("- [A](a.md)\r- [B](b.md)\r"), ["a.md"]).bytes).toString()).toBe("- [B](b.md)\r")
    // With LF present, the CR is part of the line: the whole line goes.
    expect(Buffer.from(removeIndexLinkLines(b("- [A](a.md)\r- [B](b.md)\n- [C](c.md)\n"), ["a.md"]).bytes).toString()).toBe("- [C](c.md)\n")
  })

  it("a line that only holds the name (another topic's, a note) stays; every line linking it goes, escaped or not", () => {
    const index = b("- [Data](data.md) - about a.md\n- [A](a.md)\n- [A again](./%61.md) - a.md twice a.md\n- see a.md\n")
    const out = removeIndexLinkLines(index, ["a.md"])
    expect(out.removed).toBe(2)
    expect(Buffer.from(out.bytes).toString()).toBe("- [Data](data.md) - about a.md\n- see a.md\n")
  })

  it("nothing linked: the very same bytes", () => {
    const index = b("- [A](a.md)\n", BAD)
    const out = removeIndexLinkLines(index, ["zzz.md"])
    expect(out).toEqual({ bytes: index, removed: 0 })
  })
})

describe("appendIndexLine", () => {
  it("appends after the last byte, adding a line end first only when the file does not end with one", () => {
    expect(Buffer.from(appendIndexLine(b("- [A](a.md)\n"), "- [N](n.md)")).toString()).toBe("- [A](a.md)\n- [N](n.md)\n")
    expect(Buffer.from(appendIndexLine(b("- [A](a.md)"), "- [N](n.md)")).toString()).toBe("- [A](a.md)\n- [N](n.md)\n")
    expect(Buffer.from(appendIndexLine(b(""), "- [N](n.md)")).toString()).toBe("- [N](n.md)\n")
  })

  it("keeps bytes that are not UTF-8, NUL and a BOM, and ends the line as the file ends its lines", () => {
    const crlf = b(BOM, "# M\r\n", BAD, [0], "\r\n")
    expect(Buffer.from(appendIndexLine(crlf, "- [N](n.md)")).equals(b(crlf, "- [N](n.md)\r\n"))).toBe(true)
    const bomOnly = b(BOM)
    expect(Buffer.from(appendIndexLine(bomOnly, "- [N](n.md)")).equals(b(BOM, "- [N](n.md)\n"))).toBe(true)
    const cr = b("- [A](a.md)\r")
    expect(Buffer.from(appendIndexLine(cr, "- [N](n.md)")).toString()).toBe("- [A](a.md)\r- [N](n.md)\r")
    const endsBad = b("- [A](a.md)\n", BAD)
    expect(Buffer.from(appendIndexLine(endsBad, "- [N](n.md)")).equals(b(endsBad, "\n- [N](n.md)\n"))).toBe(true)
  })
})

describe("the size a command rewrites (MEMORY_REWRITE_MAX_BYTES)", () => {
  it("is 64 MiB: at the limit and below it a file is rewritten, one byte more is refused with a sentence", () => {
    expect(MEMORY_REWRITE_MAX_BYTES).toBe(64 * 1024 * 1024)
    expect(rewriteRefusal("MEMORY.md", MEMORY_REWRITE_MAX_BYTES - 1)).toBeUndefined()
    expect(rewriteRefusal("MEMORY.md", MEMORY_REWRITE_MAX_BYTES)).toBeUndefined()
    expect(rewriteRefusal("MEMORY.md", MEMORY_REWRITE_MAX_BYTES + 1)).toBe(
      "MEMORY.md is 67,108,865 bytes, more than the 67,108,864 a command rewrites; nothing was changed. " +
        "Shorten it by hand (sessions load only its first 200 lines) and run the command again."
    )
  })
})

describe("the note on a previous content larger than the journal keeps (JOURNAL_MAX_CONTENT_BYTES)", () => {
  it("nothing at the cap and below; above it, the person is told how long the change can be undone", () => {
    expect(undoWindowNote("MEMORY.md", JOURNAL_MAX_CONTENT_BYTES - 1)).toBeUndefined()
    expect(undoWindowNote("MEMORY.md", JOURNAL_MAX_CONTENT_BYTES)).toBeUndefined()
    expect(undoWindowNote("MEMORY.md", JOURNAL_MAX_CONTENT_BYTES + 1)).toBe(
      "MEMORY.md is 20,971,521 bytes, more than the 20,971,520 bytes of previous content the journal keeps: this change " +
        "can be undone until the next change of memory, and the changes made before it can no longer be undone."
    )
  })
})
