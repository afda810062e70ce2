/**
 * The gate in front of every background tool call: once the tools are dead, every call fails; otherwise the task's
 * validity check (trust, generation, lock) runs first, and once it fails the tools are dead. Then the arguments are
 * checked against the tool's schema before any of its code runs, and a write's or edit's outcome is noted in the
 * change records. A tool's thrown error becomes an error result naming the tool; nothing escapes as an exception.
 *
 * Every call but bash's (it has its own timeout) runs under TOOL_DEADLINE_MS on the task's clock: at the deadline the
 * call's abort signal fires and the model gets an error result. Every result, an error's too, leaves through
 * `redactResult`: what looks like a credential is replaced by a marker before the model sees it (src/safety/redact.ts).
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { redactionNotice, redactSecrets } from "../../../src/safety/redact.ts"
import { TaskInvalid } from "../../writes/writeErrors.ts"
import type { ChangeRecords } from "./changeRecords.ts"
import { checkToolArguments } from "./toolArguments.ts"
import type { ToolRuntime } from "./toolRuntime.ts"
import { type BackgroundToolName, errorResult, type ToolBody, type ToolResult } from "./taskTool.ts"

/** How long one call of read, find, grep, write or edit may take (grep stops itself sooner, at GREP_TIMEOUT_MS). */
export const TOOL_DEADLINE_MS = 30_000

/** The tools the gate times; bash runs under its own timeout (./bash.ts). */
const DEADLINED: ReadonlySet<BackgroundToolName> = new Set(["read", "find", "grep", "write", "edit"])

export const deadlineMessage = (name: BackgroundToolName): string =>
  `${name} took longer than ${TOOL_DEADLINE_MS / 1000} s and was stopped; ` +
  (name === "write" || name === "edit"
    ? "read the file before trying again, since the change may have been saved."
    : name === "read"
    ? "read a smaller range (offset and limit) or another file."
    : "narrow the pattern or the path.")

/**
 * The result with every credential-looking value in its texts replaced by a marker, and one line saying how many
 * were; images pass unchanged. The same object when there was nothing to redact.
 */
export const redactResult = (result: ToolResult): ToolResult => {
  let count = 0
  const content = result.content.map((c) => {
    if (c.type !== "text") return c
    const redacted = redactSecrets(c.text)
    if (redacted.count === 0) return c
    count += redacted.count
    return { ...c, text: redacted.text }
  })
  if (count === 0) return result
  return { ...result, content: [...content, { type: "text", text: `\n${redactionNotice(count)}` }] }
}

export interface GateOptions {
  readonly runtime: ToolRuntime
  /** Task validity; fails once the task may no longer act. */
  readonly check: Effect.Effect<void, TaskInvalid>
  readonly records: ChangeRecords
  /** Pi's own repair of common argument mistakes, per tool, run before the check. */
  readonly prepareOf: Partial<Record<BackgroundToolName, ((args: unknown) => unknown) | undefined>>
}

/**
 * The body under the deadline, with a signal of its own that fires at the deadline, when the caller's fires, and when
 * the gate gives up on the call for any other reason (the task stopped). A body that ends after the deadline is
 * ignored. The timer runs on the task's runtime, so the task's clock (a TestClock in tests) decides.
 */
const withDeadline = async (runtime: ToolRuntime, name: BackgroundToolName, body: ToolBody, id: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> => {
  const controller = new AbortController()
  const onAbort = () => controller.abort()
  if (signal.aborted) controller.abort()
  else signal.addEventListener("abort", onAbort, { once: true })
  try {
    const running = body(id, args, controller.signal)
    running.catch(() => undefined) // a failure after the gate gave up is nobody's
    const outcome = await runtime.runEffect(
      Effect.tryPromise(() => running).pipe(Effect.either, Effect.timeoutOption(Duration.millis(TOOL_DEADLINE_MS)))
    )
    if (Option.isNone(outcome)) return errorResult(deadlineMessage(name))
    if (outcome.value._tag === "Left") throw outcome.value.left.error
    return outcome.value.right
  } finally {
    signal.removeEventListener("abort", onAbort)
    controller.abort()
  }
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
      if (checked._tag === "Invalid") return redactResult(errorResult(checked.message))
      const args = checked.args
      let result: ToolResult
      try {
        result = DEADLINED.has(name) ? await withDeadline(runtime, name, body, id, args, signal) : await body(id, args, signal)
      } catch (e) {
        result = errorResult(`${name} failed: ${e instanceof Error ? e.message : String(e)}`)
      }
      // Redacted before anything else sees it: the change records keep an error's first line for the run record.
      return records.noteChangeAttempt(name, args, redactResult(result))
    }
