/**
 * The trust guards of a background task's tools over real files, the real writer and the real bash guard: the
 * credential guard on `write`/`edit` (the final content), protected reads, and the dream's delete cap.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { makeTaskTools, type MemoryChange, type TaskToolSet, type TaskToolsOptions } from "../../layers/background/TaskTools.ts"
import { BashGuard } from "../../layers/BashGuard.ts"
import { FileSystem } from "../../layers/FileSystem.ts"
import { MemoryWriter } from "../../layers/MemoryWriter.ts"
import { githubToken, privateKeyBlock } from "./fakeSecrets.ts"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const runtime = ManagedRuntime.make(Layer.merge(MemoryWriter.layer, BashGuard.layer).pipe(Layer.provideMerge(FileSystem.layer)))
afterAll(() => runtime.dispose())

const TOPIC = (name: string, body: string) => `---\nname: ${name}\ndescription: ${name}\nmetadata:\n  type: project\n---\n${body}\n`

export const setup = async (extra: Partial<TaskToolsOptions> = {}) => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-trust-")))
  dirs.push(base)
  const cwd = join(base, "project")
  const memoryDir = join(base, "memory")
  mkdirSync(cwd)
  mkdirSync(memoryDir)
  writeFileSync(join(memoryDir, "MEMORY.md"), "- [A](a.md) - a\n")
  writeFileSync(join(memoryDir, "a.md"), TOPIC("A", "alpha body"))
  const changes: Array<MemoryChange> = []
  const tools = await runtime.runPromise(
    Effect.gen(function*() {
      const writer = yield* MemoryWriter
      const guard = yield* BashGuard
      const task = yield* writer.openTask({ memoryDir, cwd })
      return yield* Effect.promise(() =>
        makeTaskTools({ cwd, memoryDir, writer: task, guard, check: Effect.void, onChange: (c) => Effect.sync(() => void changes.push(c)), ...extra })
      )
    })
  )
  return { base, cwd, memoryDir, tools, changes }
}

export const exec = (tools: TaskToolSet, name: string, args: Record<string, unknown>) =>
  tools.byName(name)!.execute("call-1", args, new AbortController().signal)
export const text = (r: { content: ReadonlyArray<{ type: string; text?: string }> }) => r.content.map((c) => c.text ?? "").join("")

describe("background write and edit: the credential guard", () => {
  it("a write holding a GitHub token is refused with the kind and line; nothing is written", async () => {
    const { tools, memoryDir, changes } = await setup()
    const token = githubToken()
    const path = join(memoryDir, "deploy.md")
    const result = await exec(tools, "write", { path, content: TOPIC("Deploy", `push with ${token}`) })
    expect(result.isError).toBe(true)
    expect(text(result)).toContain("GitHub")
    expect(text(result)).toContain("line 7")
    expect(text(result)).toContain("deploy.md")
    expect(text(result)).toContain("remove or redact")
    expect(text(result)).not.toContain(token)
    expect(existsSync(path)).toBe(false)
    expect(changes).toEqual([])
    // Redacted, the same write lands.
    const clean = await exec(tools, "write", { path, content: TOPIC("Deploy", "push with the token kept in the CI secret store") })
    expect(clean.isError).not.toBe(true)
    expect(existsSync(path)).toBe(true)
  })

  it("an edit whose final content holds a private key is refused; the file keeps its bytes", async () => {
    const { tools, memoryDir, changes } = await setup()
    const path = join(memoryDir, "a.md")
    const before = readFileSync(path, "utf8")
    expect((await exec(tools, "read", { path })).isError).not.toBe(true)
    const result = await exec(tools, "edit", { path, edits: [{ oldText: "alpha body", newText: `key:\n${privateKeyBlock()}` }] })
    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(/private key at line 8/i)
    expect(readFileSync(path, "utf8")).toBe(before)
    expect(changes).toEqual([])
    const ok = await exec(tools, "edit", { path, edits: [{ oldText: "alpha body", newText: "alpha body, revised" }] })
    expect(ok.isError).not.toBe(true)
    expect(readFileSync(path, "utf8")).toContain("revised")
  })
})
