/**
 * The tool loop within the model's limits and in time: the output ceiling reaches the provider, a request that would
 * not fit ends the task unsent, a model call without an answer is aborted on the deadline, and a task past its time
 * budget is interrupted, its running tool aborted (Effect's TestClock).
 */
import { fauxAssistantMessage, fauxText, fauxToolCall, type AssistantMessage } from "@earendil-works/pi-ai"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { describe, expect, it } from "vitest"
import { DREAM_BUDGET_MS } from "../../layers/background/DreamTask.ts"
import { EXTRACTION_BUDGET_MS } from "../../layers/background/ExtractorTask.ts"
import { budgetSpent, runTask, type TaskRequest } from "../../layers/background/Runner.ts"
import { dreamRecord, extractionRecord } from "../../layers/background/runRecords.ts"
import { zeroUsage } from "../../src/model/usage.ts"
import type { TaskToolSet } from "../../layers/background/tools/TaskTools.ts"
import { ModelRegistry } from "../../layers/model/ModelRegistry.ts"

const model = { provider: "p", api: "openai-completions", id: "m", contextWindow: 10_000, maxTokens: 4_096 } as any
const request: TaskRequest = { mode: "independent", systemPrompt: "sys", messages: [], instructions: "do it", sessionId: "s" }

const setup = (reply: (signal: AbortSignal) => Promise<AssistantMessage>, readText = "x") => {
  const sent: Array<{ maxTokens: unknown; chars: number }> = []
  const aborted: Array<boolean> = []
  const registry = ModelRegistry.layerWith({
    find: () => model,
    fallback: () => model,
    complete: (_m, context, options) => {
      sent.push({ maxTokens: options["maxTokens"], chars: JSON.stringify(context.messages).length })
      const signal = options["signal"] as AbortSignal
      signal.addEventListener("abort", () => aborted.push(true))
      return reply(signal)
    }
  })
  const tools: TaskToolSet = {
    tools: [{ name: "read", declaration: { name: "read", description: "read", parameters: { type: "object" } as any }, execute: async () => ({ content: [{ type: "text", text: readText }], details: undefined }) }],
    byName: (n) => (n === "read" ? tools.tools[0] : undefined),
    close: async () => undefined,
    writeFailures: () => []
  }
  return { registry, sent, aborted, tools }
}

const spec = (s: ReturnType<typeof setup>, extra: { maxTokens?: number; requestTimeoutMs?: number } = {}) =>
  runTask({
    model,
    request,
    maxTurns: 5,
    maxTokens: extra.maxTokens ?? 8_192,
    ...(extra.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: extra.requestTimeoutMs }),
    tools: s.tools,
    check: Effect.void,
    onUsage: () => Effect.void
  }).pipe(Effect.provide(s.registry))

describe("the tool loop within the model's limits", () => {
  it("asks for at most the model's maxTokens (8192 configured, 4096 declared -> 4096; 2000 configured -> 2000)", async () => {
    const s = setup(async () => fauxAssistantMessage([fauxText("done")]))
    await Effect.runPromise(spec(s))
    await Effect.runPromise(spec(s, { maxTokens: 2_000 }))
    expect(s.sent.map((x) => x.maxTokens)).toEqual([4_096, 2_000])
  })

  it("a transcript grown past the window ends the task before the request that would not fit: nothing is sent", async () => {
    // The first answer reads a file of 40,000 characters (10,000 tokens): the second request cannot fit 10,000.
    let calls = 0
    const s = setup(async () => (++calls === 1 ? fauxAssistantMessage([fauxToolCall("read", { path: "/big" })], { stopReason: "toolUse" }) : fauxAssistantMessage("never")), "y".repeat(40_000))
    const result = await Effect.runPromise(spec(s))
    expect(result).toMatchObject({ stop: "too-large", turns: 1 })
    expect(result.errorMessage).toMatch(/^not sent: the request \(about \d+ input tokens\) leaves less than 1024 tokens/)
    expect(s.sent).toHaveLength(1)
  })
})

describe("the tool loop in time", () => {
  const hang = (signal: AbortSignal) =>
    new Promise<AssistantMessage>((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted"))))

  it("a model call without an answer is aborted at requestTimeoutMs, not a millisecond before, and the task fails with kind timeout", async () => {
    const s = setup(hang)
    const exit = await Effect.runPromise(
      Effect.gen(function*() {
        const fiber = yield* Effect.fork(spec(s, { requestTimeoutMs: 120_000 }))
        yield* Effect.yieldNow()
        while (s.sent.length === 0) yield* Effect.yieldNow()
        yield* TestClock.adjust(119_999)
        expect(s.aborted).toEqual([])
        expect(fiber.unsafePoll()).toBeNull()
        yield* TestClock.adjust(1)
        return yield* Fiber.await(fiber)
      }).pipe(Effect.provide(TestContext.TestContext))
    )
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) {
      const error = exit.cause._tag === "Fail" ? exit.cause.error : undefined
      expect(error).toMatchObject({ _tag: "ModelRequestFailed", kind: "timeout", message: "no answer within 120 s" })
    }
    expect(s.aborted).toEqual([true])
  })
})

describe("the task's time budget", () => {
  /** A task whose one tool call never ends on its own: it ends only when its signal is aborted. */
  const stuck = () => {
    const s = setup(async () => fauxAssistantMessage([fauxToolCall("read", { path: "/x" })], { stopReason: "toolUse" }))
    const toolAborted: Array<boolean> = []
    let toolStarted = false
    const tool = {
      ...s.tools.tools[0]!,
      execute: (_id: string, _args: Record<string, unknown>, signal: AbortSignal) => {
        toolStarted = true
        return new Promise<never>((_, reject) => signal.addEventListener("abort", () => {
          toolAborted.push(true)
          reject(new Error("aborted"))
        }))
      }
    }
    const tools: TaskToolSet = { ...s.tools, tools: [tool], byName: (n) => (n === "read" ? tool : undefined) }
    return { s: { ...s, tools }, toolAborted, started: () => toolStarted }
  }

  const withBudget = (s: ReturnType<typeof setup>, budgetMs: number | undefined) =>
    runTask({
      model,
      request,
      maxTurns: 5,
      maxTokens: 8_192,
      ...(budgetMs === undefined ? {} : { budgetMs }),
      tools: s.tools,
      check: Effect.void,
      onUsage: () => Effect.void
    }).pipe(Effect.provide(s.registry))

  for (const budgetMs of [EXTRACTION_BUDGET_MS, DREAM_BUDGET_MS]) {
    it(`a ${budgetMs / 60_000}-minute budget interrupts the running tool at the budget, not a millisecond before`, async () => {
      const t = stuck()
      const result = await Effect.runPromise(
        Effect.gen(function*() {
          const fiber = yield* Effect.fork(withBudget(t.s, budgetMs))
          while (!t.started()) yield* Effect.yieldNow()
          yield* TestClock.adjust(budgetMs - 1)
          expect(fiber.unsafePoll()).toBeNull()
          expect(t.toolAborted).toEqual([])
          yield* TestClock.adjust(1)
          return yield* Fiber.join(fiber)
        }).pipe(Effect.provide(TestContext.TestContext))
      )
      expect(result).toEqual({ stop: "time-budget", turns: 1, finalText: "", errorMessage: budgetSpent(budgetMs) })
      // The tool's signal was aborted: what it started (a sandboxed command) ends with the task.
      expect(t.toolAborted).toEqual([true])
    })
  }

  it("a task that ends before its budget returns as it would without one", async () => {
    const s = setup(async () => fauxAssistantMessage([fauxText("done")]))
    expect(await Effect.runPromise(withBudget(s, 1_000))).toMatchObject({ stop: "done", turns: 1 })
  })

  it("the budgets, and what the run record says when one runs out", () => {
    expect([EXTRACTION_BUDGET_MS, DREAM_BUDGET_MS]).toEqual([10 * 60_000, 30 * 60_000])
    const base = { kind: "extract" as const, trigger: "turn" as const, filesChanged: [], turns: 0, usage: zeroUsage }
    const ran = (filesChanged: Array<string>) =>
      extractionRecord(
        Exit.succeed({ status: "ran", stop: "time-budget", turns: 3, mode: "fork", filesChanged, finalText: "", errorMessage: budgetSpent(EXTRACTION_BUDGET_MS), advanceTo: "x" }),
        base,
        zeroUsage,
        "/m"
      )
    expect(ran([])).toMatchObject({ outcome: "stopped", detail: "read this conversation, stopped: its time budget of 10 minutes ran out" })
    expect(ran(["/m/a.md"])).toMatchObject({ outcome: "saved", detail: "read this conversation, stopped: its time budget of 10 minutes ran out" })
    const dream = (stop: "time-budget" | "done" | "max-turns") =>
      dreamRecord(
        Exit.succeed({
          _tag: "Ran",
          attemptAt: 0,
          value: {
            stop,
            turns: 9,
            filesChanged: [],
            finalText: "",
            errorMessage: stop === "time-budget" ? budgetSpent(DREAM_BUDGET_MS) : undefined,
            index: { exists: true, lines: 1, chars: 1, overTarget: false },
            deletesRefused: [],
            topicsAtStart: 0,
            unsaved: [],
            writeFailures: []
          }
        }),
        { ...base, kind: "dream" },
        zeroUsage,
        "/m"
      )
    expect(dream("time-budget")).toMatchObject({ outcome: "stopped", detail: "stopped: its time budget of 30 minutes ran out" })
    expect(dream("done")).toMatchObject({ outcome: "nothing", detail: "done" })
    expect(dream("max-turns")).toMatchObject({ outcome: "nothing", detail: "turn limit reached" })
  })
})
