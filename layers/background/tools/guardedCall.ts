/**
 * The gate in front of every background tool call: once the tools are dead, every call fails; otherwise the task's
 * validity check (trust, generation, lock) runs first, and once it fails the tools are dead. Then the arguments are
 * checked against the tool's schema before any of its code runs, and a write's or edit's outcome is noted in the
 * change records. A tool's thrown error becomes an error result naming the tool; nothing escapes as an exception.
 */
import * as Effect from "effect/Effect"
import { TaskInvalid } from "../../writes/writeErrors.ts"
import type { ChangeRecords } from "./changeRecords.ts"
import { checkToolArguments } from "./toolArguments.ts"
import type { ToolRuntime } from "./toolRuntime.ts"
import { type BackgroundToolName, errorResult, type ToolBody } from "./taskTool.ts"

export interface GateOptions {
  readonly runtime: ToolRuntime
  /** Task validity; fails once the task may no longer act. */
  readonly check: Effect.Effect<void, TaskInvalid>
  readonly records: ChangeRecords
  /** Pi's own repair of common argument mistakes, per tool, run before the check. */
  readonly prepareOf: Partial<Record<BackgroundToolName, ((args: unknown) => unknown) | undefined>>
}

export const makeGuarded = ({ runtime, check, records, prepareOf }: GateOptions) =>
  (name: BackgroundToolName, body: ToolBody): ToolBody =>
    async (id, raw, signal) => {
      if (runtime.dead !== undefined) return errorResult(`This background task was stopped (${runtime.dead}); no tool may run any more.`)
      const valid = await runtime.runEffect(Effect.either(check))
        .catch(() => ({ _tag: "Left" as const, left: new TaskInvalid({ reason: runtime.dead ?? "the background task was stopped" }) }))
      if (valid._tag === "Left") {
        runtime.dead = valid.left.reason
        return errorResult(valid.left.message)
      }
      // The arguments against the tool's schema before any of its code runs (a copy: the transcript keeps the call).
      const prepare = prepareOf[name]
      const checked = checkToolArguments(name, prepare === undefined ? raw : prepare(structuredClone(raw)))
      if (checked._tag === "Invalid") return errorResult(checked.message)
      const args = checked.args
      try {
        return records.noteChangeAttempt(name, args, await body(id, args, signal))
      } catch (e) {
        return records.noteChangeAttempt(name, args, errorResult(`${name} failed: ${e instanceof Error ? e.message : String(e)}`))
      }
    }
