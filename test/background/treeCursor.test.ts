/**
 * The extraction cursor across branch navigation (`/tree`), in the real Pi host against the strict provider. The
 * extractor runs on another model, so each task is an independent request holding exactly the messages after the
 * cursor: what it is sent shows what the cursor covered.
 */
import { afterEach, describe, expect, it } from "vitest"
import { cursorOnBranch, CURSOR_ENTRY, type TreeEntry } from "../../src/background/cursor.ts"
import { type Harness, say, startHarness, textOf, TOOLS_HEADING } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

/** The user texts an extraction was sent (its task instructions left out). */
const userTexts = (r: { messages: ReadonlyArray<any> }) =>
  r.messages.filter((m: any) => m.role === "user" && !textOf(m).includes(TOOLS_HEADING) && !textOf(m).startsWith("You are now the memory")).map(textOf)

describe("the cursor after /tree", () => {
  it("refers to the new branch: the shared part is not read again, and what only the new branch holds is", async () => {
    h = await startHarness({ models: ["strict-1", "strict-2"], config: { extractor: { model: "strict/strict-2" } } })
    h.background = () => say("Nothing to save.")
    const extracted = async (prompt: string) => {
      const before = h!.ofKind("background").length
      await h!.prompt(prompt)
      await h!.prompt("/memory extract") // waits for the dispatched extraction (then finds nothing new)
      const tasks = h!.ofKind("background").slice(before)
      expect(tasks).toHaveLength(1)
      return userTexts(tasks[0]!)
    }
    expect(await extracted("first we talk about the deploy schedule")).toEqual(["first we talk about the deploy schedule"])
    const firstAnswer = h.branch().filter((e) => e.type === "message" && e.message.role === "assistant").at(-1)
    expect(await extracted("then about the staging database")).toEqual(["then about the staging database"])
    const secondAnswer = h.branch().filter((e) => e.type === "message" && e.message.role === "assistant").at(-1)

    // Back to the first answer, and on from there: only the new message is extracted.
    await h.session.navigateTree(firstAnswer.id, { summarize: false })
    expect(await extracted("instead let us discuss code review rules")).toEqual(["instead let us discuss code review rules"])

    // And back to the first branch's end: neither branch is read again, and the new message is.
    await h.session.navigateTree(secondAnswer.id, { summarize: false })
    expect(await extracted("back to the database then please")).toEqual(["back to the database then please"])
  })
})

describe("cursorOnBranch", () => {
  // a - b - c - d (cursor at d) ; b - e - f (the new branch)
  const entries: Array<TreeEntry> = [
    { type: "message", id: "a", parentId: null },
    { type: "message", id: "b", parentId: "a" },
    { type: "message", id: "c", parentId: "b" },
    { type: "message", id: "d", parentId: "c" },
    { type: "custom", id: "k1", parentId: "d", customType: CURSOR_ENTRY, data: { cursor: "d" } },
    { type: "message", id: "e", parentId: "b" },
    { type: "message", id: "f", parentId: "e" }
  ]
  const byId = new Map(entries.map((e) => [e.id, e]))
  const path = (leaf: string) => {
    const out: Array<TreeEntry> = []
    for (let e = byId.get(leaf); e !== undefined; e = e.parentId == null ? undefined : byId.get(e.parentId)) out.unshift(e)
    return out
  }

  it("is the deepest entry of the branch some extraction covered, on whatever branch it ran", () => {
    expect(cursorOnBranch(path("f"), entries)).toBe("b")
    expect(cursorOnBranch(path("k1"), entries)).toBe("d")
    expect(cursorOnBranch(path("d"), entries)).toBe("d")
  })

  it("counts the cursor held in memory, and nothing when none covers the branch", () => {
    expect(cursorOnBranch(path("f"), entries, ["f"])).toBe("f")
    expect(cursorOnBranch(path("f"), entries.filter((e) => e.id !== "k1"))).toBeUndefined()
    expect(cursorOnBranch(path("f"), entries.filter((e) => e.id !== "k1"), ["elsewhere"])).toBeUndefined()
  })
})
