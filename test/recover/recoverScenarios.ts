/**
 * The memory every recovery crash trial starts from, the scenarios (each through the product's own code) and what
 * the next start does: shared by the worker, which runs a scenario until it is killed, and the tests, which recover
 * and retry in their own process.
 */
import { Effect, Exit, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { join } from "node:path"
import { locksDirOf } from "../../src/storage/layout.ts"
import { makeMemoryBrowse } from "../../layers/memory/MemoryBrowse.ts"
import { MemoryStore } from "../../layers/memory/MemoryStore.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import type { FileSystemShape } from "../../layers/storage/fileSystemShape.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { Journal } from "../../layers/writes/Journal.ts"
import { holdingBackgroundLocksAfter, undoUnderLocks } from "../../layers/writes/MemoryUndo.ts"
import { MemoryWriter } from "../../layers/writes/MemoryWriter.ts"

export const topic = (name: string, body: string) =>
  `---\nname: ${name}\ndescription: about ${name}\nmetadata:\n  type: project\n---\n${body}\n`

export const INITIAL: Readonly<Record<string, string>> = {
  "MEMORY.md": "# Memory\n- [fact a](fact-a.md) - about fact a\n- [fact b](fact-b.md) - about fact b\n- [fact c](fact-c.md) - about fact c\n",
  "fact-a.md": topic("fact a", "The first fact."),
  "fact-b.md": topic("fact b", "The second fact."),
  "fact-c.md": topic("fact c", "The third fact.")
}

export type TaskEdit =
  | { readonly op: "write"; readonly file: string; readonly content: (current: string) => string }
  | { readonly op: "remove"; readonly file: string }

export const TASK_EDITS: Readonly<Record<"dream" | "extract", ReadonlyArray<TaskEdit>>> = {
  // A consolidation: fact-b merged into fact-a, deleted, and its index line removed (the order a dream uses, so a
  // kill between the delete and the index leaves the index linking a topic that is gone).
  dream: [
    { op: "write", file: "fact-a.md", content: (c) => `${c}The second fact, merged.\n` },
    { op: "remove", file: "fact-b.md" },
    { op: "write", file: "MEMORY.md", content: (c) => c.replace("- [fact b](fact-b.md) - about fact b\n", "") }
  ],
  // An extraction: a new topic, its index line, and a note added to an existing one.
  extract: [
    { op: "write", file: "fact-d.md", content: () => topic("fact d", "The fourth fact.") },
    { op: "write", file: "MEMORY.md", content: (c) => `${c}- [fact d](fact-d.md) - about fact d\n` },
    { op: "write", file: "fact-c.md", content: (c) => `${c}Seen again.\n` }
  ]
}

export type Scenario = "forget" | "remember" | "undo" | "dream" | "extract"

/** The services a scenario runs over, on `fs`. */
export const scenarioLayer = (fs: FileSystemShape) =>
  Layer.mergeAll(Journal.layer, MemoryStore.layer, MemoryWriter.layer).pipe(
    Layer.provideMerge(LockService.layer),
    Layer.provideMerge(Layer.succeed(FileSystem, fs))
  )

export interface MemoryPaths {
  readonly rootDir: string
  readonly memoryDir: string
}

/** A background task's write path: its lock, the recovery it runs first, then its changes as one whole task. */
const taskWrites = (fs: FileSystemShape, kind: "dream" | "extract", paths: MemoryPaths) =>
  Effect.gen(function*() {
    const locks = yield* LockService
    const journal = yield* Journal
    const writer = yield* MemoryWriter
    const { memoryDir } = paths
    const lock = kind === "dream" ? "dream.lock" : "extract.lock"
    const outcome = yield* locks.withLock(locksDirOf(paths.rootDir), lock, () =>
      Effect.gen(function*() {
        yield* journal.recoverOpen(paths, [lock])
        yield* journal.whole({ paths, meta: { task: `${kind}-${randomUUID()}`, kind, session: "s", model: "m/x" }, locks: [lock] }, (hook) =>
          Effect.gen(function*() {
            const task = yield* writer.openTask({ memoryDir, cwd: memoryDir, journal: hook })
            for (const step of TASK_EDITS[kind]) {
              if (step.op === "remove") {
                yield* task.remove(step.file)
                continue
              }
              const current = yield* fs.readRegularFile(join(memoryDir, step.file)).pipe(Effect.option)
              const text = current._tag === "Some" ? new TextDecoder().decode(current.value.bytes) : ""
              if (current._tag === "Some") {
                yield* task.recordRead(step.file, { kind: "text", truncated: false }, { bytes: current.value.bytes, mtimeMs: current.value.info.mtimeMs })
              }
              yield* task.write(step.file, step.content(text))
            }
          }), Exit.isSuccess)
      }))
    if (outcome._tag === "Busy") return yield* Effect.dieMessage(`${lock} busy`)
  })

/** Runs one scenario's command to its end (or its kill), through the product's own code. */
export const runScenario = (scenario: Scenario, fs: FileSystemShape, paths: MemoryPaths) =>
  Effect.gen(function*() {
    const { memoryDir, rootDir } = paths
    if (scenario === "dream" || scenario === "extract") return yield* taskWrites(fs, scenario, paths)
    if (scenario === "undo") {
      const location = { memoryDir, memoryRootDir: rootDir } as Parameters<typeof undoUnderLocks>[0]
      return yield* Effect.asVoid(undoUnderLocks(location, { session: null, model: null }))
    }
    const browse = yield* makeMemoryBrowse
    if (scenario === "forget") return yield* Effect.asVoid(browse.forget({ memoryDir, rootDir, names: ["fact-b"], session: null }))
    yield* Effect.asVoid(browse.remember({ memoryDir, rootDir, text: REMEMBERED, session: null }))
  })

export const REMEMBERED = "deploys go out on Fridays only"

/**
 * What the next start does: a person's command takes both background locks and recovers first; a task takes its own
 * lock (the extraction's, for both tasks: a dead dream is then recovered by an extraction, taking dream.lock at once),
 * recovers, and opens its writer task (which sweeps old and orphaned temp files).
 */
export const recoverNext = (scenario: Scenario, paths: MemoryPaths) =>
  Effect.gen(function*() {
    if (scenario === "dream" || scenario === "extract") {
      const locks = yield* LockService
      const journal = yield* Journal
      const writer = yield* MemoryWriter
      const outcome = yield* locks.withLock(locksDirOf(paths.rootDir), "extract.lock", () =>
        journal.recoverOpen(paths, ["extract.lock"]).pipe(
          Effect.tap(() => writer.openTask({ memoryDir: paths.memoryDir, cwd: paths.memoryDir }))
        ))
      if (outcome._tag === "Busy") return yield* Effect.dieMessage("extract.lock busy")
      return outcome.value
    }
    return yield* holdingBackgroundLocksAfter(paths, (recovered) => Effect.succeed(recovered))
  })
