/**
 * A background change on bytes (src/writes/byteEdits.ts): the runs a decoder turns into U+FFFD, an edit matched and
 * applied on bytes, and a whole-file write that keeps the bytes of the parts it leaves as the model saw them or is
 * refused with the line of the bytes it would replace.
 */
import { describe, expect, it } from "vitest"
import { applyByteEdits, illFormedRuns, spliceText } from "../../src/writes/byteEdits.ts"
import { applyEdits } from "../../src/writes/readBaseline.ts"

const b = (...parts: ReadonlyArray<string | ReadonlyArray<number> | Uint8Array>): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))))
const seen = (bytes: Uint8Array): string => new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes)

const BAD = [0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]

/** A small deterministic generator, so a failure names its seed. */
const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x80000000
}

describe("illFormedRuns", () => {
  it("each run is what the decoder turns into one U+FFFD (random bytes, 2,000 cases)", () => {
    const next = random(7)
    const alphabet = [0x41, 0x0a, 0x80, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xff, 0xbd]
    for (let n = 0; n < 2_000; n++) {
      const bytes = Uint8Array.from({ length: Math.floor(next() * 24) }, () => alphabet[Math.floor(next() * alphabet.length)]!)
      let rebuilt = ""
      let at = 0
      for (const run of illFormedRuns(bytes)) {
        rebuilt += `${seen(bytes.subarray(at, run.start))}\uFFFD`
        at = run.end
      }
      rebuilt += seen(bytes.subarray(at))
      expect(rebuilt, `case ${n}: ${Buffer.from(bytes).toString("hex")}`).toBe(seen(bytes))
    }
  })

  it("valid UTF-8 (a BOM, four-byte characters, U+FFFD itself) has none", () => {
    expect(illFormedRuns(b([0xef, 0xbb, 0xbf], "a é € 😀 \uFFFD"))).toEqual([])
  })
})

describe("applyByteEdits", () => {
  it("replaces only the matched bytes: the rest of the file keeps its bytes, not UTF-8 included", () => {
    const file = b("line one ", BAD, "\r\nalpha beta\n", [0], "\n")
    const out = applyByteEdits(file, [{ oldText: "alpha", newText: "ALPHA" }])
    expect(out._tag).toBe("Applied")
    if (out._tag === "Applied") expect(Buffer.from(out.bytes).equals(b("line one ", BAD, "\r\nALPHA beta\n", [0], "\n"))).toBe(true)
  })

  it("follows applyEdits' rules (empty, not found, twice, overlap, no change)", () => {
    const file = b("a b b abc")
    for (
      const edits of [
        [{ oldText: "", newText: "x" }],
        [{ oldText: "z", newText: "x" }],
        [{ oldText: "b", newText: "x" }],
        [{ oldText: "ab", newText: "x" }, { oldText: "bc", newText: "y" }],
        [{ oldText: "abc", newText: "abc" }],
        [{ oldText: "a b", newText: "A" }, { oldText: "abc", newText: "C" }]
      ]
    ) {
      const text = applyEdits(file.toString(), edits)
      const bytes = applyByteEdits(file, edits)
      if (text._tag === "Failed") expect(bytes).toEqual(text)
      else expect(bytes._tag === "Applied" && Buffer.from(bytes.bytes).toString()).toBe(text.content)
    }
  })

  it("an oldText holding U+FFFD where the file holds bytes that are not UTF-8 fails as undecodable", () => {
    const file = b("x ", BAD, " y\n")
    const oldText = seen(file).slice(0, 4)
    expect(oldText).toContain("\uFFFD")
    expect(applyByteEdits(file, [{ oldText, newText: "z" }])).toEqual({ _tag: "Failed", reason: "undecodable", index: 0 })
    // In a valid file, a U+FFFD that is not there is simply not found.
    expect(applyByteEdits(b("x y\n"), [{ oldText: "\uFFFD", newText: "z" }])).toMatchObject({ reason: "not-found" })
  })
})

describe("spliceText", () => {
  it("valid UTF-8: exactly the text's bytes", () => {
    expect(spliceText(b("old\r\n"), "new\n")).toEqual({ _tag: "Spliced", bytes: new TextEncoder().encode("new\n") })
  })

  it("keeps the bytes that are not UTF-8 in the parts the text leaves as the model saw them", () => {
    const file = b("head ", BAD, "\nmiddle line\ntail ", [0xfe], "\n")
    const text = seen(file).replace("middle line", "a changed middle")
    const out = spliceText(file, text)
    expect(out._tag).toBe("Spliced")
    if (out._tag === "Spliced") expect(Buffer.from(out.bytes).equals(b("head ", BAD, "\na changed middle\ntail ", [0xfe], "\n"))).toBe(true)
  })

  it("refuses a text that replaces bytes that are not UTF-8, naming their line", () => {
    const file = b("one\ntwo ", BAD, "\nthree\n")
    expect(spliceText(file, "one\ntwo fixed\nthree\n")).toEqual({ _tag: "Undecodable", line: 2 })
    // A change on both sides of them makes one part that holds them: refused too.
    expect(spliceText(file, seen(file).replace("one", "ONE").replace("three", "THREE"))).toEqual({ _tag: "Undecodable", line: 2 })
    // Changes before and after them are one part holding them, even when the text keeps their U+FFFD: refused (an
    // edit changes each place alone).
    expect(seen(b("two ", BAD, "\n"))).toBe("two \uFFFD\uFFFD(\uFFFD\uFFFD\uFFFD\n")
    expect(spliceText(file, "two \uFFFD\uFFFD(\uFFFD\uFFFD\uFFFD\n")).toEqual({ _tag: "Undecodable", line: 2 })
  })

  it("keeps a leading BOM the text lacks, and the text's own BOM when it has one", () => {
    const file = b([0xef, 0xbb, 0xbf], "x ", [0xff], "\nold\n")
    const out = spliceText(file, "x \uFFFD\nnew\n")
    expect(out._tag === "Spliced" && Buffer.from(out.bytes).equals(b([0xef, 0xbb, 0xbf], "x ", [0xff], "\nnew\n"))).toBe(true)
    const same = spliceText(file, "\uFEFFx \uFFFD\nnew\n")
    expect(same).toEqual(out)
    expect(spliceText(b([0xef, 0xbb, 0xbf], "a"), "b")).toEqual({ _tag: "Spliced", bytes: new Uint8Array(b([0xef, 0xbb, 0xbf], "b")) })
  })

  it("an unchanged text gives the very same bytes; dropping a run that is not UTF-8 is refused", () => {
    const file = b("a", [0xff], "a", [0xff], "a")
    expect(spliceText(file, seen(file))).toEqual({ _tag: "Spliced", bytes: file })
    // The start and the end it shares with the file never overlap: what is left between them holds one 0xFF.
    expect(spliceText(file, "a\uFFFDa")).toEqual({ _tag: "Undecodable", line: 1 })
    expect(spliceText(file, "a\uFFFDa\uFFFDa!")).toEqual({ _tag: "Spliced", bytes: b(file, "!") })
  })
})
