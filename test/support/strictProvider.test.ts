/**
 * The strict fake provider refuses what OpenAI's chat completions API refuses, with its status codes and error
 * bodies, and its faults reach pi-ai as a real provider's would. Plain HTTP first, then through Pi's model runtime.
 */
import { ModelRuntime } from "@earendil-works/pi-coding-agent"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { estimateWireTokens, STRICT_API_KEY, startStrictProvider, type StrictProvider } from "./strictProvider.ts"

let p: StrictProvider
beforeAll(async () => {
  p = await startStrictProvider({ models: [{ id: "m", contextWindow: 2_000, maxTokens: 512 }] })
})
afterAll(() => p.close())

const post = async (body: unknown, key = STRICT_API_KEY) => {
  const res = await fetch(`${p.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify(body)
  })
  const text = await res.text()
  return { status: res.status, headers: res.headers, text, json: res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : undefined }
}
const ok = (extra: Record<string, unknown> = {}) => ({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }], ...extra })

describe("what the API refuses", () => {
  it("a wrong key: 401 invalid_api_key; an unknown model: 404 model_not_found", async () => {
    expect(await post(ok(), "sk-wrong")).toMatchObject({ status: 401, json: { error: { code: "invalid_api_key", type: "invalid_request_error" } } })
    expect(await post(ok({ model: "nope" }))).toMatchObject({ status: 404, json: { error: { code: "model_not_found" } } })
  })

  it("an unknown role: 400 with the offending parameter", async () => {
    const r = await post(ok({ messages: [{ role: "toolResult", content: "x" }] }))
    expect(r).toMatchObject({ status: 400, json: { error: { param: "messages[0].role", code: "invalid_value" } } })
    expect(r.json.error.message).toContain("Supported values are")
  })

  it("a tool result that answers no call, and a call left unanswered: 400", async () => {
    expect((await post(ok({ messages: [{ role: "user", content: "x" }, { role: "tool", tool_call_id: "c1", content: "r" }] }))).status).toBe(400)
    const call = { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{}" } }] }
    const unanswered = await post(ok({ messages: [{ role: "user", content: "x" }, call, { role: "user", content: "y" }] }))
    expect(unanswered.status).toBe(400)
    expect(unanswered.json.error.message).toContain("did not have response messages: c1")
    expect((await post(ok({ messages: [{ role: "user", content: "x" }, call, { role: "tool", tool_call_id: "c1", content: "r" }] }))).status).toBe(200)
  })

  it("a malformed tool declaration: 400 invalid_function_parameters (or the name's pattern)", async () => {
    const tool = (name: string, parameters: unknown) => ({ type: "function", function: { name, description: "d", parameters } })
    expect((await post(ok({ tools: [tool("read", { type: "object", properties: { path: { type: "string" } }, required: ["path"] })] }))).status).toBe(200)
    for (const bad of [{ type: "array" }, { type: "object", properties: { p: { type: "text" } } }, { type: "object", required: "path" }, "object"]) {
      expect(await post(ok({ tools: [tool("read", bad)] }))).toMatchObject({ status: 400, json: { error: { code: "invalid_function_parameters", param: "tools[0].function.parameters" } } })
    }
    expect(await post(ok({ tools: [tool("read file", { type: "object" })] }))).toMatchObject({ status: 400, json: { error: { param: "tools[0].function.name" } } })
  })

  it("output tokens above the model's maxTokens: 512 passes, 513 is refused as the API words it", async () => {
    expect((await post(ok({ max_completion_tokens: 512 }))).status).toBe(200)
    const r = await post(ok({ max_completion_tokens: 513 }))
    expect(r).toMatchObject({ status: 400, json: { error: { param: "max_completion_tokens", code: "invalid_value" } } })
    expect(r.json.error.message).toBe("max_completion_tokens is too large: 513. This model supports at most 512 completion tokens, whereas you provided 513.")
    expect((await post(ok({ max_tokens: 513 }))).json.error.param).toBe("max_tokens")
  })

  it("input plus output over the context window: at the edge it passes, one token over is 400 context_length_exceeded", async () => {
    // 2,000-token window: input tokens + max_completion_tokens may be at most 2,000.
    const body = (chars: number, max: number) => ok({ messages: [{ role: "user", content: "y".repeat(chars) }], max_completion_tokens: max })
    expect(estimateWireTokens(body(6_000, 500))).toBe(1_500)
    expect((await post(body(6_000, 500))).status).toBe(200)
    const over = await post(body(6_001, 500))
    expect(over).toMatchObject({ status: 400, json: { error: { code: "context_length_exceeded", param: "messages" } } })
    expect(over.json.error.message).toContain("maximum context length is 2000 tokens. However, you requested 2001 tokens (1501 in the messages, 500 in the completion)")
  })

  it("records every request, refused or not, with its status", async () => {
    const before = p.requests.length
    await post(ok({ max_completion_tokens: 9_999 }))
    expect(p.requests.slice(before).map((r) => [r.status, r.options.maxTokens])).toEqual([[400, 9_999]])
  })
})

describe("faults, as pi-ai sees them", () => {
  const models = async () => {
    const agentDir = mkdtempSync(join(tmpdir(), "pm-strict-"))
    writeFileSync(join(agentDir, "models.json"), JSON.stringify(p.modelsJson()))
    const runtime = await ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: join(agentDir, "models.json"), refreshOnCreate: false })
    return { runtime, model: runtime.getModel("strict", "m")!, done: () => rmSync(agentDir, { recursive: true, force: true }) }
  }
  const context = { messages: [{ role: "user" as const, content: "hi", timestamp: 0 }] }

  it("a scripted reply streams text and tool calls; usage and the cache key arrive", async () => {
    const { runtime, model, done } = await models()
    p.handler = () => ({ text: "hello there", toolCalls: [{ name: "read", arguments: { path: "/a" } }] })
    const reply = await runtime.complete(model, context, { sessionId: "sess-1", maxTokens: 100 })
    expect(reply.stopReason).toBe("toolUse")
    expect(reply.content).toEqual([expect.objectContaining({ type: "text", text: "hello there" }), expect.objectContaining({ type: "toolCall", name: "read", arguments: { path: "/a" } })])
    expect(reply.usage.input).toBeGreaterThan(0)
    expect(p.requests.at(-1)!.options).toMatchObject({ sessionId: "sess-1", maxTokens: 100, cacheRetention: "short" })
    done()
  })

  it("429 with retry-after, 500 and a cut stream end the call with an error; pi-ai does not retry on its own", async () => {
    const { runtime, model, done } = await models()
    const before = p.requests.length
    p.handler = () => ({ fault: "rate-limit", retryAfterSeconds: 7 })
    const limited = await runtime.complete(model, context, {})
    expect(limited.stopReason).toBe("error")
    expect(limited.errorMessage).toMatch(/429/)
    p.handler = () => ({ fault: "server-error" })
    expect((await runtime.complete(model, context, {})).errorMessage).toMatch(/500/)
    p.handler = () => ({ fault: "cut", reply: { text: "a long answer that never ends properly" }, afterChunks: 2 })
    const cut = await runtime.complete(model, context, {})
    expect(cut.stopReason).toBe("error")
    expect(p.requests.length - before).toBe(3)
    done()
  })

  it("a hang holds the request until the client aborts", async () => {
    const { runtime, model, done } = await models()
    p.handler = () => ({ fault: "hang" })
    const controller = new AbortController()
    const pending = runtime.complete(model, context, { signal: controller.signal })
    await new Promise<void>((resolve) => (p.onRequest = () => resolve()))
    p.onRequest = undefined
    // The handler ran and the answer is held open.
    expect(p.openHangs()).toBe(1)
    controller.abort()
    expect((await pending).stopReason).toBe("aborted")
    done()
  })
})
