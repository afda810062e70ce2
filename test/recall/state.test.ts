import { describe, expect, it } from "vitest"
import {
  budgetExhausted,
  budgetRemaining,
  emptyRecallState,
  isSuppressed,
  READ_ENTRY,
  rebuildRecallState,
  RECALL_ENTRY,
  withRead,
  withRecall,
  type EntryLike
} from "../../src/recall/recallState.ts"

const recall = (query: string, selected: Array<string>, budgetUsed: number): EntryLike => ({
  type: "custom",
  customType: RECALL_ENTRY,
  data: { query, selected, budgetUsed }
})
const read = (filename: string, mtimeMs: number): EntryLike => ({ type: "custom", customType: READ_ENTRY, data: { filename, mtimeMs } })
const message: EntryLike = { type: "message", data: { query: "not ours", selected: [], budgetUsed: 9 } }

describe("rebuildRecallState", () => {
  it("folds pm-recall and pm-read entries in order", () => {
    const s = rebuildRecallState([recall("q1", ["a.md"], 100), message, read("a.md", 5), recall("q2", [], 0), read("a.md", 7)])
    expect(s.history).toStrictEqual([
      { query: "q1", selected: ["a.md"] },
      { query: "q2", selected: [] }
    ])
    expect(s.budgetUsed).toBe(100)
    expect([...s.readSet]).toStrictEqual([["a.md", 7]])
  })

  it("keeps only entries after the last compaction", () => {
    const s = rebuildRecallState([
      recall("old", ["a.md"], 50_000),
      read("a.md", 1),
      { type: "compaction" },
      recall("mid", ["b.md"], 10),
      { type: "compaction" },
      recall("new", ["c.md"], 20),
      read("c.md", 3)
    ])
    expect(s.history).toStrictEqual([{ query: "new", selected: ["c.md"] }])
    expect(s.budgetUsed).toBe(20)
    expect([...s.readSet]).toStrictEqual([["c.md", 3]])
  })

  it("a compaction as the last entry resets everything", () => {
    expect(rebuildRecallState([recall("q", ["a.md"], 5), { type: "compaction" }])).toStrictEqual(emptyRecallState)
  })

  it("ignores other custom types and malformed data", () => {
    const s = rebuildRecallState([
      { type: "custom", customType: "other", data: { query: "q", selected: [], budgetUsed: 1 } },
      { type: "custom", customType: RECALL_ENTRY },
      { type: "custom", customType: RECALL_ENTRY, data: null },
      { type: "custom", customType: RECALL_ENTRY, data: { query: 1, selected: [], budgetUsed: 1 } },
      { type: "custom", customType: RECALL_ENTRY, data: { query: "q", selected: "a.md", budgetUsed: 1 } },
      { type: "custom", customType: RECALL_ENTRY, data: { query: "q", selected: [], budgetUsed: "1" } },
      { type: "custom", customType: READ_ENTRY, data: { filename: "a.md" } },
      { type: "custom", customType: READ_ENTRY, data: { filename: 3, mtimeMs: 1 } },
      { type: "custom", customType: READ_ENTRY, data: "a.md" },
      { type: "message", customType: RECALL_ENTRY, data: { query: "q", selected: [], budgetUsed: 1 } }
    ])
    expect(s).toStrictEqual(emptyRecallState)
  })

  it("an empty branch is the empty state", () => {
    expect(rebuildRecallState([])).toStrictEqual(emptyRecallState)
  })
})

describe("budget and suppression", () => {
  it("the budget is exhausted at 61,440, not at 61,439", () => {
    expect(budgetExhausted({ ...emptyRecallState, budgetUsed: 61_439 })).toBe(false)
    expect(budgetExhausted({ ...emptyRecallState, budgetUsed: 61_440 })).toBe(true)
    expect(budgetRemaining({ ...emptyRecallState, budgetUsed: 61_439 })).toBe(1)
    expect(budgetRemaining({ ...emptyRecallState, budgetUsed: 70_000 })).toBe(0)
  })

  it("withRecall accumulates; withRead replaces the mtime; the input state is not mutated", () => {
    const a = withRecall(emptyRecallState, { query: "q", selected: ["a.md"], budgetUsed: 10 })
    const b = withRecall(a, { query: "r", selected: [], budgetUsed: 5 })
    expect(b.budgetUsed).toBe(15)
    expect(a.history).toHaveLength(1)
    const c = withRead(b, { filename: "a.md", mtimeMs: 1 })
    const d = withRead(c, { filename: "a.md", mtimeMs: 2 })
    expect(c.readSet.get("a.md")).toBe(1)
    expect(d.readSet.get("a.md")).toBe(2)
    expect(emptyRecallState.readSet.size).toBe(0)
  })

  it("a file is suppressed only at the mtime it was read at", () => {
    const s = withRead(emptyRecallState, { filename: "a.md", mtimeMs: 1000 })
    expect(isSuppressed(s, "a.md", 1000)).toBe(true)
    expect(isSuppressed(s, "a.md", 1001)).toBe(false)
    expect(isSuppressed(s, "a.md", undefined)).toBe(false)
    expect(isSuppressed(s, "b.md", 1000)).toBe(false)
  })

  it("a file recall injected is suppressed at the mtime it was injected at, until a compaction; old entries suppress nothing", () => {
    const injected = (mtimes: unknown): EntryLike => ({ type: "custom", customType: RECALL_ENTRY, data: { query: "q", selected: ["a.md"], budgetUsed: 5, mtimes } })
    const s = rebuildRecallState([injected({ "a.md": 1000, "b.md": 2000 })])
    expect(isSuppressed(s, "a.md", 1000)).toBe(true)
    expect(isSuppressed(s, "a.md", 1001)).toBe(false)
    // Only what was injected: a name in mtimes but not in selected does not count.
    expect(isSuppressed(s, "b.md", 2000)).toBe(false)
    expect(isSuppressed(rebuildRecallState([injected({ "a.md": 1000 }), { type: "compaction" }]), "a.md", 1000)).toBe(false)
    expect(isSuppressed(rebuildRecallState([recall("q", ["a.md"], 5)]), "a.md", 1000)).toBe(false)
    // Malformed mtimes: the entry is not ours to trust.
    expect(rebuildRecallState([injected({ "a.md": "1000" })]).history).toHaveLength(0)
  })
})
