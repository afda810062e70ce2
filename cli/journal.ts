/** `pm log` and `pm undo`: the change journal of the project's memory. */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { netChanges } from "../src/journal.ts"
import { Journal } from "../layers/Journal.ts"
import { undoUnderLocks } from "../layers/MemoryUndo.ts"
import type { logOptions, Parsed, undoOptions } from "./commandLine.ts"
import { inspect, locate, orFail, waitOf } from "./locate.ts"
import { EXIT_PROBLEMS, printJson, printLine, setExit, table } from "./output.ts"

export const log = ({ cwd, json, limit }: Parsed<typeof logOptions>) =>
  orFail(
    Effect.gen(function* () {
      // Reading only: nothing is claimed or created, so a read-only store can be logged.
      const location = yield* inspect(cwd)
      const listing = yield* (yield* Journal).read(
        { rootDir: location.memoryRootDir },
        Option.isSome(limit) ? { limit: Math.max(0, limit.value) } : undefined
      )
      if (listing.invalidLines > 0) process.stderr.write(`pm: warning: ${listing.invalidLines} journal line(s) could not be read; skipped.\n`)
      const tasks = listing.entries.map((e) => ({
        task: e.task,
        kind: e.kind,
        at: e.at,
        session: e.session,
        model: e.model,
        changes: netChanges(e).map((c) => ({ file: c.file, op: c.op, before: c.before, after: c.after }))
      }))
      if (json) return yield* printJson(tasks)
      if (tasks.length === 0) return yield* printLine("No changes recorded.")
      for (const t of tasks) {
        yield* printLine(`${t.at}  ${t.kind}  ${t.task}  model ${t.model ?? "-"}  session ${t.session ?? "-"}`)
        const rows = t.changes.map((c) => ["", c.op, c.file])
        yield* printLine(rows.length === 0 ? "    (no net change)" : table(["", "", ""], rows).split("\n").slice(1).join("\n"))
      }
    })
  )

export const undo = ({ cwd, json, task, wait }: Parsed<typeof undoOptions>) =>
  orFail(
    Effect.gen(function* () {
      const location = yield* locate(cwd)
      const result = yield* undoUnderLocks(location, {
        ...(Option.isSome(task) ? { task: task.value } : {}),
        session: null,
        model: null,
        ...waitOf(wait)
      })
      const out = { task: result.task, restored: result.restored, refused: result.refused }
      if (json) yield* printJson(out)
      else {
        yield* printLine(`Undid ${result.task}: ${result.restored.length} file(s) restored${result.refused.length > 0 ? `, ${result.refused.length} refused` : ""}.`)
        for (const r of result.refused) yield* printLine(`  refused ${r.file}: ${r.reason}`)
      }
      if (result.refused.length > 0) yield* setExit(EXIT_PROBLEMS)
    })
  )
