import { describe, expect, it } from "vitest"
import { type BranchEntry, cursorFromBranch, CURSOR_ENTRY, decideExtraction, isSubstantialUserMessage, wordCount } from "../../src/background/cursor.ts"

let n = 0
const id = () => `e${++n}`
const user = (content: unknown): BranchEntry => ({ type: "message", id: id(), message: { role: "user", content } })
const assistant = (content: unknown = [{ type: "text", text: "ok" }]): BranchEntry => ({ type: "message", id: id(), message: { role: "assistant", content } })
const writeCall = (callId: string, path: string, name = "write") => assistant([{ type: "toolCall", id: callId, name, arguments: { path, content: "x" } }])
const result = (callId: string, isError: boolean): BranchEntry => ({ type: "message", id: id(), message: { role: "toolResult", toolCallId: callId, isError, content: [] } })
const inMemory = (p: string) => p.startsWith("/mem/")

describe("the three-word threshold", () => {
  it("splits on runs of whitespace and drops empty pieces", () => {
    expect(wordCount("  two\twords  ")).toBe(2)
    expect(wordCount("one two three")).toBe(3)
    expect(wordCount("")).toBe(0)
  })
  it("needs 3 words in one string or one text block, never merged", () => {
    expect(isSubstantialUserMessage({ role: "user", content: "fix the bug" })).toBe(true)
    expect(isSubstantialUserMessage({ role: "user", content: "fix it" })).toBe(false)
    expect(isSubstantialUserMessage({ role: "user", content: [{ type: "text", text: "fix the bug" }] })).toBe(true)
    expect(isSubstantialUserMessage({ role: "user", content: [{ type: "text", text: "fix the" }, { type: "text", text: "bug now" }] })).toBe(false)
    expect(isSubstantialUserMessage({ role: "user", content: [{ type: "text", text: "fix the bug" }, { type: "image" }] })).toBe(false)
    expect(isSubstantialUserMessage({ role: "assistant", content: "three words here" })).toBe(false)
  })
  it("skips and advances with 2 words, runs with 3", () => {
    const two = [user("fix it"), assistant()]
    expect(decideExtraction(two, undefined, inMemory)).toEqual({ _tag: "Skip", reason: "too-few-words", advanceTo: two[1]!.id })
    const three = [user("fix it now"), assistant()]
    expect(decideExtraction(three, undefined, inMemory)).toMatchObject({ _tag: "Run", advanceTo: three[1]!.id, entries: three })
  })
  it("looks only after the cursor", () => {
    const branch = [user("a long enough message"), assistant(), user("ok"), assistant()]
    expect(decideExtraction(branch, branch[1]!.id, inMemory)).toMatchObject({ _tag: "Skip", reason: "too-few-words" })
  })
})

describe("a main-agent write after the cursor", () => {
  it("a successful write into memory skips and advances", () => {
    const branch = [user("remember the deploy day"), writeCall("c1", "/mem/deploy.md"), result("c1", false), assistant()]
    expect(decideExtraction(branch, undefined, inMemory)).toEqual({ _tag: "Skip", reason: "main-agent-wrote", advanceTo: branch[3]!.id })
  })
  it("a successful edit counts too", () => {
    const branch = [user("remember the deploy day"), writeCall("c1", "/mem/deploy.md", "edit"), result("c1", false)]
    expect(decideExtraction(branch, undefined, inMemory)).toMatchObject({ _tag: "Skip", reason: "main-agent-wrote" })
  })
  it("a failed write, a write without a result and a write elsewhere do not", () => {
    const failed = [user("remember the deploy day"), writeCall("c1", "/mem/deploy.md"), result("c1", true)]
    expect(decideExtraction(failed, undefined, inMemory)._tag).toBe("Run")
    const pending = [user("remember the deploy day"), writeCall("c2", "/mem/deploy.md")]
    expect(decideExtraction(pending, undefined, inMemory)._tag).toBe("Run")
    const elsewhere = [user("remember the deploy day"), writeCall("c3", "/src/app.md"), result("c3", false)]
    expect(decideExtraction(elsewhere, undefined, inMemory)._tag).toBe("Run")
  })
  it("a write before the cursor does not", () => {
    const branch = [writeCall("c1", "/mem/deploy.md"), result("c1", false), user("and one more thing"), assistant()]
    expect(decideExtraction(branch, branch[1]!.id, inMemory)._tag).toBe("Run")
  })
})

describe("the cursor itself", () => {
  it("with nothing new after it, stays where it is", () => {
    const branch: Array<BranchEntry> = [user("a long enough message"), assistant(), { type: "custom", id: id(), customType: CURSOR_ENTRY }]
    expect(decideExtraction(branch, branch[1]!.id, inMemory)).toEqual({ _tag: "Skip", reason: "nothing-new", advanceTo: branch[1]!.id })
  })
  it("off the branch (another branch, compacted away): everything after the last compaction", () => {
    const branch: Array<BranchEntry> = [user("an old long message"), { type: "compaction", id: id() }, user("hi"), assistant()]
    expect(decideExtraction(branch, "elsewhere", inMemory)).toMatchObject({ _tag: "Skip", reason: "too-few-words" })
  })
  it("is read back from the last cursor entry on the branch", () => {
    const entries = [
      { type: "custom", id: id(), customType: CURSOR_ENTRY, data: { cursor: "a" } },
      { type: "custom", id: id(), customType: CURSOR_ENTRY, data: { cursor: "b" } },
      { type: "custom", id: id(), customType: "other", data: { cursor: "c" } }
    ]
    expect(cursorFromBranch(entries)).toBe("b")
    expect(cursorFromBranch([])).toBeUndefined()
  })
})
