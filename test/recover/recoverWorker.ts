/**
 * Child process for the recovery crash tests: one command over real files, killed by SIGKILL from inside right before
 * its Nth file-system operation (every call of the FileSystem service counts, from the command's first lock on), so
 * the same number reproduces the same point.
 *   node recoverWorker.mjs '{"rootDir":…,"memoryDir":…,"scenario":…,"killAt":N|null}'
 * Scenarios: `forget` (fact-b), `remember` (a new fact), `undo` (of that remember), `dream` (the write path of a
 * dream: fact-b merged into fact-a and deleted, its index line removed) and `extract` (the write path of an extraction:
 * a new topic, its index line, and an edit of fact-a), each through the product's own code: MemoryBrowse's forget and
 * remember, undoUnderLocks, and for the tasks `journal.whole` under the task's lock with a MemoryWriter task, as
 * layers/background/taskSetup.ts runs them. Prints `ops N` when it runs to its end. `"killAt":"unmark"` kills it
 * right before it removes its open-task marker: every change made, none kept.
 */
import { Effect } from "effect"
import { type FileSystemShape } from "../../layers/storage/fileSystemShape.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { runScenario, scenarioLayer, type Scenario } from "./recoverScenarios.ts"

const config = JSON.parse(process.argv[2]!) as {
  rootDir: string
  memoryDir: string
  scenario: Scenario
  /** A call's number, or "unmark": right before the open-task marker is removed (every change made, none closed). */
  killAt: number | "unmark" | null
}

let ops = 0
let counting = false
const real = makeNodeFileSystem()
const counted = Object.fromEntries(
  Object.entries(real).map(([name, op]) => [
    name,
    (...args: Array<unknown>) =>
      Effect.suspend(() => {
        if (counting) {
          ops++
          if (ops === config.killAt) process.kill(process.pid, "SIGKILL")
          if (config.killAt === "unmark" && name === "unlink" && String(args[0]).includes("/open/")) process.kill(process.pid, "SIGKILL")
        }
        return (op as (...a: Array<unknown>) => Effect.Effect<unknown, unknown>)(...args)
      })
  ])
) as unknown as FileSystemShape

const layer = scenarioLayer(counted)

await Effect.runPromise(
  Effect.sync(() => void (counting = true)).pipe(
    Effect.zipRight(runScenario(config.scenario, counted, { rootDir: config.rootDir, memoryDir: config.memoryDir })),
    Effect.provide(layer)
  )
)
process.stdout.write(`ops ${ops}\n`)
