/**
 * The background tool loop shared by the extractor and dream: call the model, run the tool calls it asks for with
 * the task's restricted tools, feed the results back, until it stops calling tools, the task says its work is
 * complete after a batch of tool calls (`finishedAfter`), or `maxTurns` model calls are spent. Our own loop on
 * Effect rather than pi-agent-core's Agent (see docs/background.md): every step is a fiber step, so interrupting
 * the task aborts the model call and any running tool through its AbortSignal; usage is reported after every model
 * call, before anything else can fail; and validity is checked before each call. A task
 * with a time budget (`budgetMs`) has its loop interrupted when the budget runs out, wherever it is (a model call, a
 * tool), as any stop interrupts it, and returns `time-budget`.
 */
import type { Api, AssistantMessage, Message, Model, ToolCall, ToolResultMessage, Usage } from "@earendil-works/pi-ai"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { TaskInvalid } from "../writes/writeErrors.ts"
import { ModelRegistry, type ModelRequestFailed } from "../model/ModelRegistry.ts"
import type { TaskToolSet } from "./tools/TaskTools.ts"
import { errorResult, type ToolResult } from "./tools/taskTool.ts"

/** How the request opens: the parent's own prefix (a fork) or our system prompt and declarations (independent). */
export type TaskRequest =
  | {
    readonly mode: "fork"
    /** The parent's captured messages, its system message first, sent unchanged. */
    readonly prefix: ReadonlyArray<Message>
    /** The final user message: the tools section and the task's instructions. */
    readonly instructions: string
    readonly sessionId: string
  }
  | {
    readonly mode: "independent"
    readonly systemPrompt: string
    readonly messages: ReadonlyArray<Message>
    readonly instructions: string
    readonly sessionId: string
  }

export interface RunSpec {
  readonly model: Model<Api>
  readonly request: TaskRequest
  readonly maxTurns: number
  /** The output ceiling per call (the registry lowers it to the model's limits). */
  readonly maxTokens: number
  /** Each model call is aborted and fails after this long without an answer. */
  readonly requestTimeoutMs?: number
  /** The whole loop's wall-clock budget: past it the loop is interrupted and the task returns `time-budget`. */
  readonly budgetMs?: number
  readonly tools: TaskToolSet
  /** Validity: run before each model call and each tool call. */
  readonly check: Effect.Effect<void, TaskInvalid>
  /** Called after every model call with its usage, whatever happens next. */
  readonly onUsage: (usage: Usage | undefined) => Effect.Effect<void>
  /**
   * Asked after each batch of tool calls: true when the task's work is complete, so the loop ends as `done` without
   * another model call (which would only be told the results and answer with a summary). Absent: never.
   */
  readonly finishedAfter?: (batch: ReadonlyArray<FinishedCall>) => Effect.Effect<boolean>
}

/** One tool call of a batch and its result, as `finishedAfter` sees them. */
export interface FinishedCall {
  readonly name: string
  readonly result: ToolResult
}

/**
 * `too-large`: the next request would not fit the model's context window, so it was not sent. `aborted`: the model's
 * answer says its request was aborted; the task ends as an aborted one does (the extraction's cursor stays).
 */
export type StopReason = "done" | "max-turns" | "api-error" | "too-large" | "aborted" | "time-budget"

/** What the record of a task says when its time budget ran out. */
export const budgetSpent = (budgetMs: number): string => `its time budget of ${Math.round(budgetMs / 60_000)} minutes ran out`

export interface RunResult {
  readonly stop: StopReason
  /** Model calls made. */
  readonly turns: number
  readonly finalText: string
  readonly errorMessage: string | undefined
}

const textOf = (reply: AssistantMessage): string =>
  reply.content.filter((c) => c.type === "text").map((c) => (c as { text: string }).text).join("").trim()

const toolResultMessage = (call: ToolCall, result: ToolResult): ToolResultMessage =>
  ({
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: result.content,
    isError: result.isError === true,
    timestamp: Date.now()
  }) as ToolResultMessage

export const runTask = (spec: RunSpec) => {
  let turnsMade = 0
  const loop = runLoop(spec, () => turnsMade++)
  const { budgetMs } = spec
  if (budgetMs === undefined) return loop
  return loop.pipe(
    // The loop is interrupted (its model call and tool aborted through their signals) and awaited before this returns.
    Effect.timeoutTo({
      duration: Duration.millis(budgetMs),
      onSuccess: (r): RunResult => r,
      onTimeout: (): RunResult => ({ stop: "time-budget", turns: turnsMade, finalText: "", errorMessage: budgetSpent(budgetMs) })
    })
  )
}

const runLoop = Effect.fn("Background.runTask")(function*(spec: RunSpec, onModelCall: () => void) {
  const registry = yield* ModelRegistry
  const { request } = spec
  const finalUser: Message = { role: "user", content: request.instructions, timestamp: Date.now() }
  const transcript: Array<Message> = request.mode === "fork"
    ? [...request.prefix, finalUser]
    : [...request.messages, finalUser]
  const declarations = spec.tools.tools.map((t) => t.declaration)

  for (let turn = 1; turn <= spec.maxTurns; turn++) {
    yield* spec.check
    onModelCall()
    const sent = yield* registry.complete(spec.model, {
      ...(request.mode === "independent" ? { systemPrompt: request.systemPrompt, tools: declarations } : {}),
      messages: transcript,
      maxTokens: spec.maxTokens,
      sessionId: request.sessionId,
      untracked: true,
      ...(spec.requestTimeoutMs === undefined ? {} : { timeoutMs: spec.requestTimeoutMs })
    }).pipe(
      Effect.tap((r) => spec.onUsage(r.usage)),
      Effect.map((reply) => ({ reply })),
      // Not sent: the transcript has outgrown the window. The task ends here, as it does at its turn limit.
      Effect.catchIf((e) => e.kind === "too-large", (e) => Effect.succeed({ refused: e.message }))
    )
    if ("refused" in sent) {
      return { stop: "too-large", turns: turn - 1, finalText: "", errorMessage: sent.refused } satisfies RunResult
    }
    const reply: AssistantMessage = sent.reply
    transcript.push(reply)
    if (reply.stopReason === "aborted") {
      return { stop: "aborted", turns: turn, finalText: textOf(reply), errorMessage: reply.errorMessage ?? "aborted" } satisfies RunResult
    }
    if (reply.stopReason === "error") {
      return { stop: "api-error", turns: turn, finalText: textOf(reply), errorMessage: reply.errorMessage ?? reply.stopReason } satisfies RunResult
    }
    const calls = reply.content.filter((c): c is ToolCall => c.type === "toolCall")
    if (calls.length === 0) return { stop: "done", turns: turn, finalText: textOf(reply), errorMessage: undefined } satisfies RunResult
    // One at a time: a read must finish before a write that depends on its baseline.
    const batch: Array<FinishedCall> = []
    for (const call of calls) {
      const tool = spec.tools.byName(call.name)
      const result: ToolResult = call.argumentsError !== undefined
        ? errorResult(`Invalid arguments for ${call.name}: ${call.argumentsError}`)
        : tool === undefined
        ? errorResult(`The tool "${call.name}" is not available in this background memory task. Use only ${spec.tools.tools.map((t) => t.name).join(", ")}.`)
        : yield* Effect.tryPromise({
          try: (signal) => tool.execute(call.id, call.arguments as Record<string, unknown>, signal),
          catch: (e) => e
        }).pipe(Effect.catchAll((e) => Effect.succeed(errorResult(`${call.name} failed: ${e instanceof Error ? e.message : String(e)}`))))
      transcript.push(toolResultMessage(call, result))
      batch.push({ name: call.name, result })
    }
    // A tool that found the task invalid ends it here, instead of another model call.
    yield* spec.check
    if (spec.finishedAfter !== undefined && (yield* spec.finishedAfter(batch))) {
      return { stop: "done", turns: turn, finalText: "", errorMessage: undefined } satisfies RunResult
    }
  }
  return { stop: "max-turns", turns: spec.maxTurns, finalText: "", errorMessage: undefined } satisfies RunResult
})

export type RunError = ModelRequestFailed | TaskInvalid
export { TaskInvalid }
