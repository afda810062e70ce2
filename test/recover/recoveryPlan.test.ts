/**
 * The recovery decision (src/writes/recovery.ts) and the judgement of an open-task marker's owner
 * (src/writes/openTask.ts), pure: which mode, which files go back, which stay and why, in the order they are put back.
 */
import { describe, expect, it } from "vitest"
import type { JournalEntry } from "../../src/writes/journal.ts"
import { decodeMarker, encodeMarker, markerFileOf, type OpenTaskMarker, ownerAlive, taskOfMarkerFile } from "../../src/writes/openTask.ts"
import { INDEX_KEPT, KEPT_FOR_INDEX, planRecovery } from "../../src/writes/recovery.ts"

const h = (c: string) => c.repeat(64)
const task = (changes: JournalEntry["changes"]): JournalEntry => ({ v: 1, task: "t", kind: "remember", at: "2026-01-01T00:00:00.000Z", session: null, model: null, changes })

// A remember: topic n.md created (after h("1")), MEMORY.md updated from h("a") to h("b").
const remember = task([
  { file: "n.md", op: "create", before: null, after: h("1") },
  { file: "MEMORY.md", op: "update", before: h("a"), after: h("b") }
])
// A forget: topic g.md (h("2")) deleted, MEMORY.md updated from h("a") to h("c").
const forget = task([
  { file: "g.md", op: "delete", before: h("2"), after: null },
  { file: "MEMORY.md", op: "update", before: h("a"), after: h("c") }
])
const hashes = (m: Record<string, string | null>) => (file: string) => m[file] ?? null
const allBlobs = () => true

describe("planRecovery", () => {
  it("rolls back whole when every file is still what the task left, MEMORY.md first", () => {
    const plan = planRecovery(remember, hashes({ "n.md": h("1"), "MEMORY.md": h("b") }), allBlobs, new Set(["n.md"]), "MEMORY.md")
    expect(plan.mode).toBe("rollback")
    expect(plan.actions.map((a) => [a.file, a.action])).toEqual([["MEMORY.md", "restore"], ["n.md", "remove"]])
    expect(plan.left).toEqual([])
  })

  it("a task killed before its index write (the index untouched): the created topic goes, whatever the index links", () => {
    const plan = planRecovery(task([remember.changes[0]!]), hashes({ "n.md": h("1"), "MEMORY.md": h("a") }), allBlobs, new Set(), "MEMORY.md")
    expect(plan.mode).toBe("rollback")
    expect(plan.actions).toEqual([{ file: "n.md", action: "remove", expect: h("1") }])
  })

  it("files already back need nothing; an updated file changed since is left, and the rest still rolls back", () => {
    const edited = task([...remember.changes, { file: "u.md", op: "update", before: h("5"), after: h("6") }])
    const plan = planRecovery(edited, hashes({ "n.md": null, "MEMORY.md": h("b"), "u.md": h("7") }), allBlobs, new Set(), "MEMORY.md")
    expect(plan.mode).toBe("rollback")
    expect(plan.actions.map((a) => [a.file, a.action])).toEqual([["MEMORY.md", "restore"], ["n.md", "none"]])
    expect(plan.left.map((l) => l.file)).toEqual(["u.md"])
  })

  it("MEMORY.md changed since: it stays, and a created topic it links stays too (no dangling line)", () => {
    const plan = planRecovery(remember, hashes({ "n.md": h("1"), "MEMORY.md": h("z") }), allBlobs, new Set(["n.md"]), "MEMORY.md")
    expect(plan.mode).toBe("index")
    expect(plan.actions).toEqual([])
    expect(plan.left).toContainEqual({ file: "n.md", reason: KEPT_FOR_INDEX })
    expect(plan.left.map((l) => l.file)).toContain("MEMORY.md")
  })

  it("MEMORY.md changed since and no longer links the created topic: the topic goes (no unindexed file)", () => {
    const plan = planRecovery(remember, hashes({ "n.md": h("1"), "MEMORY.md": h("z") }), allBlobs, new Set(), "MEMORY.md")
    expect(plan.mode).toBe("index")
    expect(plan.actions).toEqual([{ file: "n.md", action: "remove", expect: h("1") }])
  })

  it("a forget: its deleted topic comes back only if MEMORY.md as it is now links it", () => {
    const linked = planRecovery(forget, hashes({ "g.md": null, "MEMORY.md": h("z") }), allBlobs, new Set(["g.md"]), "MEMORY.md")
    expect(linked.mode).toBe("index")
    expect(linked.actions.map((a) => [a.file, a.action])).toEqual([["g.md", "restore"]])
    const unlinked = planRecovery(forget, hashes({ "g.md": null, "MEMORY.md": h("z") }), allBlobs, new Set(), "MEMORY.md")
    expect(unlinked.actions).toEqual([])
    expect(unlinked.left).toContainEqual({ file: "g.md", reason: KEPT_FOR_INDEX })
  })

  it("a created topic changed since blocks the whole rollback: MEMORY.md keeps its line, so nothing is left unindexed", () => {
    const plan = planRecovery(remember, hashes({ "n.md": h("9"), "MEMORY.md": h("b") }), allBlobs, new Set(["n.md"]), "MEMORY.md")
    expect(plan.mode).toBe("index")
    expect(plan.left).toContainEqual({ file: "MEMORY.md", reason: INDEX_KEPT })
    expect(plan.actions).toEqual([])
  })

  it("a deleted topic whose previous bytes are gone blocks the rollback too; no MEMORY.md counts as linking everything", () => {
    const plan = planRecovery(forget, hashes({ "g.md": null, "MEMORY.md": h("c") }), () => false, undefined, "MEMORY.md")
    expect(plan.mode).toBe("index")
    expect(plan.actions).toEqual([])
    const created = planRecovery(remember, hashes({ "n.md": h("1"), "MEMORY.md": null }), allBlobs, undefined, "MEMORY.md")
    expect(created.mode).toBe("index")
    expect(created.actions).toEqual([])
  })

  it("forceIndex turns a rollback into the index's mode (MEMORY.md changed just before it was put back)", () => {
    const plan = planRecovery(remember, hashes({ "n.md": h("1"), "MEMORY.md": h("b") }), allBlobs, new Set(["n.md"]), "MEMORY.md", true)
    expect(plan.mode).toBe("index")
    expect(plan.actions).toEqual([])
  })
})

const marker = (over: Partial<OpenTaskMarker> = {}): OpenTaskMarker => ({
  v: 1,
  task: "forget-1",
  kind: "forget",
  pid: 4242,
  start: "100",
  machine: "boot/ns",
  host: "box",
  locks: ["extract.lock", "dream.lock"],
  at: new Date(1_000_000).toISOString(),
  ...over
})
const facts = (over: Partial<Parameters<typeof ownerAlive>[1]> = {}): Parameters<typeof ownerAlive>[1] => ({
  pid: 1,
  machine: "boot/ns",
  runningHere: () => false,
  pidAlive: () => true,
  startOf: () => "100",
  now: 1_000_000,
  ...over
})

describe("open-task markers", () => {
  it("encode and decode; the file's name is the task's, and nothing else is taken for a marker", () => {
    expect(decodeMarker(encodeMarker(marker()))).toEqual(marker())
    expect(decodeMarker("{}")).toBeUndefined()
    expect(decodeMarker("not json")).toBeUndefined()
    expect(taskOfMarkerFile(markerFileOf("forget-1"))).toBe("forget-1")
    for (const other of [".pm-1-00000000-x.tmp", "forget-1.json.tmp", "../x.json", ".json"]) expect(taskOfMarkerFile(other), other).toBeUndefined()
  })

  it("the owner on our process table: alive with its pid and start time; gone when the pid is gone or reused", () => {
    expect(ownerAlive(marker(), facts())).toBe(true)
    expect(ownerAlive(marker(), facts({ pidAlive: () => false }))).toBe(false)
    expect(ownerAlive(marker(), facts({ startOf: () => "200" }))).toBe(false)
    expect(ownerAlive(marker({ start: undefined }), facts({ startOf: () => "200" }))).toBe(true)
  })

  it("our own pid: alive only while the task runs in this process", () => {
    expect(ownerAlive(marker({ pid: 1 }), facts({ runningHere: (t) => t === "forget-1" }))).toBe(true)
    expect(ownerAlive(marker({ pid: 1 }), facts())).toBe(false)
  })

  it("another table: a live pid is alive until the longest timeout of its locks has passed; a missing pid is gone", () => {
    const elsewhere = marker({ machine: "other/ns", locks: ["extract.lock"] })
    expect(ownerAlive(elsewhere, facts({ now: 1_000_000 + 15 * 60_000 }))).toBe(true)
    expect(ownerAlive(elsewhere, facts({ now: 1_000_000 + 15 * 60_000 + 1 }))).toBe(false)
    expect(ownerAlive(elsewhere, facts({ pidAlive: () => false }))).toBe(false)
  })
})
