/**
 * What keeps an extraction's tokens down: the task ends once its writes landed and the index links every topic it
 * wrote (no call for a summary), and a read of the index the fork already holds answers with a pointer and the lines
 * added since, at most HELD_INDEX_MAX_ADDED_SHARE of the file; the held index is the section in effect in the prefix.
 */
import type { Message } from "@earendil-works/pi-ai"
import { describe, expect, it } from "vitest"
import { batchMayComplete, indexLinksWritten } from "../../src/background/extractionComplete.ts"
import { indexInPrefix } from "../../src/background/knownIndex.ts"
import { HELD_INDEX_MAX_ADDED_SHARE } from "../../src/limits.ts"
import { heldTextAnswer } from "../../layers/background/tools/read.ts"

const DIR = "/m"
const INDEX = "- [A](a.md) - a\n- [B](b.md) - b\n"
const write = { name: "write", isError: false }
const edit = { name: "edit", isError: false }

describe("an extraction's work is complete", () => {
  const index = `${INDEX}- [C](c.md) - c\n`
  const wroteC = [{ op: "write" as const, path: "/m/c.md" }, { op: "edit" as const, path: "/m/MEMORY.md" }]
  const complete = (batch: ReadonlyArray<{ name: string; isError: boolean }>, changes: typeof wroteC, changedInBatch: number, now: string | undefined) =>
    batchMayComplete(batch, changedInBatch) && now !== undefined && indexLinksWritten(changes, DIR, now)

  it("after a batch of writes and edits that landed, when the index links every topic the task wrote", () => {
    expect(complete([write, edit], wroteC, 2, index)).toBe(true)
  })
  it("not while a topic it wrote is missing from the index", () => {
    expect(indexLinksWritten([wroteC[0]!], DIR, INDEX)).toBe(false)
    expect(complete([write], [wroteC[0]!], 1, INDEX)).toBe(false)
  })
  it("not when a call of the batch failed, read or ran a command", () => {
    expect(batchMayComplete([write, { name: "edit", isError: true }], 1)).toBe(false)
    expect(batchMayComplete([write, edit, { name: "read", isError: false }], 2)).toBe(false)
    expect(batchMayComplete([write, edit, { name: "bash", isError: false }], 2)).toBe(false)
  })
  it("not when the batch changed nothing (a write held for review), or there was no batch", () => {
    expect(batchMayComplete([write], 0)).toBe(false)
    expect(batchMayComplete([], 0)).toBe(false)
  })
  it("a topic deleted earlier in the task is not asked for in the index", () => {
    const changes = [{ op: "write" as const, path: "/m/old.md" }, { op: "delete" as const, path: "/m/old.md" }, ...wroteC]
    expect(indexLinksWritten(changes, DIR, index)).toBe(true)
  })
})

describe("a read of the index the fork already holds", () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `- [T${i}](t${i}.md) - topic ${i}`).join("\n") + "\n"
  const bytes = (text: string) => Buffer.from(text, "utf8")

  it("word for word: a pointer, no line of it", () => {
    const answer = heldTextAnswer("/m/MEMORY.md", bytes(INDEX), INDEX.trimEnd())
    expect(answer).toContain("/m/MEMORY.md (2 lines) is the memory index already in your instructions")
    expect(answer).toContain("word for word")
    expect(answer).not.toContain("[A](a.md)")
  })
  it("with lines added: the pointer and each added line with the line it follows", () => {
    const held = INDEX + lines(6)
    const now = `- [N](n.md) - new\n${held.replace("- [B]", "- [M](m.md) - mid\n- [B]")}`
    const answer = heldTextAnswer("/m/MEMORY.md", bytes(now), held)!
    expect(answer).toContain("with 2 lines added since")
    expect(answer).toContain("- before its first line: - [N](n.md) - new")
    expect(answer).toContain("- after `- [A](a.md) - a`: - [M](m.md) - mid")
    expect(answer).not.toContain("- [B](b.md) - b\n")
  })
  it("a line changed or removed, bytes that are not UTF-8, or nothing held: read as usual", () => {
    expect(heldTextAnswer("/m/MEMORY.md", bytes(INDEX.replace("- b", "- bee")), INDEX)).toBeUndefined()
    expect(heldTextAnswer("/m/MEMORY.md", bytes("- [A](a.md) - a\n"), INDEX)).toBeUndefined()
    expect(heldTextAnswer("/m/MEMORY.md", Buffer.concat([bytes(INDEX), Buffer.from([0xff])]), INDEX)).toBeUndefined()
    expect(heldTextAnswer("/m/MEMORY.md", bytes(INDEX), undefined)).toBeUndefined()
  })
  it(`added lines up to ${HELD_INDEX_MAX_ADDED_SHARE} of the file's lines are listed; one more, the file is read whole`, () => {
    // 12 held lines: with 4 added (16 lines) the share is exactly 0.25; 5 added of 17 is over it.
    const held = lines(12)
    const withAdded = (k: number) => Array.from({ length: k }, (_, i) => `- [New ${i}](new-${i}.md) - n`).join("\n") + "\n" + held
    expect(heldTextAnswer("/m/MEMORY.md", bytes(withAdded(3)), held)).toContain("with 3 lines added since")
    expect(heldTextAnswer("/m/MEMORY.md", bytes(withAdded(4)), held)).toContain("with 4 lines added since")
    expect(heldTextAnswer("/m/MEMORY.md", bytes(withAdded(5)), held)).toBeUndefined()
  })
})

describe("the index a fork's prefix holds", () => {
  const system = (content: string, sections?: Record<string, string | null>): Message =>
    ({ role: "system", content, ...(sections === undefined ? {} : { sections }), timestamp: 0 }) as Message
  const user = { role: "user", content: "hi", timestamp: 0 } as Message

  it("is the section's text between its tags, from the leading prompt's sections or its text", () => {
    expect(indexInPrefix([system("base", { auto_memory_index: `<auto_memory_index>\n${INDEX.trimEnd()}\n</auto_memory_index>` }), user])).toBe(INDEX.trimEnd())
    expect(indexInPrefix([system(`base\n\n<auto_memory_index>\n${INDEX.trimEnd()}\n</auto_memory_index>`), user])).toBe(INDEX.trimEnd())
  })
  it("follows later patches: replaced, or removed (then none)", () => {
    const first = system("base", { auto_memory_index: "<auto_memory_index>\n- [A](a.md)\n</auto_memory_index>" })
    expect(indexInPrefix([first, user, system("", { auto_memory_index: "<auto_memory_index>\n- [B](b.md)\n</auto_memory_index>" })])).toBe("- [B](b.md)")
    expect(indexInPrefix([first, user, system("", { auto_memory_index: null })])).toBeUndefined()
  })
  it("is undefined when no system message carries it", () => {
    expect(indexInPrefix([system("base"), user])).toBeUndefined()
    expect(indexInPrefix([user])).toBeUndefined()
  })
})
