/**
 * The six tools of a background task over real files, the real writer and the real bash guard (Pi's tool
 * definitions underneath): reads record baselines, deletes go through the writer, read-only bash runs, find and grep
 * work offline, and once the task is invalid every call fails.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import * as pi from "@earendil-works/pi-coding-agent"
import { GLOB_VISIT_LIMIT } from "../../layers/safety/ProtectedReads.ts"
import { makeTaskTools, type TaskToolSet } from "../../layers/background/tools/TaskTools.ts"
import type { MemoryChange } from "../../layers/background/tools/taskTool.ts"
import { BashGuard } from "../../layers/safety/BashGuard.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { MemoryWriter } from "../../layers/writes/MemoryWriter.ts"
import { TaskInvalid } from "../../layers/writes/writeErrors.ts"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

// One runtime for the file: the guard's parser lives as long as its layer's scope.
const runtime = ManagedRuntime.make(Layer.merge(MemoryWriter.layer, BashGuard.layer).pipe(Layer.provideMerge(FileSystem.layer)))
afterAll(() => runtime.dispose())

const setup = async (valid: { value: boolean }, codemode?: { mode: "on" | "only"; inlineBudget: number | undefined }) => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-tools-")))
  dirs.push(base)
  const cwd = join(base, "project")
  const memoryDir = join(base, "memory")
  mkdirSync(cwd)
  mkdirSync(memoryDir)
  writeFileSync(join(cwd, "notes.txt"), "alpha\nbeta needle\n")
  writeFileSync(join(memoryDir, "MEMORY.md"), "- [A](a.md) - a\n")
  writeFileSync(join(memoryDir, "a.md"), "---\nname: A\ndescription: a\nmetadata:\n  type: user\n---\nneedle body\n")
  const changes: Array<MemoryChange> = []
  const check = Effect.suspend(() => (valid.value ? Effect.void : Effect.fail(new TaskInvalid({ reason: "trust was revoked" }))))
  const tools = await runtime.runPromise(
    Effect.gen(function*() {
      const writer = yield* MemoryWriter
      const guard = yield* BashGuard
      const task = yield* writer.openTask({ memoryDir, cwd, check })
      return yield* Effect.promise(() =>
        makeTaskTools({ pi, cwd, memoryDir, writer: task, guard, check, codemode, onChange: (c) => Effect.sync(() => void changes.push(c)) })
      )
    })
  )
  return { base, cwd, memoryDir, tools, changes }
}

const exec = (tools: TaskToolSet, name: string, args: Record<string, unknown>) =>
  tools.byName(name)!.execute("call-1", args, new AbortController().signal)
const text = (r: { content: ReadonlyArray<{ type: string; text?: string }> }) => r.content.map((c) => c.text ?? "").join("")

describe("background task tools", () => {
  it("declare exactly the six tools with Pi's schemas", async () => {
    const { tools } = await setup({ value: true })
    expect(tools.tools.map((t) => t.name)).toEqual(["read", "find", "grep", "write", "edit", "bash"])
    expect(JSON.stringify(tools.byName("edit")!.declaration.parameters)).toContain("oldText")
    expect(tools.byName("ls")).toBeUndefined()
  })

  it("a full read sets the baseline that a later edit needs; the edit is published and reported", async () => {
    const { tools, memoryDir, changes } = await setup({ value: true })
    const path = join(memoryDir, "a.md")
    const refused = await exec(tools, "edit", { path, edits: [{ oldText: "needle body", newText: "new body" }] })
    expect(refused.isError).toBe(true)
    expect((await exec(tools, "read", { path })).isError).not.toBe(true)
    const edited = await exec(tools, "edit", { path, edits: [{ oldText: "needle body", newText: "new body" }] })
    expect(edited.isError).not.toBe(true)
    expect((edited.details as { diff?: string }).diff).toContain("new body")
    expect(readFileSync(path, "utf8")).toContain("new body")
    expect(changes).toEqual([{ op: "edit", path }])
  })

  it("a paged read truncated by the default window sets no baseline", async () => {
    const { tools, memoryDir } = await setup({ value: true })
    const path = join(memoryDir, "long.md")
    writeFileSync(path, Array.from({ length: 2_500 }, (_, i) => `line ${i}`).join("\n"))
    const read = await exec(tools, "read", { path })
    expect(text(read)).toContain("Use offset=2001")
    const short = "---\nname: long\ndescription: short now\nmetadata:\n  type: project\n---\nshort\n"
    expect((await exec(tools, "write", { path, content: short })).isError).toBe(true)
    await exec(tools, "read", { path, offset: 1, limit: 10 })
    expect((await exec(tools, "write", { path, content: short })).isError).not.toBe(true)
  })

  it("find runs on Node's glob and grep on rg, both without a network", async () => {
    const { tools, cwd } = await setup({ value: true })
    expect(text(await exec(tools, "find", { pattern: "*.txt" }))).toBe("notes.txt")
    const grep = await exec(tools, "grep", { pattern: "needle", path: cwd })
    expect(grep.isError).not.toBe(true)
    expect(text(grep)).toContain("notes.txt:2: beta needle")
  })

  it("bash: read-only commands run, rm of a memory file goes through the writer, anything else is refused", async () => {
    const { tools, memoryDir, cwd, changes } = await setup({ value: true })
    expect(text(await exec(tools, "bash", { command: `cat ${join(cwd, "notes.txt")} | wc -l` })).trim()).toBe("2")
    const removed = await exec(tools, "bash", { command: `rm -f ${join(memoryDir, "a.md")} ${join(memoryDir, "gone.md")}` })
    expect(removed.isError).not.toBe(true)
    expect(existsSync(join(memoryDir, "a.md"))).toBe(false)
    expect(changes).toEqual([{ op: "delete", path: join(memoryDir, "a.md") }])
    const refused = await exec(tools, "bash", { command: `rm ${join(memoryDir, "MEMORY.md")}` })
    expect(refused.isError).toBe(true)
    expect(existsSync(join(memoryDir, "MEMORY.md"))).toBe(true)
  })

  it("a bash glob is expanded at most GLOB_VISIT_LIMIT entries deep before the guard: one reaching more is refused", async () => {
    const { cwd, tools } = await setup({ value: true })
    mkdirSync(join(cwd, "many"))
    for (let i = 0; i <= GLOB_VISIT_LIMIT; i++) writeFileSync(join(cwd, "many", `f${i}`), "")
    const wide = await exec(tools, "bash", { command: "ls many/*" })
    expect(wide.isError).toBe(true)
    expect(text(wide)).toContain(`reaches more than ${GLOB_VISIT_LIMIT} files`)
    // A pattern over the whole disk is refused before it is walked: `/` is outside what the task may read.
    const root = await exec(tools, "bash", { command: "ls /**" })
    expect(root.isError).toBe(true)
    expect(text(root)).toContain("outside the task's project")
    const narrow = await exec(tools, "bash", { command: "ls *.txt" })
    expect(narrow.isError).not.toBe(true)
    expect(text(narrow)).toContain("notes.txt")
  })

  it("once the task is invalid, every call fails, including those that would only read", async () => {
    const valid = { value: true }
    const { tools, memoryDir } = await setup(valid)
    expect((await exec(tools, "read", { path: join(memoryDir, "a.md") })).isError).not.toBe(true)
    valid.value = false
    const first = await exec(tools, "write", { path: join(memoryDir, "b.md"), content: "x" })
    expect(first.isError).toBe(true)
    expect(text(first)).toMatch(/trust was revoked/)
    valid.value = true // even if the check would pass again, the task stays dead
    for (const [name, args] of [["read", { path: join(memoryDir, "a.md") }], ["find", { pattern: "*" }], ["bash", { command: "ls" }]] as const) {
      const r = await exec(tools, name, args)
      expect(r.isError).toBe(true)
      expect(text(r)).toMatch(/stopped/)
    }
    expect(existsSync(join(memoryDir, "b.md"))).toBe(false)
  })
})

describe("task-level codemode", () => {
  it("in only mode the model sees codemode alone; scripts reach the six tools through the same checks, nothing else", async () => {
    const { tools, memoryDir, cwd, base } = await setup({ value: true }, { mode: "only", inlineBudget: undefined })
    expect(tools.tools.map((t) => t.name)).toEqual(["codemode"])
    const script = [
      `const index = await tools.read({ path: ${JSON.stringify(join(memoryDir, "MEMORY.md"))} })`,
      `let refused = []`,
      `try { await tools.bash({ command: ${JSON.stringify(`touch ${join(base, "pwned")}`)} }) } catch (e) { refused.push("bash") }`,
      `try { await tools.write({ path: ${JSON.stringify(join(cwd, "evil.md"))}, content: "x" }) } catch (e) { refused.push("write") }`,
      `try { await tools.deploy({}) } catch (e) { refused.push("deploy") }`,
      `await tools.write({ path: ${JSON.stringify(join(memoryDir, "b.md"))}, content: "---\\nname: B\\ndescription: b\\nmetadata:\\n  type: user\\n---\\nb\\n" })`,
      `return JSON.stringify({ index: String(index).includes("a.md"), refused })`
    ].join("\n")
    const result = await exec(tools, "codemode", { code: script })
    const out = text(result)
    expect(out).toContain(`"refused":["bash","write","deploy"]`)
    expect(out).toContain(`"index":true`)
    expect(existsSync(join(base, "pwned"))).toBe(false)
    expect(existsSync(join(cwd, "evil.md"))).toBe(false)
    expect(readFileSync(join(memoryDir, "b.md"), "utf8")).toContain("name: B")
  })

  it("in on mode the six tools and codemode are offered", async () => {
    const { tools } = await setup({ value: true }, { mode: "on", inlineBudget: 4000 })
    expect(tools.tools.map((t) => t.name)).toEqual(["read", "find", "grep", "write", "edit", "bash", "codemode"])
  })
})
