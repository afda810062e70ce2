/** `pm log` and `pm undo`: the change journal of the project's memory. */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { resolve } from "node:path"
import { netChanges } from "../src/writes/journal.ts"
import { Journal } from "../layers/writes/Journal.ts"
import { describeUndo, undoUnderLocks } from "../layers/writes/MemoryUndo.ts"
import type { logOptions, Parsed, undoOptions } from "./commandOptions.ts"
import { inspectWith, locateWith, orFail, waitOf } from "./locate.ts"
import { EXIT_PROBLEMS, printJson, printLine, setExit, table } from "./output.ts"

export const log = ({ cwd, json, limit, memoryDir }: Parsed<typeof logOptions>) =>
  orFail(
    Effect.gen(function* () {
      // Reading only: nothing is claimed or created, so a read-only store can be logged.
      const location = yield* inspectWith(cwd, memoryDir)
      const listing = yield* (yield* Journal).read(
        { rootDir: location.memoryRootDir },
        Option.isSome(limit) ? { limit: Math.max(0, limit.value) } : undefined
      )
      if (listing.invalidLines > 0) process.stderr.write(`pm: warning: ${listing.invalidLines} journal line(s) could not be read; skipped.\n`)
      const recoveries = new Map(
        listing.entries.flatMap((e) => (e.recovers !== undefined && e.finished === true ? [[e.recovers, e] as const] : []))
      )
      const tasks = listing.entries.map((e) => {
        const recovery = recoveries.get(e.task)
        return {
          task: e.task,
          kind: e.kind,
          at: e.at,
          session: e.session,
          model: e.model,
          changes: netChanges(e).map((c) => ({ file: c.file, op: c.op, before: c.before, after: c.after })),
          /** Changes journaled whose publish is not known yet (the writer was killed): settled by the next undo or recovery. */
          pending: e.changes.filter((c) => c.status === "pending").map((c) => c.file),
          /** The task was interrupted, and found later: rolled back, or settled by the index as it was (files changed since). */
          ...(recovery === undefined ? {} : { interrupted: { by: recovery.task, at: recovery.at, rolledBack: recovery.undoes === e.task } }),
          ...(e.recovers === undefined ? {} : { recovers: e.recovers })
        }
      })
      if (json) return yield* printJson(tasks)
      if (tasks.length === 0) return yield* printLine("No changes recorded.")
      for (const t of tasks) {
        yield* printLine(`${t.at}  ${t.kind}  ${t.task}  model ${t.model ?? "-"}  session ${t.session ?? "-"}`)
        const rows = t.changes.map((c) => ["", c.op, c.file])
        yield* printLine(rows.length === 0 ? "    (no net change)" : table(["", "", ""], rows).split("\n").slice(1).join("\n"))
        if (t.pending.length > 0) yield* printLine(`    interrupted (not known whether published): ${t.pending.join(", ")}`)
        if (t.interrupted !== undefined) {
          yield* printLine(
            t.interrupted.rolledBack
              ? `    interrupted, and rolled back when found (${t.interrupted.by}): nothing of it is left to undo`
              : `    interrupted; files it changed were changed since, so the index as it was decided what stayed (${t.interrupted.by})`
          )
        }
        if (t.recovers !== undefined) yield* printLine(`    the recovery of ${t.recovers}, interrupted earlier`)
      }
    })
  )

export const undo = ({ cwd, json, task, wait, to, memoryDir }: Parsed<typeof undoOptions>) =>
  orFail(
    Effect.gen(function* () {
      const location = yield* locateWith(cwd, memoryDir)
      if (Option.isSome(to)) {
        const dir = resolve(to.value)
        const exported = yield* (yield* Journal).exportTask(
          { rootDir: location.memoryRootDir },
          { ...(Option.isSome(task) ? { task: task.value } : {}), dir }
        )
        if (json) yield* printJson(exported)
        else {
          yield* printLine(`Previous bytes of ${exported.task}, written under ${dir} (memory unchanged):`)
          for (const f of exported.files) yield* printLine(f.path !== undefined ? `  wrote      ${f.path}` : `  skipped    ${f.file}: ${f.note}`)
        }
        if (exported.files.some((f) => f.path === undefined && f.note?.startsWith("it did not exist") !== true)) yield* setExit(EXIT_PROBLEMS)
        return
      }
      // Changes rolled back first are part of what the undo reports (describeUndo), not told on the way.
      const { onRecovered: _told, ...waiting } = waitOf(wait)
      const result = yield* undoUnderLocks(location, {
        ...(Option.isSome(task) ? { task: task.value } : {}),
        session: null,
        model: null,
        ...waiting
      })
      const out = {
        task: result.task,
        undoTask: result.undoTask ?? null,
        files: result.files,
        restored: result.restored,
        refused: result.refused,
        ...(result.recovered === undefined ? {} : { recovered: result.recovered })
      }
      if (json) yield* printJson(out)
      else for (const line of describeUndo(result)) yield* printLine(line)
      if (result.refused.length > 0) yield* setExit(EXIT_PROBLEMS)
    })
  )
