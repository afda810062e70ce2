/** A memory directory in a temp folder, and the writer wired to the real (or a faulty) file system. */
import { Effect, Layer } from "effect"
import { mkdirSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { type FileSystemShape } from "../../layers/storage/fileSystemShape.ts"
import type { MemoryTask, TaskOptions } from "../../layers/writes/memoryTask.ts"
import { MemoryWriter } from "../../layers/writes/MemoryWriter.ts"
import { tempDir } from "../locks/processes.ts"

export const writerLayer = (overrides: Partial<FileSystemShape> = {}) =>
  MemoryWriter.layer.pipe(Layer.provide(FileSystem.layerWith(overrides)))

export interface Sandbox {
  /** The temp folder: `memory/` (the memory directory), `outside/`, `project/`. */
  readonly root: string
  readonly memory: string
  readonly outside: string
  readonly project: string
  readonly [Symbol.dispose]: () => void
}

export const sandbox = (): Sandbox => {
  const dir = tempDir("writer")
  const memory = join(dir.path, "memory")
  const outside = join(dir.path, "outside")
  const project = join(dir.path, "project")
  for (const d of [memory, outside, project]) mkdirSync(d)
  return { root: dir.path, memory, outside, project, [Symbol.dispose]: dir[Symbol.dispose] }
}

export const withTask = <A, E>(
  options: TaskOptions,
  use: (task: MemoryTask) => Effect.Effect<A, E>,
  overrides: Partial<FileSystemShape> = {}
): Promise<A> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const writer = yield* MemoryWriter
      return yield* use(yield* writer.openTask(options))
    }).pipe(Effect.provide(writerLayer(overrides)))
  )

/** Every file name under `dir`, recursively, for "no temp file left" checks. */
export const allNames = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { recursive: true, encoding: "utf8" }).map((n) => n.split("/").pop()!)

export const temps = (dir: string) => allNames(dir).filter((n) => n.startsWith(".pm-") || n.endsWith(".tmp"))
