/**
 * Child process for the crash test: journals a task the way a writer does before publishing, says so on stdout,
 * then publishes one file slowly enough to be SIGKILLed in between.
 *   node test/journal/recordWorker.ts <rootDir> <memoryDir>
 */
import { Effect, Layer } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { FileSystem } from "../../layers/FileSystem.ts"
import { Journal } from "../../layers/Journal.ts"
import { LockService } from "../../layers/LockService.ts"

const [rootDir, memoryDir] = process.argv.slice(2) as [string, string]
const layer = Journal.layer.pipe(Layer.provideMerge(LockService.layer), Layer.provide(FileSystem.layer))
const before = readFileSync(join(memoryDir, "a.md"))
await Effect.runPromise(
  Effect.flatMap(Journal, (j) =>
    j.record({ rootDir }, {
      task: "crash-1",
      kind: "extract",
      session: "s",
      model: null,
      changes: [
        { file: "a.md", before, after: Buffer.from("A2\n") },
        { file: "b.md", before: null, after: Buffer.from("B\n") }
      ]
    })
  ).pipe(Effect.provide(layer))
)
process.stdout.write("recorded\n")
// The publish never comes: the process stays alive on its open stdin (the parent's pipe) until the parent kills it.
process.stdin.resume()
