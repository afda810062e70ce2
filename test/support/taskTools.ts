/** A background task's tools over real files in a temporary folder, the real writer and the real bash guard. */
import * as pi from "@earendil-works/pi-coding-agent"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach } from "vitest"
import { makeTaskTools, type TaskToolSet, type TaskToolsOptions } from "../../layers/background/tools/TaskTools.ts"
import type { MemoryChange } from "../../layers/background/tools/taskTool.ts"
import { BashGuard } from "../../layers/safety/BashGuard.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { MemoryWriter } from "../../layers/writes/MemoryWriter.ts"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const runtime = ManagedRuntime.make(Layer.merge(MemoryWriter.layer, BashGuard.layer).pipe(Layer.provideMerge(FileSystem.layer)))
afterAll(() => runtime.dispose())

export const TOPIC = (name: string, body: string) => `---\nname: ${name}\ndescription: ${name}\nmetadata:\n  type: project\n---\n${body}\n`

/** project/ and memory/ (MEMORY.md and a.md) in a fresh folder, and the task's tools over them. */
export const setupTaskTools = async (extra: Partial<TaskToolsOptions> = {}) => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-tools-")))
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
        makeTaskTools({ pi, cwd, memoryDir, writer: task, guard, check: Effect.void, onChange: (c) => Effect.sync(() => void changes.push(c)), ...extra })
      )
    })
  )
  return { base, cwd, memoryDir, tools, changes }
}

export const exec = (tools: TaskToolSet, name: string, args: Record<string, unknown>) =>
  tools.byName(name)!.execute("call-1", args, new AbortController().signal)

export const text = (r: { content: ReadonlyArray<{ type: string; text?: string }> }) => r.content.map((c) => c.text ?? "").join("")
