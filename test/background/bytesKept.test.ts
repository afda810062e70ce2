/**
 * A background task's write and edit of a memory file whose bytes are not all UTF-8 (Pi's read, edit and write tools
 * underneath, the real writer, real files): an edit replaces only the bytes it matched, so other lines keep theirs; a
 * change that would replace such bytes is refused with the reason and the file is left as it was; a whole-file write
 * that leaves them as the model saw them keeps them.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { exec, setupTaskTools, text } from "../support/taskTools.ts"

const b = (...parts: ReadonlyArray<string | ReadonlyArray<number> | Uint8Array>): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))))

const HEADER = "---\nname: odd\ndescription: a topic holding odd bytes\nmetadata:\n  type: project\n---\n"
/** A lone 0xFF, a cut two-byte sequence, a UTF-16 surrogate encoded as UTF-8: each shown to the model as U+FFFD. */
const BAD = [0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]
const BOM = [0xef, 0xbb, 0xbf]

const oddTopic = () => b(BOM, HEADER.replaceAll("\n", "\r\n"), "first line ", BAD, "\r\n", "middle words\r\n", "last ", [0xfe], "\r\n")

const setupOdd = async () => {
  const s = await setupTaskTools()
  const path = join(s.memoryDir, "odd.md")
  writeFileSync(path, oddTopic())
  expect((await exec(s.tools, "read", { path })).isError).not.toBe(true)
  return { ...s, path }
}

describe("a background change of a file holding bytes that are not UTF-8", () => {
  it("edit replaces only the matched bytes: the BOM, CRLF and the bytes of other lines stay", async () => {
    const { tools, path } = await setupOdd()
    const r = await exec(tools, "edit", { path, edits: [{ oldText: "middle words", newText: "middle words, changed" }] })
    expect(r.isError, text(r)).not.toBe(true)
    expect(readFileSync(path).equals(Buffer.from(oddTopic().toString("latin1").replace("middle words", "middle words, changed"), "latin1")))
      .toBe(true)
  })

  it("an edit across lines (matched by Pi across CRLF, published as a whole-file write) keeps the other lines' bytes", async () => {
    const { tools, path } = await setupOdd()
    const r = await exec(tools, "edit", { path, edits: [{ oldText: "middle words\nlast", newText: "middle\nand last" }] })
    expect(r.isError, text(r)).not.toBe(true)
    const expected = oddTopic().toString("latin1").replace("middle words\r\nlast", "middle\r\nand last")
    expect(readFileSync(path).equals(Buffer.from(expected, "latin1"))).toBe(true)
  })

  it("an edit whose oldText covers them is refused with the reason, and the file is unchanged", async () => {
    const { tools, path } = await setupOdd()
    const shown = new TextDecoder().decode(oddTopic())
    const line = shown.split("\r\n").find((l) => l.startsWith("first line"))!
    expect(line).toContain("\uFFFD")
    const r = await exec(tools, "edit", { path, edits: [{ oldText: line, newText: "first line fixed" }] })
    expect(r.isError).toBe(true)
    expect(text(r)).toContain("holds U+FFFD where")
    expect(text(r)).toContain("bytes that are not valid UTF-8")
    expect(readFileSync(path).equals(oddTopic())).toBe(true)
  })

  it("a whole-file write that replaces them is refused, naming their line and telling the model to use edit", async () => {
    const { tools, path } = await setupOdd()
    const content = `${HEADER}first line fixed\nmiddle words\nlast\n`
    const r = await exec(tools, "write", { path, content })
    expect(r.isError).toBe(true)
    expect(text(r)).toContain("odd.md holds bytes that are not valid UTF-8 on line 7")
    expect(text(r)).toContain("Use edit to change only the text around them")
    expect(readFileSync(path).equals(oddTopic())).toBe(true)
  })

  it("a whole-file write that leaves them as the model saw them keeps their bytes", async () => {
    const { tools, path } = await setupOdd()
    // What the model saw, with one word changed between the two odd lines.
    const content = new TextDecoder().decode(oddTopic()).replace("middle words", "middle text")
    const r = await exec(tools, "write", { path, content })
    expect(r.isError, text(r)).not.toBe(true)
    expect(readFileSync(path).equals(Buffer.from(oddTopic().toString("latin1").replace("middle words", "middle text"), "latin1"))).toBe(true)
  })
})
