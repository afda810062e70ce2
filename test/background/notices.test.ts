/** Change notices, pure: grouping by task, the text, and where each lands in a request. */
import { describe, expect, it } from "vitest"
import { NOTICE_ENTRY, noticeCount, noticeGroups, renderNotice, withNotices, type ProjectedEntry } from "../../src/background/notices.ts"

const msg = (role: string, timestamp: number): ProjectedEntry => ({ sourceEntry: { type: "message" }, messages: [{ role, timestamp }] })
const rec = (task: string, file: string, op: "write" | "edit" | "delete" = "write", by: "extraction" | "dream" = "extraction"): ProjectedEntry => ({
  sourceEntry: { type: "custom", customType: NOTICE_ENTRY, data: { task, by, op, file }, timestamp: "2026-01-01T00:00:00.000Z" },
  messages: []
})
const other = (customType: string): ProjectedEntry => ({ sourceEntry: { type: "custom", customType, data: {} }, messages: [] })
const roles = (ms: ReadonlyArray<{ role: string; content?: unknown }>) => ms.map((m) => (m.role === "custom" ? `notice:${String(m.content).match(/extraction: (.*?)\.\n/)?.[1]}` : m.role))
const ctx = (entries: ReadonlyArray<ProjectedEntry>) => entries.flatMap((e) => e.messages).filter((m) => m.role !== "system")

describe("grouping", () => {
  it("consecutive records of one task make one notice; each file once, with what happened to it overall", () => {
    const groups = noticeGroups([msg("user", 1), msg("assistant", 2), rec("t1", "a.md"), other("pm-extract-cursor"), rec("t1", "MEMORY.md", "edit"), rec("t1", "a.md", "edit"), rec("t1", "b.md"), rec("t1", "b.md", "delete")])
    expect(groups).toHaveLength(1)
    expect(groups[0]!.group.files).toEqual([{ file: "a.md", op: "write" }, { file: "MEMORY.md", op: "edit" }, { file: "b.md", op: "delete" }])
  })

  it("another task, or a message between the records, starts a new notice", () => {
    const groups = noticeGroups([msg("user", 1), rec("t1", "a.md"), rec("t2", "b.md", "write", "dream"), msg("user", 3), rec("t2", "c.md")])
    expect(groups.map((g) => [g.group.task, g.position, g.group.files.map((f) => f.file)])).toEqual([["t1", 1, ["a.md"]], ["t2", 1, ["b.md"]], ["t2", 2, ["c.md"]]])
    expect(noticeCount([{ type: "custom", customType: NOTICE_ENTRY, data: { task: "t1", by: "extraction", op: "write", file: "a" } }])).toBe(1)
  })

  it("the text names the files relative to the memory directory, sanitized, in one short reminder", () => {
    const text = renderNotice({ task: "t", by: "dream", files: [{ file: "a.md", op: "write" }, { file: "<system-reminder>.md", op: "delete" }] })
    expect(text).toBe(
      "<system-reminder>\nMemory files changed by the background dream: a.md (written), &lt;system-reminder>.md (deleted).\n</system-reminder>"
    )
    expect(renderNotice({ task: "t", by: "extraction", files: [{ file: "a.md", op: "write" }, { file: "MEMORY.md", op: "edit" }] })).toBe(
      "<system-reminder>\nMemory files changed by the background extraction: a.md (written), MEMORY.md (edited).\n</system-reminder>"
    )
    expect(text.length).toBeLessThan(220)
  })
})

describe("placement in a request", () => {
  it("where the records sit, and the same list on every request", () => {
    const entries = [msg("user", 1), msg("assistant", 2), rec("t1", "a.md"), rec("t1", "MEMORY.md", "edit"), msg("user", 3), msg("assistant", 4), msg("user", 5)]
    const out = withNotices(ctx(entries), entries)!
    expect(roles(out)).toEqual(["user", "assistant", "notice:a.md (written), MEMORY.md (edited)", "user", "assistant", "user"])
    expect(withNotices(ctx(entries), entries)).toEqual(out)
  })

  it("never between a tool call and its results: after the results", () => {
    const later = Date.parse("2026-01-01T00:00:01.000Z")
    const entries = [msg("user", 1), msg("assistant", 2), rec("t1", "a.md"), msg("toolResult", later), msg("toolResult", later), msg("assistant", later + 1)]
    expect(roles(withNotices(ctx(entries), entries)!)).toEqual(["user", "assistant", "toolResult", "toolResult", "notice:a.md (written)", "assistant"])
  })

  it("an answer that started before the change comes before the notice; one that started after it, after", () => {
    const at = Date.parse("2026-01-01T00:00:00.000Z")
    const entries = [msg("user", at - 10), rec("t1", "a.md"), msg("assistant", at - 5), msg("toolResult", at + 1), msg("assistant", at + 2)]
    expect(roles(withNotices(ctx(entries), entries)!)).toEqual(["user", "assistant", "toolResult", "notice:a.md (written)", "assistant"])
    const later = [msg("user", at - 10), rec("t1", "a.md"), msg("assistant", at + 5)]
    expect(roles(withNotices(ctx(later), later)!)).toEqual(["user", "notice:a.md (written)", "assistant"])
  })

  it("system messages do not count; a record before any message goes first", () => {
    const entries = [rec("t0", "z.md"), { sourceEntry: { type: "message" }, messages: [{ role: "system", timestamp: 0 }] }, msg("user", 1), rec("t1", "a.md")]
    expect(roles(withNotices(ctx(entries), entries)!)).toEqual(["notice:z.md (written)", "user", "notice:a.md (written)"])
  })

  it("a list changed by another extension: after the anchor where it is now, else at the end", () => {
    const entries = [msg("user", 1), msg("assistant", 2), rec("t1", "a.md"), msg("user", 3)]
    const shifted = [{ role: "bashExecution", timestamp: 0 }, ...ctx(entries)]
    expect(roles(withNotices(shifted, entries)!)).toEqual(["bashExecution", "user", "assistant", "notice:a.md (written)", "user"])
    const gone = [{ role: "user", timestamp: 9 }]
    expect(roles(withNotices(gone, entries)!)).toEqual(["user", "notice:a.md (written)"])
  })

  it("no records: the request is left alone", () => {
    const entries = [msg("user", 1), other("pm-recall"), msg("assistant", 2)]
    expect(withNotices(ctx(entries), entries)).toBeUndefined()
  })
})
