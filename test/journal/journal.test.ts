/** The change journal: pure rules (src/writes/journal.ts, journalPrune.ts, journalUndo.ts) and the layer on real files (layers/writes/Journal.ts). */
import { Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { appendFile } from "node:fs/promises"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { Journal } from "../../layers/writes/Journal.ts"
import type { FileChange } from "../../layers/writes/journalRecord.ts"
import type { JournalPaths } from "../../layers/writes/journalStore.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import {
  decodeJournal,
  encodeEntry,
  encodeOutcome,
  groupByTask,
  type JournalEntry,
  sha256Hex
} from "../../src/writes/journal.ts"
import {
  JOURNAL_KEEP_MS,
  JOURNAL_KEEP_TASKS,
  JOURNAL_MAX_CONTENT_BYTES,
  planPrune
} from "../../src/writes/journalPrune.ts"
import { planUndo, undoTarget } from "../../src/writes/journalUndo.ts"
import { tempDir } from "../support/tmp.ts"
import { freshMemory, memoryFiles, runWorker, useBundledWorker } from "./crashSupport.ts"

const DAY = 24 * 60 * 60 * 1000
const NOW = Date.parse("2026-06-30T12:00:00.000Z")
const h = (s: string): string => sha256Hex(s)

const entry = (task: string, at: number, changes: JournalEntry["changes"] = [], extra: Partial<JournalEntry> = {}): JournalEntry => ({
  v: 1,
  task,
  kind: "extract",
  at: new Date(at).toISOString(),
  session: "s1",
  model: "fake/model",
  changes,
  ...extra
})

describe("journal lines", () => {
  it("round-trips entries through JSON Lines, one line each", () => {
    const e = entry("t1", NOW, [{ file: "a.md", op: "update", before: h("1"), after: h("2") }], { range: { from: "m1", to: "m9" } })
    const line = encodeEntry(e)
    expect(line.endsWith("\n")).toBe(true)
    expect(line.indexOf("\n")).toBe(line.length - 1)
    expect(decodeJournal(line + encodeEntry(entry("t2", NOW)))).toEqual({ entries: [e, entry("t2", NOW)], outcomes: new Map(), invalidLines: 0, tornTail: false })
  })

  it("skips a torn last line, and keeps a complete last entry whose newline was lost", () => {
    const whole = encodeEntry(entry("t1", NOW)) + encodeEntry(entry("t2", NOW))
    const torn = whole + encodeEntry(entry("t3", NOW)).slice(0, 30)
    expect(decodeJournal(torn)).toMatchObject({ tornTail: true, invalidLines: 0 })
    expect(decodeJournal(torn).entries.map((e) => e.task)).toEqual(["t1", "t2"])
    const noNewline = whole + encodeEntry(entry("t3", NOW)).trimEnd()
    expect(decodeJournal(noNewline)).toMatchObject({ tornTail: false })
    expect(decodeJournal(noNewline).entries.map((e) => e.task)).toEqual(["t1", "t2", "t3"])
    expect(decodeJournal("")).toEqual({ entries: [], outcomes: new Map(), invalidLines: 0, tornTail: false })
  })

  it("counts a bad line in the middle and goes on", () => {
    const text = encodeEntry(entry("t1", NOW)) + "{not json\n" + '{"v":2}\n' + encodeEntry(entry("t2", NOW))
    expect(decodeJournal(text)).toMatchObject({ invalidLines: 2, tornTail: false })
    expect(decodeJournal(text).entries.map((e) => e.task)).toEqual(["t1", "t2"])
  })
})

describe("planPrune", () => {
  const blobOf = (i: number): string => h(`blob-${i}`)
  const one = (i: number, at: number): JournalEntry => entry(`t${i}`, at, [{ file: `f${i}.md`, op: "update", before: blobOf(i), after: h(`after-${i}`) }])
  const size = (bytes: number) => () => bytes

  it("keeps the last 20 tasks when older ones are past 30 days", () => {
    const entries = Array.from({ length: 25 }, (_, i) => one(i, NOW - 100 * DAY + i))
    const plan = planPrune(entries, NOW, size(10))
    expect(plan.keep.map((e) => e.task)).toEqual(entries.slice(5).map((e) => e.task))
    expect(plan.dropped).toBe(5)
    expect([0, 1, 2, 3, 4].map(blobOf).some((b) => plan.keptBlobs.has(b))).toBe(false)
    expect(plan.keptBlobs.size).toBe(20)
    expect(JOURNAL_KEEP_TASKS).toBe(20)
  })

  it("keeps every task of the last 30 days when there are more than 20, and not one past the edge", () => {
    const old = one(0, NOW - JOURNAL_KEEP_MS - 1)
    const edge = one(1, NOW - JOURNAL_KEEP_MS)
    const recent = Array.from({ length: 30 }, (_, i) => one(i + 2, NOW - DAY + i))
    const plan = planPrune([old, edge, ...recent], NOW, size(1))
    expect(plan.keep.map((e) => e.task)).toEqual([edge, ...recent].map((e) => e.task))
    expect(plan.dropped).toBe(1)
  })

  it("keeps at most 20 MiB of content: exactly 20 MiB is kept, one byte more drops the oldest", () => {
    const entries = [one(0, NOW - 3), one(1, NOW - 2), one(2, NOW - 1)]
    const sizes = new Map([[blobOf(0), 1], [blobOf(1), JOURNAL_MAX_CONTENT_BYTES / 2], [blobOf(2), JOURNAL_MAX_CONTENT_BYTES / 2 - 1]])
    // The newest task stays whatever its size: its change may be about to be published.
    const huge = planPrune(entries, NOW, (s) => (s === blobOf(2) ? JOURNAL_MAX_CONTENT_BYTES + 1 : 1))
    expect(huge.keep.map((e) => e.task)).toEqual(["t2"])
    const at = planPrune(entries, NOW, (s) => sizes.get(s))
    expect([at.keep.length, at.keptBytes]).toEqual([3, JOURNAL_MAX_CONTENT_BYTES])
    sizes.set(blobOf(0), 2)
    const over = planPrune(entries, NOW, (s) => sizes.get(s))
    expect(over.keep.map((e) => e.task)).toEqual(["t1", "t2"])
    expect(over.keptBlobs.has(blobOf(0))).toBe(false)
  })

  it("counts a blob shared by two entries once", () => {
    const shared = h("shared")
    const a = entry("a", NOW - 2, [{ file: "x.md", op: "update", before: shared, after: h("y") }])
    const b = entry("b", NOW - 1, [{ file: "x.md", op: "update", before: shared, after: h("z") }])
    expect(planPrune([a, b], NOW, () => 100).keptBytes).toBe(100)
  })
})

describe("undoTarget and planUndo", () => {
  it("picks the newest task not undone and not an undo; an explicit task may be anything", () => {
    const c = (n: string): JournalEntry["changes"] => [{ file: "a.md", op: "update", before: h(n), after: h(`${n}'`) }]
    const entries = [entry("t1", 1, c("1")), entry("t2", 2, c("2")), entry("u1", 3, [], { kind: "undo", undoes: "t2", finished: true })]
    expect(undoTarget(entries)?.task).toBe("t1")
    expect(undoTarget(entries, "u1")?.task).toBe("u1")
    expect(undoTarget(entries, "nope")).toBeUndefined()
    expect(undoTarget([entry("t1", 1, c("1")), entry("u", 2, [], { kind: "undo", undoes: "t1", finished: true })])).toBeUndefined()
    // An undo killed before its end leaves its task to be undone again.
    expect(undoTarget([entry("t1", 1, c("1")), entry("u", 2, [], { kind: "undo", undoes: "t1" })])?.task).toBe("t1")
  })

  it("passes over a task that changed no bytes (journaled, never published) to reach the one before", () => {
    const published = entry("t1", 1, [{ file: "a.md", op: "update", before: h("1"), after: h("2") }])
    const intent = (id: string, extra: Partial<JournalEntry> = {}) =>
      entry("t2", 2, [{ file: "a.md", op: "update", before: h("2"), after: h("3") }], { id, ...extra })
    const failed = decodeJournal(
      encodeEntry(published) + encodeEntry(intent("i1")) + encodeOutcome({ v: 1, id: "i1", task: "t2", outcome: "failed" })
    )
    expect(undoTarget(groupByTask(failed.entries, failed.outcomes))?.task).toBe("t1")
    const done = decodeJournal(encodeEntry(published) + encodeEntry(intent("i1")) + encodeOutcome({ v: 1, id: "i1", task: "t2", outcome: "done" }))
    expect(undoTarget(groupByTask(done.entries, done.outcomes))?.task).toBe("t2")
    // Pending (no outcome yet): not a change until undo settles it.
    const pending = decodeJournal(encodeEntry(published) + encodeEntry(intent("i1")))
    expect(groupByTask(pending.entries, pending.outcomes)[1]!.changes[0]!.status).toBe("pending")
    expect(undoTarget(groupByTask(pending.entries, pending.outcomes))?.task).toBe("t1")
  })

  it("restores, removes, leaves alone or refuses each file by its current hash", () => {
    const e = entry("t", 1, [
      { file: "upd.md", op: "update", before: h("old"), after: h("new") },
      { file: "new.md", op: "create", before: null, after: h("made") },
      { file: "gone.md", op: "delete", before: h("was"), after: null },
      { file: "moved-on.md", op: "update", before: h("a"), after: h("b") },
      { file: "never.md", op: "update", before: h("p"), after: h("q") },
      { file: "pruned.md", op: "update", before: h("lost"), after: h("now") }
    ])
    const current: Record<string, string | null> = {
      "upd.md": h("new"),
      "new.md": h("made"),
      "gone.md": null,
      "moved-on.md": h("c"),
      "never.md": h("p"),
      "pruned.md": h("now")
    }
    const plan = planUndo(e, (f) => current[f] ?? null, (sha) => sha !== h("lost"))
    expect(plan.actions).toEqual([
      { file: "upd.md", action: "restore", blob: h("old"), expect: h("new"), mode: undefined },
      { file: "new.md", action: "remove", expect: h("made") },
      { file: "gone.md", action: "restore", blob: h("was"), expect: null, mode: undefined },
      { file: "never.md", action: "none" }
    ])
    expect(plan.refused.map((r) => r.file)).toEqual(["moved-on.md", "pruned.md"])
    expect(plan.refused[1]!.reason).toContain("pruned")
  })
})

// ---------------------------------------------------------------------------------------------------------------
// The layer on real files.

const layer = Journal.layer.pipe(
  Layer.provideMerge(LockService.layerWith({ timeouts: { "journal.lock": 2_000 } })),
  Layer.provide(FileSystem.layer)
)
const run = <A, E>(f: (journal: Journal["Type"]) => Effect.Effect<A, E>) => Effect.runPromise(Effect.flatMap(Journal, f).pipe(Effect.provide(layer)))
const runExit = <A, E>(f: (journal: Journal["Type"]) => Effect.Effect<A, E>) => Effect.runPromise(Effect.flatMap(Journal, f).pipe(Effect.provide(layer), Effect.either))

const setup = () => {
  const base = tempDir("pm-journal-")
  const memoryDir = join(base, "memory")
  const rootDir = join(base, "memory-roots", "hash")
  mkdirSync(memoryDir, { recursive: true })
  return { memoryDir, rootDir, paths: { rootDir } satisfies JournalPaths, undoPaths: { rootDir, memoryDir } }
}

/** Applies `changes` to the memory directory as a writer would publish them, after journaling them. */
const task = async (
  env: ReturnType<typeof setup>,
  id: string,
  kind: string,
  changes: ReadonlyArray<{ file: string; after: string | null }>,
  at?: number
) => {
  const withBefore: Array<FileChange> = changes.map((c) => {
    const path = join(env.memoryDir, c.file)
    return { file: c.file, before: existsSync(path) ? readFileSync(path) : null, after: c.after === null ? null : Buffer.from(c.after) }
  })
  await run((j) => j.record(env.paths, { task: id, kind, session: "sess-1", model: "fake/model", changes: withBefore, ...(at === undefined ? {} : { at }) }))
  for (const c of changes) {
    const path = join(env.memoryDir, c.file)
    if (c.after === null) rmSync(path)
    else {
      mkdirSync(join(path, ".."), { recursive: true })
      writeFileSync(path, c.after)
    }
  }
}

const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (d: string, prefix: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${prefix}${e.name}/`)
      else out[`${prefix}${e.name}`] = readFileSync(join(d, e.name), "utf8")
    }
  }
  walk(dir, "")
  return out
}

describe("Journal layer", () => {
  it("records before-content by sha256 beside the journal and reads entries newest first", async () => {
    const env = setup()
    writeFileSync(join(env.memoryDir, "a.md"), "A1\n")
    await task(env, "t1", "extract", [{ file: "a.md", after: "A2\n" }, { file: "b.md", after: "B1\n" }], NOW - 2)
    await task(env, "t2", "dream", [{ file: "a.md", after: null }], NOW - 1)
    const journalDir = join(env.rootDir, "journal")
    expect(readdirSync(join(journalDir, "blobs")).sort()).toEqual([h("A1\n"), h("A2\n")].sort())
    expect(readFileSync(join(journalDir, "blobs", h("A1\n")), "utf8")).toBe("A1\n")
    const listing = await run((j) => j.read(env.paths))
    expect(listing.entries.map((e) => [e.task, e.kind])).toEqual([["t2", "dream"], ["t1", "extract"]])
    expect(listing.entries[1]!.changes).toEqual([
      { file: "a.md", op: "update", before: h("A1\n"), after: h("A2\n"), status: "done" },
      { file: "b.md", op: "create", before: null, after: h("B1\n"), status: "done" }
    ])
    expect(listing.entries[0]!.changes).toEqual([{ file: "a.md", op: "delete", before: h("A2\n"), after: null, status: "done" }])
    expect(listing.entries[0]!.at).toBe(new Date(NOW - 1).toISOString())
    expect((await run((j) => j.read(env.paths, { limit: 1 }))).entries.map((e) => e.task)).toEqual(["t2"])
    expect(existsSync(join(env.rootDir, "locks", "journal.lock"))).toBe(false)
  })

  it("undo after an extraction restores the directory byte for byte and is itself journaled and undoable", async () => {
    const env = setup()
    writeFileSync(join(env.memoryDir, "MEMORY.md"), "- [A](a.md) - a\n")
    writeFileSync(join(env.memoryDir, "a.md"), "A1 — ünïcode\n")
    const before = snapshot(env.memoryDir)
    await task(env, "t1", "extract", [
      { file: "a.md", after: "A2\n" },
      { file: "sub/b.md", after: "B\n" },
      { file: "MEMORY.md", after: "- [A](a.md) - a\n- [B](sub/b.md) - b\n" }
    ])
    const after = snapshot(env.memoryDir)
    const result = await run((j) => j.undo(env.undoPaths, { session: "sess-2", model: null }))
    expect(result.task).toBe("t1")
    expect([...result.restored].sort()).toEqual(["MEMORY.md", "a.md", "sub/b.md"])
    expect(result.refused).toEqual([])
    expect(snapshot(env.memoryDir)).toEqual(before)
    const log = (await run((j) => j.read(env.paths))).entries
    expect(log[0]).toMatchObject({ task: result.undoTask, kind: "undo", undoes: "t1", session: "sess-2" })
    // Nothing left to undo by default; undoing the undo redoes the extraction.
    expect((await runExit((j) => j.undo(env.undoPaths, { session: null, model: null })))._tag).toBe("Left")
    await run((j) => j.undo(env.undoPaths, { task: result.undoTask!, session: null, model: null }))
    expect(snapshot(env.memoryDir)).toEqual(after)
  })

  it("undo after a dream (a merge and a delete) and after a forget", async () => {
    const env = setup()
    writeFileSync(join(env.memoryDir, "x.md"), "X\n")
    writeFileSync(join(env.memoryDir, "y.md"), "Y\n")
    writeFileSync(join(env.memoryDir, "z.md"), "Z\n")
    const start = snapshot(env.memoryDir)
    await task(env, "d1", "dream", [{ file: "x.md", after: "X+Y\n" }, { file: "y.md", after: null }])
    const afterDream = snapshot(env.memoryDir)
    await task(env, "f1", "forget", [{ file: "z.md", after: null }])
    expect(await run((j) => j.undo(env.undoPaths, { session: null, model: null }))).toMatchObject({ task: "f1", restored: ["z.md"], refused: [] })
    expect(snapshot(env.memoryDir)).toEqual(afterDream)
    expect(await run((j) => j.undo(env.undoPaths, { session: null, model: null }))).toMatchObject({ task: "d1", refused: [] })
    expect(snapshot(env.memoryDir)).toEqual(start)
  })

  it("refuses a file changed since the task, restores the others, and journals only what it changed", async () => {
    const env = setup()
    writeFileSync(join(env.memoryDir, "a.md"), "A1\n")
    writeFileSync(join(env.memoryDir, "b.md"), "B1\n")
    await task(env, "t1", "extract", [{ file: "a.md", after: "A2\n" }, { file: "b.md", after: "B2\n" }])
    writeFileSync(join(env.memoryDir, "b.md"), "B3 edited by hand\n")
    const result = await run((j) => j.undo(env.undoPaths, { session: null, model: null }))
    expect(result.restored).toEqual(["a.md"])
    expect(result.refused).toEqual([{ file: "b.md", reason: expect.stringContaining("changed after this task") }])
    expect(readFileSync(join(env.memoryDir, "a.md"), "utf8")).toBe("A1\n")
    expect(readFileSync(join(env.memoryDir, "b.md"), "utf8")).toBe("B3 edited by hand\n")
    const undoEntry = (await run((j) => j.read(env.paths))).entries[0]!
    expect(undoEntry.changes.map((c) => c.file)).toEqual(["a.md"])
  })

  it("a change journaled whose publish failed is never the newest undo: undo reaches the task before it", async () => {
    const env = setup()
    writeFileSync(join(env.memoryDir, "a.md"), "A1\n")
    await task(env, "t1", "extract", [{ file: "a.md", after: "A2\n" }])
    const hook = await run((j) => Effect.succeed(j.forWriter(env.paths, { task: "t2", kind: "extract", session: null, model: null })))
    const refused = await Effect.runPromise(
      hook.around(
        (intend) => intend({ file: "a.md", before: Buffer.from("A2\n"), after: Buffer.from("A3\n") }).pipe(Effect.zipRight(Effect.fail("read-only" as const))),
        () => "failed"
      ).pipe(Effect.either)
    )
    expect(refused).toMatchObject({ _tag: "Left", left: "read-only" })
    const log = (await run((j) => j.read(env.paths))).entries
    expect(log.map((e) => [e.task, e.changes.map((c) => c.status)])).toEqual([["t2", ["failed"]], ["t1", ["done"]]])
    const result = await run((j) => j.undo(env.undoPaths, { session: null, model: null }))
    expect(result).toMatchObject({ task: "t1", files: [{ file: "a.md", outcome: "restored" }] })
    expect(snapshot(env.memoryDir)).toEqual({ "a.md": "A1\n" })
  })

  it("refuses to follow a symlink or leave the memory directory", async () => {
    const env = setup()
    const outside = join(env.memoryDir, "..", "outside.md")
    writeFileSync(outside, "O\n")
    await run((j) => j.record(env.paths, { task: "t1", kind: "extract", session: null, model: null, changes: [{ file: "l.md", before: null, after: Buffer.from("L\n") }, { file: "../outside.md", before: Buffer.from("O0\n"), after: Buffer.from("O\n") }] }))
    symlinkSync(outside, join(env.memoryDir, "l.md"))
    const result = await run((j) => j.undo(env.undoPaths, { session: null, model: null }))
    expect(result.restored).toEqual([])
    expect(result.refused.map((r) => r.file).sort()).toEqual(["../outside.md", "l.md"])
    expect(readFileSync(outside, "utf8")).toBe("O\n")
  })

  it("reads past a torn last line left by a cut-short append", async () => {
    const env = setup()
    await task(env, "t1", "extract", [{ file: "a.md", after: "A\n" }])
    appendFileSync(join(env.rootDir, "journal", "journal.jsonl"), '{"v":1,"task":"t2","kin')
    const listing = await run((j) => j.read(env.paths))
    expect(listing).toMatchObject({ tornTail: true, invalidLines: 0 })
    expect(listing.entries.map((e) => e.task)).toEqual(["t1"])
    // The next append starts on its own line after the torn one, which then counts as a bad line.
    await task(env, "t3", "extract", [{ file: "b.md", after: "B\n" }])
    const again = await run((j) => j.read(env.paths))
    expect(again.entries.map((e) => e.task)).toEqual(["t3", "t1"])
  })

  it("prunes to the retention policy, by whole tasks, and removes blobs no kept task needs", async () => {
    const env = setup()
    writeFileSync(join(env.memoryDir, "a.md"), "v0\n")
    const longAgo = Date.now() - 90 * DAY
    for (let i = 1; i <= 24; i++) await task(env, `t${i}`, "extract", [{ file: "a.md", after: `v${i}\n` }], longAgo + i)
    // Recording prunes only when the journal has grown by half (or the content passed its cap): nothing went yet.
    expect((await run((j) => j.read(env.paths))).entries).toHaveLength(24)
    expect(await run((j) => j.prune(env.paths))).toMatchObject({ kept: 20, dropped: 4, deletedBlobs: 4 })
    const listing = await run((j) => j.read(env.paths))
    expect(listing.entries.map((e) => e.task)).toEqual(Array.from({ length: 20 }, (_, i) => `t${24 - i}`))
    expect(readdirSync(join(env.rootDir, "journal", "blobs")).sort()).toEqual(Array.from({ length: 20 }, (_, i) => h(`v${i + 4}\n`)).sort())
    expect(await run((j) => j.prune(env.paths))).toEqual({ kept: 20, dropped: 0, deletedBlobs: 0, keptBytes: 6 * 3 + 14 * 4 })
    // An undo is a task too: it is journaled, and the oldest old task makes room for it.
    await run((j) => j.undo(env.undoPaths, { session: null, model: null }))
    expect(readFileSync(join(env.memoryDir, "a.md"), "utf8")).toBe("v23\n")
    await run((j) => j.prune(env.paths))
    const after = (await run((j) => j.read(env.paths))).entries
    expect([after.length, after[0]!.kind, after.at(-1)!.task]).toEqual([20, "undo", "t6"])
  })
})

describe("a crash between journal and publish (real processes)", () => {
  const worker = useBundledWorker()

  it("SIGKILL after the intent, before the publish: log shows it pending, undo settles it as not published and reaches the task before", async () => {
    const env = freshMemory()
    const paths = { rootDir: env.rootDir }
    await run((j) => j.record(paths, { task: "t0", kind: "forget", session: null, model: null, changes: [{ file: "b.md", before: null, after: Buffer.from("B-old\n") }] }))
    writeFileSync(join(env.memoryDir, "a.md"), "A-old\n")
    const child = spawn(process.execPath, [worker(), JSON.stringify({ ...env, scenario: "intent-only", killAt: null })], { stdio: ["ignore", "pipe", "pipe"] })
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => d.toString().includes("intended") && resolve())
      child.on("exit", (code) => reject(new Error(`worker exited ${code} before its intent`)))
    })
    const exited = new Promise((resolve) => child.on("exit", (_code, signal) => resolve(signal)))
    child.kill("SIGKILL")
    expect(await exited).toBe("SIGKILL")
    const listing = await run((j) => j.read(paths))
    expect(listing.entries.map((e) => [e.task, e.changes.map((c) => c.status)])).toEqual([["t-crash", ["pending"]], ["t0", ["done"]]])
    // The killed writer held journal.lock (its recovery is the lock service's): gone with its holder.
    rmSync(join(env.rootDir, "locks"), { recursive: true, force: true })
    const undone = await run((j) => j.undo({ ...paths, memoryDir: env.memoryDir }, { session: null, model: null }))
    expect(undone).toMatchObject({ task: "t0", files: [{ file: "b.md", outcome: "deleted" }] })
    expect(memoryFiles(env.memoryDir)).toEqual({ "a.md": "A-old\n" })
    const settled = (await run((j) => j.read(paths))).entries.find((e) => e.task === "t-crash")!
    expect(settled.changes.map((c) => c.status)).toEqual(["failed"])
  })

  it("SIGKILL right after the rename, before its outcome: undo settles it as published and restores it", async () => {
    const env = freshMemory()
    const killed = await runWorker(worker(), { ...env, scenario: "task", killAt: null, killAfterRenameTo: "/a.md" })
    expect(killed.signal).toBe("SIGKILL")
    expect(memoryFiles(env.memoryDir)).toEqual({ "a.md": "A-new\n", "b.md": "B-old\n" })
    const listing = await run((j) => j.read({ rootDir: env.rootDir }))
    expect(listing.entries[0]!.changes.map((c) => [c.file, c.status])).toEqual([["a.md", "pending"]])
    rmSync(join(env.rootDir, "locks"), { recursive: true, force: true })
    const undone = await run((j) => j.undo({ rootDir: env.rootDir, memoryDir: env.memoryDir }, { session: null, model: null }))
    expect(undone).toMatchObject({ task: "t-crash", files: [{ file: "a.md", outcome: "restored" }] })
    expect(memoryFiles(env.memoryDir)).toEqual({ "a.md": "A-old\n", "b.md": "B-old\n" })
  })
})

describe("retention by whole task", () => {
  const OLD_AT = Date.now() - 90 * DAY
  const manyChanges = async (env: ReturnType<typeof setup>) => {
    writeFileSync(join(env.memoryDir, "a.md"), "v0\n")
    // A background task journals each of its 25 changes as its own line, all under one id.
    for (let i = 1; i <= 25; i++) await task(env, "big", "dream", [{ file: "a.md", after: `v${i}\n` }], OLD_AT + i)
  }
  const others = async (env: ReturnType<typeof setup>, count: number) => {
    for (let i = 1; i <= count; i++) await task(env, `o${i}`, "extract", [{ file: `o${i}.md`, after: `o${i}\n` }], OLD_AT + 100 + i)
  }

  it("a 25-change task among the last 20 tasks is kept whole, and undoing it restores its first state", async () => {
    const env = setup()
    await manyChanges(env)
    await others(env, 19)
    expect(await run((j) => j.prune(env.paths))).toMatchObject({ kept: 20, dropped: 0 })
    const big = (await run((j) => j.read(env.paths))).entries.find((e) => e.task === "big")!
    expect(big.changes).toHaveLength(25)
    const result = await run((j) => j.undo(env.undoPaths, { task: "big", session: null, model: null }))
    expect(result.files).toEqual([{ file: "a.md", outcome: "restored" }])
    expect(readFileSync(join(env.memoryDir, "a.md"), "utf8")).toBe("v0\n")
  })

  it("one task more and the 25-change task goes whole: no line of it and none of its blobs stay", async () => {
    const env = setup()
    await manyChanges(env)
    await others(env, 20)
    expect(await run((j) => j.prune(env.paths))).toMatchObject({ kept: 20, dropped: 1, deletedBlobs: 25 })
    expect(readFileSync(join(env.rootDir, "journal", "journal.jsonl"), "utf8")).not.toContain('"task":"big"')
    expect(existsSync(join(env.rootDir, "journal", "blobs"))).toBe(true)
    expect(readdirSync(join(env.rootDir, "journal", "blobs"))).toEqual([])
    expect((await runExit((j) => j.undo(env.undoPaths, { task: "big", session: null, model: null })))._tag).toBe("Left")
  })

  it("a journal past 64 MiB is pruned from all of it: the newest change survives and undo reaches it", async () => {
    const env = setup()
    const journalDir = join(env.rootDir, "journal")
    mkdirSync(journalDir, { recursive: true })
    // Filler: old one-change tasks, no blobs, well past the old 64 MiB read cap.
    const line = (i: number) => encodeEntry(entry(`filler-${i}`, OLD_AT + i, [{ file: `f${i % 50}.md`, op: "create", before: null, after: h(String(i)) }]))
    const chunk = Array.from({ length: 20_000 }, (_, i) => line(i)).join("")
    const times = Math.ceil((65 * 1024 * 1024) / chunk.length)
    // Appended without holding the worker's event loop: 65 MiB written synchronously takes a minute at load 30.
    for (let k = 0; k < times; k++) await appendFile(join(journalDir, "journal.jsonl"), chunk)
    writeFileSync(join(env.memoryDir, "new.md"), "N0\n")
    await task(env, "newest", "extract", [{ file: "new.md", after: "N1\n" }])
    expect((await run((j) => j.prune(env.paths))).kept).toBe(20)
    const listing = await run((j) => j.read(env.paths))
    expect(listing.entries[0]!.task).toBe("newest")
    const result = await run((j) => j.undo(env.undoPaths, { session: null, model: null }))
    expect(result).toMatchObject({ task: "newest", files: [{ file: "new.md", outcome: "restored" }] })
    expect(readFileSync(join(env.memoryDir, "new.md"), "utf8")).toBe("N0\n")
  })
})

describe("crash leftovers", () => {
  it("temp files of a killed process in journal/ and blobs/ are swept once old, a fresh one is left", async () => {
    const env = setup()
    writeFileSync(join(env.memoryDir, "a.md"), "A1\n")
    await task(env, "t1", "extract", [{ file: "a.md", after: "A2\n" }])
    const journalDir = join(env.rootDir, "journal")
    const stale = [join(journalDir, ".pm-00000000-0000-4000-8000-000000000001.tmp"), join(journalDir, "blobs", ".pm-00000000-0000-4000-8000-000000000002.tmp")]
    const fresh = join(journalDir, "blobs", ".pm-00000000-0000-4000-8000-000000000003.tmp")
    for (const p of [...stale, fresh]) writeFileSync(p, "partial")
    const longAgo = (Date.now() - 10 * 60_000) / 1000
    for (const p of stale) utimesSync(p, longAgo, longAgo)
    await run((j) => j.prune(env.paths))
    expect(stale.map(existsSync)).toEqual([false, false])
    expect(existsSync(fresh)).toBe(true)
  })
})
