/** The tool loop with a scripted model: turn limit, API errors, usage on every call, unknown tools, validity. */
import { fauxAssistantMessage, fauxText, fauxToolCall, type AssistantMessage, type Usage } from "@earendil-works/pi-ai"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { describe, expect, it } from "vitest"
import { runTask, type TaskRequest } from "../../layers/background/Runner.ts"
import type { TaskToolSet } from "../../layers/background/tools/TaskTools.ts"
import type { TaskTool } from "../../layers/background/tools/taskTool.ts"
import { TaskInvalid } from "../../layers/writes/writeErrors.ts"
import { ModelRegistry } from "../../layers/model/ModelRegistry.ts"

const model = { provider: "faux", api: "faux", id: "m" } as any
const usage = (n: number): Usage => ({ input: n, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: n + 1, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.01 } })
const withUsage = (m: AssistantMessage, n: number): AssistantMessage => ({ ...m, usage: usage(n) })
const toolUse = (name: string, args: Record<string, any> = {}) => fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" })

const setup = (replies: Array<AssistantMessage | Error>) => {
  const contexts: Array<any> = []
  const registry = ModelRegistry.layerWith({
    find: () => model,
    fallback: () => model,
    complete: async (_m, context) => {
      contexts.push(context)
      const next = replies.shift()
      if (next === undefined || next instanceof Error) throw next ?? new Error("no reply")
      return next
    }
  })
  const executed: Array<string> = []
  const tool = (name: "read" | "write"): TaskTool => ({
    name,
    declaration: { name, description: name, parameters: { type: "object" } as any },
    execute: async (_id, args) => {
      executed.push(`${name} ${JSON.stringify(args)}`)
      return { content: [{ type: "text", text: `${name} ok` }], details: undefined }
    }
  })
  const tools: TaskToolSet = {
    tools: [tool("read"), tool("write")],
    byName: (n) => (n === "read" || n === "write" ? tool(n) : undefined),
    writeFailures: () => [],
    close: async () => undefined
  }
  return { registry, contexts, executed, tools }
}

const request: TaskRequest = { mode: "independent", systemPrompt: "sys", messages: [], instructions: "do it", sessionId: "s" }

const run = (replies: Array<AssistantMessage | Error>, opts: { maxTurns?: number; check?: () => boolean } = {}) => {
  const s = setup(replies)
  const usages: Array<Usage | undefined> = []
  const check = Effect.suspend(() => (opts.check?.() ?? true) ? Effect.void : Effect.fail(new TaskInvalid({ reason: "revoked" })))
  return Effect.runPromise(
    runTask({
      model,
      request,
      maxTurns: opts.maxTurns ?? 5,
      maxTokens: 100,
      tools: s.tools,
      check,
      onUsage: (u) => Effect.sync(() => void usages.push(u))
    }).pipe(Effect.provide(s.registry), Effect.exit)
  ).then((exit) => ({ exit, usages, ...s }))
}

describe("the background tool loop", () => {
  it("runs tool calls and feeds their results back until the model stops calling tools", async () => {
    const r = await run([toolUse("read", { path: "/m/a.md" }), toolUse("write", { path: "/m/a.md", content: "x" }), fauxAssistantMessage("Saved a.md.")])
    expect(Exit.isSuccess(r.exit) && r.exit.value).toMatchObject({ stop: "done", turns: 3, finalText: "Saved a.md." })
    expect(r.executed).toEqual([`read {"path":"/m/a.md"}`, `write {"path":"/m/a.md","content":"x"}`])
    expect(r.contexts[2].messages.filter((m: any) => m.role === "toolResult").map((m: any) => m.content[0].text)).toEqual(["read ok", "write ok"])
    expect(r.contexts[0].systemPrompt).toBe("sys")
    expect(r.contexts[0].tools.map((t: any) => t.name)).toEqual(["read", "write"])
  })

  it("stops after maxTurns model calls, with the tools of the last turn run", async () => {
    const r = await run([toolUse("read"), toolUse("read"), toolUse("read")], { maxTurns: 2 })
    expect(Exit.isSuccess(r.exit) && r.exit.value).toMatchObject({ stop: "max-turns", turns: 2 })
    expect(r.contexts).toHaveLength(2)
    expect(r.executed).toHaveLength(2)
  })

  it("an API error answer is a return, not a failure", async () => {
    const r = await run([fauxAssistantMessage([fauxText("")], { stopReason: "error", errorMessage: "overloaded" } as any)])
    expect(Exit.isSuccess(r.exit) && r.exit.value).toMatchObject({ stop: "api-error", turns: 1 })
  })

  it("an aborted answer ends the task as aborted, not as an API error", async () => {
    const r = await run([fauxAssistantMessage([fauxText("")], { stopReason: "aborted" } as any)])
    expect(Exit.isSuccess(r.exit) && r.exit.value).toMatchObject({ stop: "aborted", turns: 1 })
  })

  it("records usage after every model call, even when a later call throws", async () => {
    const r = await run([withUsage(toolUse("read"), 10), withUsage(toolUse("read"), 20), new Error("connection reset")])
    expect(Exit.isFailure(r.exit)).toBe(true)
    expect(r.usages.map((u) => u?.input)).toEqual([10, 20])
  })

  it("an unknown tool and invalid arguments return error results; the loop goes on", async () => {
    const bad = fauxAssistantMessage([{ ...fauxToolCall("read", {}), argumentsError: "not JSON" } as any], { stopReason: "toolUse" })
    const r = await run([toolUse("deploy"), bad, fauxAssistantMessage("done")])
    expect(Exit.isSuccess(r.exit)).toBe(true)
    const results = r.contexts[2].messages.filter((m: any) => m.role === "toolResult")
    expect(results.map((m: any) => m.isError)).toEqual([true, true])
    expect(results[0].content[0].text).toMatch(/"deploy" is not available/)
    expect(r.executed).toEqual([])
  })

  it("a failed validity check ends the run before the next model call", async () => {
    let calls = 0
    const r = await run([toolUse("read"), fauxAssistantMessage("never")], { check: () => ++calls < 2 })
    expect(Exit.isFailure(r.exit)).toBe(true)
    expect(r.contexts).toHaveLength(1)
  })

  it("a fork sends the parent's prefix and no system prompt or declarations of its own", async () => {
    const s = setup([fauxAssistantMessage("ok")])
    const prefix = [{ role: "system", content: "parent system", toolsAdded: [], timestamp: 0 }, { role: "user", content: "hi", timestamp: 1 }] as any
    await Effect.runPromise(
      runTask({ model, request: { mode: "fork", prefix, instructions: "task", sessionId: "parent" }, maxTurns: 1, maxTokens: 10, tools: s.tools, check: Effect.void, onUsage: () => Effect.void })
        .pipe(Effect.provide(s.registry))
    )
    expect(s.contexts[0].systemPrompt).toBeUndefined()
    expect(s.contexts[0].tools).toBeUndefined()
    expect(s.contexts[0].messages.slice(0, 2)).toEqual(prefix)
    expect(s.contexts[0].messages[2]).toMatchObject({ role: "user", content: "task" })
  })
})

