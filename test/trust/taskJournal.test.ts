/**
 * The journal of a background task through its tools, over real files and the real Journal: each change recorded
 * under the task's id before it is published, a refused publish reversed so the task's net change stays true, and
 * the grouping log and undo rely on.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import * as pi from "@earendil-works/pi-coding-agent"
import { makeTaskTools } from "../../layers/background/tools/TaskTools.ts"
import { BashGuard } from "../../layers/safety/BashGuard.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { Journal } from "../../layers/writes/Journal.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { MemoryWriter } from "../../layers/writes/MemoryWriter.ts"
import { groupByTask, type JournalEntry, netChanges, sha256Hex } from "../../src/writes/journal.ts"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const runtime = ManagedRuntime.make(
  Layer.mergeAll(MemoryWriter.layer, BashGuard.layer, Journal.layer).pipe(Layer.provideMerge(LockService.layer), Layer.provideMerge(FileSystem.layer))
)
afterAll(() => runtime.dispose())

const TOPIC = (name: string, body: string) => `---\nname: ${name}\ndescription: ${name}\nmetadata:\n  type: project\n---\n${body}\n`

const setup = async () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-tj-")))
  dirs.push(base)
  const cwd = join(base, "project")
  const memoryDir = join(base, "memory")
  const rootDir = join(base, "root")
  for (const d of [cwd, memoryDir, rootDir]) mkdirSync(d)
  writeFileSync(join(memoryDir, "a.md"), TOPIC("A", "alpha"))
  writeFileSync(join(memoryDir, "b.md"), TOPIC("B", "beta"))
  const tools = await runtime.runPromise(
    Effect.gen(function*() {
      const writer = yield* MemoryWriter
      const guard = yield* BashGuard
      const journal = yield* Journal
      const task = yield* writer.openTask({
        memoryDir,
        cwd,
        journal: journal.forWriter({ rootDir }, { task: "t1", kind: "extract", session: "s1", model: "faux/faux-1" })
      })
      return yield* Effect.promise(() =>
        makeTaskTools({
          pi,
          cwd,
          memoryDir,
          writer: task,
          guard,
          check: Effect.void,
          onChange: () => Effect.void
        })
      )
    })
  )
  const exec = (name: string, args: Record<string, unknown>) => tools.byName(name)!.execute("c", args, new AbortController().signal)
  const log = () => runtime.runPromise(Effect.flatMap(Journal, (j) => j.read({ rootDir })))
  return { memoryDir, rootDir, exec, log }
}

describe("a background task's journal", () => {
  it("records create, update and delete under one task; undo brings every file back byte for byte", async () => {
    const { memoryDir, rootDir, exec, log } = await setup()
    const a0 = readFileSync(join(memoryDir, "a.md"))
    const b0 = readFileSync(join(memoryDir, "b.md"))
    await exec("read", { path: join(memoryDir, "a.md") })
    expect((await exec("write", { path: join(memoryDir, "c.md"), content: TOPIC("C", "gamma") })).isError).not.toBe(true)
    expect((await exec("edit", { path: join(memoryDir, "a.md"), edits: [{ oldText: "alpha", newText: "alpha two" }] })).isError).not.toBe(true)
    expect((await exec("bash", { command: `rm ${join(memoryDir, "b.md")}` })).isError).not.toBe(true)

    const { entries } = await log()
    expect(entries).toHaveLength(1)
    expect(entries[0]!.task).toBe("t1")
    expect(netChanges(entries[0]!)).toEqual([
      { file: "c.md", op: "create", before: null, after: sha256Hex(TOPIC("C", "gamma")) },
      { file: "a.md", op: "update", before: sha256Hex(a0), after: sha256Hex(readFileSync(join(memoryDir, "a.md"))) },
      { file: "b.md", op: "delete", before: sha256Hex(b0), after: null }
    ])

    const undone = await runtime.runPromise(Effect.flatMap(Journal, (j) => j.undo({ rootDir, memoryDir }, { session: null, model: null })))
    expect(undone.refused).toEqual([])
    expect(readFileSync(join(memoryDir, "a.md")).equals(a0)).toBe(true)
    expect(readFileSync(join(memoryDir, "b.md")).equals(b0)).toBe(true)
    expect(existsSync(join(memoryDir, "c.md"))).toBe(false)
  })

  it("a write the writer refuses (file not read first) is not journaled at all: refused before the bytes are replaced", async () => {
    const { memoryDir, exec, log } = await setup()
    const before = readFileSync(join(memoryDir, "a.md"), "utf8")
    const refused = await exec("write", { path: join(memoryDir, "a.md"), content: TOPIC("A", "overwritten") })
    expect(refused.isError).toBe(true)
    expect(readFileSync(join(memoryDir, "a.md"), "utf8")).toBe(before)
    expect((await log()).entries).toHaveLength(0)
  })
})

describe("groupByTask", () => {
  const entry = (task: string, file: string, before: string | null, after: string | null): JournalEntry => ({
    v: 1,
    task,
    kind: "extract",
    at: "2026-11-30T12:00:00.000Z",
    session: null,
    model: null,
    changes: [{ file, op: before === null ? "create" : after === null ? "delete" : "update", before, after }]
  })
  const h = (c: string) => c.repeat(64)

  it("merges the entries of a task in order, placed at its last entry; other tasks keep their place", () => {
    const grouped = groupByTask([entry("x", "a.md", null, h("1")), entry("y", "b.md", h("2"), h("3")), entry("x", "a.md", h("1"), h("4"))])
    expect(grouped.map((e) => e.task)).toEqual(["y", "x"])
    expect(grouped[1]!.changes.map((c) => c.after)).toEqual([h("1"), h("4")])
    expect(netChanges(grouped[1]!)).toEqual([{ file: "a.md", op: "create", before: null, after: h("4") }])
  })
})
