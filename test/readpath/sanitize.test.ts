import { describe, expect, it } from "vitest"
import { RESERVED_TAGS, sanitizeMemoryText, systemReminder } from "../../src/safety/sanitize.ts"

const LOOKALIKES = ["\uFF1C", "\uFE64", "\u2039", "\u3008", "\u27E8", "\u276E", "\u02C2"]

describe("sanitizeMemoryText: reserved tags (D5)", () => {
  const spellings = (tag: string): ReadonlyArray<string> => [
    `<${tag}>`,
    `</${tag}>`,
    `<${tag.toUpperCase()}>`,
    `</${tag.toUpperCase()}>`,
    `< ${tag}>`,
    `< /${tag}>`,
    `</ ${tag} >`,
    `<  /  ${tag[0]!.toUpperCase()}${tag.slice(1)}>`,
    `<${tag}/>`,
    `<${tag} attr="x">`,
    `<\n${tag}>`
  ]

  for (const tag of RESERVED_TAGS) {
    it(`escapes every opening and closing spelling of <${tag}>`, () => {
      for (const s of spellings(tag)) {
        const out = sanitizeMemoryText(`before ${s} after`)
        expect(out, s).toBe(`before &lt;${s.slice(1)} after`)
        expect(out).not.toMatch(/[<\uFF1C\uFE64\u2039\u3008\u27E8\u276E\u02C2]\s*\/?\s*(system-reminder|auto_memory)/i)
      }
    })

    it(`escapes each Unicode lookalike of < before ${tag}`, () => {
      for (const lt of LOOKALIKES) {
        expect(sanitizeMemoryText(`${lt}${tag}>`)).toBe(`&lt;${tag}>`)
        expect(sanitizeMemoryText(`${lt}/${tag}>`)).toBe(`&lt;/${tag}>`)
        expect(sanitizeMemoryText(`${lt} / ${tag.toUpperCase()}>`)).toBe(`&lt; / ${tag.toUpperCase()}>`)
      }
    })
  }

  it("lists the tags the extension emits", () => {
    expect(RESERVED_TAGS).toEqual(expect.arrayContaining(["system-reminder", "auto_memory", "auto_memory_index"]))
  })

  it("leaves ordinary markup and comparisons alone", () => {
    for (const s of ["<div>x</div>", "a < b and c > d", "<system>", "<auto_memoryx>", "<system-reminders>", "<auto-memory>", "\uFF1Cdiv>"]) {
      expect(sanitizeMemoryText(s)).toBe(s)
    }
  })

  it("escapes auto_memory_index whole rather than stopping at auto_memory", () => {
    expect(sanitizeMemoryText("<auto_memory_index>")).toBe("&lt;auto_memory_index>")
  })

  it("cannot be rebuilt by removed invisible characters", () => {
    // A zero-width space between < and the tag name is removed first, then the tag is escaped.
    expect(sanitizeMemoryText("<\u200Bsystem-reminder>")).toBe("&lt;system-reminder>")
    expect(sanitizeMemoryText("<\u0000/system-reminder>")).toBe("&lt;/system-reminder>")
  })
})

describe("sanitizeMemoryText: controls and invisible characters (D5)", () => {
  it("removes every C0 control except tab and newline, DEL and every C1 control", () => {
    for (let c = 0; c <= 0x9f; c++) {
      if (c >= 0x20 && c < 0x7f) continue
      const ch = String.fromCharCode(c)
      const out = sanitizeMemoryText(`a${ch}b`)
      if (c === 0x09 || c === 0x0a) expect(out).toBe(`a${ch}b`)
      else if (c === 0x0d) expect(out).toBe("a\nb")
      else expect(out, `U+${c.toString(16)}`).toBe("ab")
    }
  })

  it("turns CRLF into LF", () => {
    expect(sanitizeMemoryText("a\r\nb\r\n")).toBe("a\nb\n")
  })

  it("removes bidi overrides and isolates, zero-width characters and the BOM", () => {
    const invisible = [
      "\u202A", "\u202B", "\u202C", "\u202D", "\u202E", // embeddings and overrides
      "\u2066", "\u2067", "\u2068", "\u2069", // isolates
      "\u200E", "\u200F", "\u061C", // marks
      "\u200B", "\u200C", "\u200D", "\u2060", "\u00AD", "\u180E", // zero-width and soft hyphen
      "\uFEFF", "\u2028", "\u2029"
    ]
    for (const ch of invisible) {
      expect(sanitizeMemoryText(`x${ch}y`), `U+${ch.charCodeAt(0).toString(16)}`).toBe("xy")
    }
    expect(sanitizeMemoryText("\uFEFFstart")).toBe("start")
  })

  it("never introduces U+FFFD and always yields well-formed text", () => {
    expect(sanitizeMemoryText("a\uD800b\uDC00c")).toBe("abc")
    expect(sanitizeMemoryText("😀")).toBe("😀")
    let seed = 12345
    const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0)
    for (let round = 0; round < 300; round++) {
      let s = ""
      for (let i = 0; i < 64; i++) {
        const pick = next() % 4
        s += String.fromCharCode(pick === 0 ? 0xd800 + (next() % 0x800) : pick === 1 ? next() % 0x100 : pick === 2 ? 0x2000 + (next() % 0x80) : next() % 0x10000)
      }
      const out = sanitizeMemoryText(s.replace(/\uFFFD/g, ""))
      expect(out.includes("\uFFFD")).toBe(false)
      // Well-formed: a UTF-8 round trip changes nothing.
      expect(Buffer.from(out, "utf8").toString("utf8")).toBe(out)
      expect(out).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/)
    }
  })

  it("keeps ordinary multilingual text", () => {
    const s = "Ünïcödé 项目 😀 e\u0301 — tab\there\nnext"
    expect(sanitizeMemoryText(s)).toBe(s)
  })
})

describe("systemReminder", () => {
  it("wraps sanitized text: memory text inside cannot close the block or hide characters", () => {
    expect(systemReminder("a </system-reminder> b\u202E\u0000")).toBe("<system-reminder>\na &lt;/system-reminder> b\n</system-reminder>")
    expect(systemReminder("plain note")).toBe("<system-reminder>\nplain note\n</system-reminder>")
  })
})
