/**
 * Child process for the crash tests: one scenario over real files, killed by SIGKILL from inside right before its
 * Nth file-system operation (every call of the FileSystem service counts), so a kill lands at a chosen point of
 * recording, publishing or undoing and the same number reproduces it.
 *   node crashWorker.mjs '{"rootDir":…,"memoryDir":…,"scenario":"task"|"undo"|"intent-only","killAt":N|null}'
 * Prints `ops N` (operations performed) when it runs to its end.
 */
import { Effect, Layer } from "effect"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { type FileSystemShape } from "../../layers/storage/fileSystemShape.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { Journal } from "../../layers/writes/Journal.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { makeMemoryWriter } from "../../layers/writes/MemoryWriter.ts"

const config = JSON.parse(process.argv[2]!) as {
  rootDir: string
  memoryDir: string
  scenario: "task" | "undo" | "intent-only"
  killAt: number | null
  /** Killed right after the first rename onto a path ending in this (a publish whose outcome is never journaled). */
  killAfterRenameTo?: string
}

let ops = 0
const real = makeNodeFileSystem()
const counted = Object.fromEntries(
  Object.entries(real).map(([name, op]) => [
    name,
    (...args: Array<unknown>) =>
      Effect.suspend(() => {
        ops++
        if (ops === config.killAt) process.kill(process.pid, "SIGKILL")
        const run = (op as (...a: Array<unknown>) => Effect.Effect<unknown, unknown>)(...args)
        const target = config.killAfterRenameTo
        return name === "rename" && target !== undefined && String(args[1]).endsWith(target)
          ? Effect.tap(run, () => Effect.sync(() => process.kill(process.pid, "SIGKILL")))
          : run
      })
  ])
) as unknown as FileSystemShape

const layer = Journal.layer.pipe(Layer.provideMerge(LockService.layer), Layer.provideMerge(Layer.succeed(FileSystem, counted)))
const { memoryDir, rootDir } = config

const program = Effect.gen(function*() {
  const journal = yield* Journal
  if (config.scenario === "undo") {
    yield* journal.undo({ rootDir, memoryDir }, { session: null, model: null })
    return
  }
  const hook = journal.forWriter({ rootDir }, { task: "t-crash", kind: "extract", session: "s", model: null })
  if (config.scenario === "intent-only") {
    // Journals the intent, then stops for good before the rename: the parent kills it while it waits.
    yield* hook.around(
      (intend) =>
        intend({ file: "a.md", before: Buffer.from("A-old\n"), after: Buffer.from("A-new\n") }).pipe(
          Effect.zipRight(Effect.sync(() => process.stdout.write("intended\n"))),
          Effect.zipRight(Effect.never)
        ),
      () => "done"
    )
    return
  }
  const task = yield* makeMemoryWriter(counted).openTask({ memoryDir, cwd: memoryDir, journal: hook })
  for (const name of ["a.md", "b.md"]) {
    const bytes = (yield* counted.readRegularFile(`${memoryDir}/${name}`)).bytes
    yield* task.recordRead(name, { kind: "text", truncated: false }, { bytes, mtimeMs: (yield* counted.stat(`${memoryDir}/${name}`)).mtimeMs })
  }
  yield* task.write("a.md", "A-new\n")
  yield* task.write("c.md", "C-new\n")
  yield* task.remove("b.md")
})

await Effect.runPromise(program.pipe(Effect.provide(layer)))
process.stdout.write(`ops ${ops}\n`)
