/**
 * A strict fake provider for the tests: a real HTTP server on 127.0.0.1 (a random port) speaking OpenAI's chat
 * completions API with SSE streaming, declared to Pi through `models.json` like any OpenAI-compatible endpoint.
 *
 * It refuses what the real API refuses, with its status codes and error bodies (`{ error: { message, type, param,
 * code } }`): a wrong key (401), an unknown model (404), an unknown role, a tool result that answers no call, a call
 * left unanswered, a malformed tool declaration, output tokens above the model's `maxTokens`, and input plus output
 * over its context window (all 400). Input tokens are estimated the way Pi and the extension estimate them:
 * characters / 4 rounded up, over message text, tool call names and arguments, and each tool's name, description
 * and parameters.
 *
 * Prompt caching is simulated as OpenAI documents it: per `prompt_cache_key`, the longest prefix shared with an
 * earlier request (tools first, then messages, as serialized), counted from 1,024 tokens in steps of 128, is reported
 * as `prompt_tokens_details.cached_tokens`.
 *
 * A test scripts it per request (`handler`): a reply (text and tool calls, or a pi-ai AssistantMessage as the faux
 * helpers build it), or a fault: 429 with `retry-after`, 500, a hang (no answer until the client gives up or the
 * server closes) or a stream cut mid-way. Every request is recorded, refused or not, with the time it arrived.
 */
import type { AssistantMessage } from "@earendil-works/pi-ai"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"

export interface StrictModel {
  readonly id: string
  readonly contextWindow: number
  readonly maxTokens: number
}

export const STRICT_PROVIDER = "strict"
export const STRICT_API_KEY = "sk-strict-test"

/** A request as it arrived, with a view in Pi's terms for assertions. */
export interface StrictRequest {
  /** Milliseconds since the server started (performance.now()). */
  readonly at: number
  readonly path: string
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  /** The JSON body (undefined when it did not parse). */
  readonly body: any
  /** The answer's HTTP status (200 for a stream; 0 while a hang is open). */
  status: number
  readonly model: string
  /** The system/developer messages' text, joined. */
  readonly system: string
  /** The first system/developer message's text. */
  readonly leadingSystem: string
  /** The non-system messages in Pi's roles: user, assistant (text and toolCall blocks), toolResult. */
  readonly messages: ReadonlyArray<any>
  readonly tools: ReadonlyArray<string>
  /** Pi's request options as the wire shows them. */
  readonly options: { readonly maxTokens: number | undefined; readonly sessionId: string | undefined; readonly cacheRetention: "none" | "short" | "long"; readonly toolChoice: unknown }
  /** The estimate of input tokens the checks used. */
  readonly inputTokens: number
  /** What the answer's usage reported (set once a stream is answered): completion tokens, and cached prompt tokens. */
  outputTokens?: number
  cachedTokens?: number
}

export type Fault =
  | { readonly fault: "rate-limit"; readonly retryAfterSeconds: number }
  | { readonly fault: "server-error" }
  | { readonly fault: "hang" }
  /** Sends the first `afterChunks` chunks of the reply, then destroys the connection. */
  | { readonly fault: "cut"; readonly reply: Reply; readonly afterChunks: number }

export type Reply =
  | AssistantMessage
  | {
    readonly text?: string
    readonly toolCalls?: ReadonlyArray<{ readonly name: string; readonly arguments: unknown }>
    readonly finishReason?: "stop" | "length" | "tool_calls"
  }

export type Handler = (request: StrictRequest) => Reply | Fault | Promise<Reply | Fault>

export interface StrictProvider {
  readonly baseUrl: string
  /** performance.now() when the server started: `at` of each request counts from here. */
  readonly startedAt: number
  readonly models: ReadonlyArray<StrictModel>
  readonly requests: Array<StrictRequest>
  handler: Handler
  /** Called after every recorded request (tests wait on events, not on time). */
  onRequest: ((request: StrictRequest) => void) | undefined
  /** The `providers` entry for Pi's models.json. */
  readonly modelsJson: () => Record<string, unknown>
  /** Requests still held open by a hang. */
  readonly openHangs: () => number
  readonly close: () => Promise<void>
}

const ROLES = ["system", "assistant", "user", "function", "tool", "developer"]
const NAME = /^[a-zA-Z0-9_-]{1,64}$/
const SCHEMA_TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"])

/** An HTTP error answer: its status and OpenAI's error fields. */
export interface Refusal {
  readonly status: number
  readonly message: string
  readonly type: string
  readonly param: string | null
  readonly code: string | null
}

const refusal = (status: number, message: string, type: string, param: string | null, code: string | null): Refusal => ({
  status,
  message,
  type,
  param,
  code
})

const invalid = (message: string, param: string | null, code: string | null = "invalid_value") =>
  refusal(400, message, "invalid_request_error", param, code)

const textOfContent = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((p: any) => (p?.type === "text" && typeof p.text === "string" ? p.text : "")).join("")
    : ""

const IMAGE_CHARS = 4_800

const contentChars = (content: unknown): number =>
  typeof content === "string"
    ? content.length
    : Array.isArray(content)
    ? content.reduce((n: number, p: any) => n + (p?.type === "text" ? String(p.text ?? "").length : p?.type === "image_url" ? IMAGE_CHARS : 0), 0)
    : 0

/** Characters / 4, rounded up, over what the model reads. */
export const estimateWireTokens = (body: any): number => {
  let chars = 0
  for (const m of body.messages ?? []) {
    chars += contentChars(m.content)
    for (const c of m.tool_calls ?? []) chars += String(c.function?.name ?? "").length + String(c.function?.arguments ?? "").length
  }
  for (const t of body.tools ?? []) {
    const f = t.function ?? {}
    chars += JSON.stringify({ name: f.name, description: f.description ?? "", parameters: f.parameters ?? {} }).length
  }
  return Math.ceil(chars / 4)
}

/** A deliberately small JSON Schema check: what OpenAI's validator refuses in practice. */
const schemaProblem = (schema: unknown, at: string): string | undefined => {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return `${at} is not an object`
  const s = schema as Record<string, unknown>
  const types = s["type"] === undefined ? [] : Array.isArray(s["type"]) ? s["type"] : [s["type"]]
  for (const t of types) if (typeof t !== "string" || !SCHEMA_TYPES.has(t)) return `${at}.type: ${JSON.stringify(t)} is not a valid type`
  if (s["properties"] !== undefined) {
    if (typeof s["properties"] !== "object" || s["properties"] === null || Array.isArray(s["properties"])) return `${at}.properties is not an object`
    for (const [k, v] of Object.entries(s["properties"] as Record<string, unknown>)) {
      const p = schemaProblem(v, `${at}.properties.${k}`)
      if (p !== undefined) return p
    }
  }
  if (s["required"] !== undefined && (!Array.isArray(s["required"]) || s["required"].some((r) => typeof r !== "string"))) {
    return `${at}.required is not an array of strings`
  }
  if (s["items"] !== undefined && !Array.isArray(s["items"])) {
    const p = schemaProblem(s["items"], `${at}.items`)
    if (p !== undefined) return p
  }
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    if (s[key] === undefined) continue
    if (!Array.isArray(s[key])) return `${at}.${key} is not an array`
    for (const [i, sub] of (s[key] as Array<unknown>).entries()) {
      const p = schemaProblem(sub, `${at}.${key}[${i}]`)
      if (p !== undefined) return p
    }
  }
  return undefined
}

/** What the real API refuses before generating anything. */
export const refusalOf = (body: any, models: ReadonlyArray<StrictModel>, authorization: string | undefined, apiKey: string): Refusal | undefined => {
  if (authorization !== `Bearer ${apiKey}`) {
    return refusal(401, "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", null, "invalid_api_key")
  }
  if (typeof body !== "object" || body === null) return invalid("We could not parse the JSON body of your request.", null, null)
  const model = models.find((m) => m.id === body.model)
  if (model === undefined) {
    return refusal(404, `The model \`${String(body.model)}\` does not exist or you do not have access to it.`, "invalid_request_error", null, "model_not_found")
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) return invalid("[] is too short - 'messages'", "messages", "empty_array")
  const pending = new Set<string>()
  for (const [i, m] of (body.messages as Array<any>).entries()) {
    if (!ROLES.includes(m?.role)) {
      return invalid(`Invalid value: '${String(m?.role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`, `messages[${i}].role`)
    }
    if (m.role === "tool") {
      if (!pending.has(m.tool_call_id)) {
        return invalid("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${i}].role`, null)
      }
      pending.delete(m.tool_call_id)
      continue
    }
    if (pending.size > 0) {
      return invalid(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending].join(", ")}`,
        "messages",
        null
      )
    }
    if (m.role === "assistant") for (const c of m.tool_calls ?? []) pending.add(c.id)
  }
  if (pending.size > 0) {
    return invalid(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending].join(", ")}`,
      "messages",
      null
    )
  }
  for (const [i, t] of ((body.tools ?? []) as Array<any>).entries()) {
    if (t?.type !== "function" || typeof t.function !== "object") return invalid(`Invalid value: '${String(t?.type)}'. Supported values are: 'function' and 'custom'.`, `tools[${i}].type`)
    if (typeof t.function.name !== "string" || !NAME.test(t.function.name)) {
      return invalid(`Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, `tools[${i}].function.name`, "invalid_value")
    }
    const params = t.function.parameters
    const problem = params === undefined ? undefined : schemaProblem(params, "parameters")
    if (problem !== undefined || (params !== undefined && params.type !== "object")) {
      return invalid(
        `Invalid schema for function '${t.function.name}': ${problem ?? "schema must be a JSON Schema of 'type: \"object\"'"}.`,
        `tools[${i}].function.parameters`,
        "invalid_function_parameters"
      )
    }
  }
  const field = body.max_completion_tokens !== undefined ? "max_completion_tokens" : body.max_tokens !== undefined ? "max_tokens" : undefined
  const asked: number | undefined = field === undefined ? undefined : body[field]
  if (field !== undefined && (!Number.isInteger(asked) || asked! < 1)) return invalid(`Invalid '${field}': integer below minimum value.`, field, "integer_below_min_value")
  if (asked !== undefined && asked > model.maxTokens) {
    return invalid(
      `${field} is too large: ${asked}. This model supports at most ${model.maxTokens} completion tokens, whereas you provided ${asked}.`,
      field!,
      "invalid_value"
    )
  }
  const input = estimateWireTokens(body)
  if (input + (asked ?? 0) > model.contextWindow) {
    return invalid(
      `This model's maximum context length is ${model.contextWindow} tokens. However, you requested ${input + (asked ?? 0)} tokens (${input} in the messages, ${asked ?? 0} in the completion). Please reduce the length of the messages or completion.`,
      "messages",
      "context_length_exceeded"
    )
  }
  return undefined
}

/** The recorded request in Pi's terms. */
const viewOf = (at: number, path: string, headers: IncomingMessage["headers"], body: any): StrictRequest => {
  const wire: Array<any> = Array.isArray(body?.messages) ? body.messages : []
  const systems = wire.filter((m) => m?.role === "system" || m?.role === "developer")
  const messages = wire
    .filter((m) => m?.role !== "system" && m?.role !== "developer")
    .map((m) => {
      if (m.role === "tool") return { role: "toolResult", toolCallId: m.tool_call_id, content: [{ type: "text", text: textOfContent(m.content) }] }
      if (m.role === "assistant") {
        const content: Array<any> = []
        if (textOfContent(m.content) !== "") content.push({ type: "text", text: textOfContent(m.content) })
        for (const c of m.tool_calls ?? []) {
          let args: unknown = c.function?.arguments
          try {
            args = JSON.parse(String(args))
          } catch {}
          content.push({ type: "toolCall", id: c.id, name: c.function?.name, arguments: args })
        }
        return { role: "assistant", content }
      }
      return { role: m.role, content: typeof m.content === "string" ? m.content : m.content }
    })
  return {
    at,
    path,
    headers,
    body,
    status: 0,
    model: String(body?.model),
    system: systems.map((m) => textOfContent(m.content)).join("\n\n"),
    leadingSystem: systems.length > 0 && (wire[0]?.role === "system" || wire[0]?.role === "developer") ? textOfContent(wire[0].content) : "",
    messages,
    tools: ((body?.tools ?? []) as Array<any>).map((t) => t?.function?.name),
    options: {
      maxTokens: body?.max_completion_tokens ?? body?.max_tokens,
      sessionId: body?.prompt_cache_key,
      cacheRetention: body?.prompt_cache_retention === "24h" ? "long" : body?.prompt_cache_key !== undefined ? "short" : "none",
      toolChoice: body?.tool_choice
    },
    inputTokens: body === undefined ? 0 : estimateWireTokens(body)
  }
}

const isFault = (r: Reply | Fault): r is Fault => typeof (r as { fault?: unknown }).fault === "string"

interface Normal {
  readonly text: string
  readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly arguments: unknown }>
  readonly finishReason: "stop" | "length" | "tool_calls" | "error"
  readonly errorMessage?: string
}

const normalize = (reply: Reply): Normal => {
  if ("role" in reply && reply.role === "assistant") {
    const text = reply.content.filter((c) => c.type === "text").map((c) => (c as { text: string }).text).join("")
    const toolCalls = reply.content.filter((c) => c.type === "toolCall").map((c) => ({ name: (c as any).name, arguments: (c as any).arguments }))
    const finishReason = reply.stopReason === "error" || reply.stopReason === "aborted"
      ? "error"
      : reply.stopReason === "length"
      ? "length"
      : toolCalls.length > 0
      ? "tool_calls"
      : "stop"
    return { text, toolCalls, finishReason, ...(reply.errorMessage === undefined ? {} : { errorMessage: reply.errorMessage }) }
  }
  const r = reply as Exclude<Reply, AssistantMessage>
  const toolCalls = r.toolCalls ?? []
  return { text: r.text ?? "", toolCalls, finishReason: r.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop") }
}

let callCounter = 0

/** The request as the cache sees it: tools, then each message, serialized in order. */
const cacheText = (body: any): string => JSON.stringify(body.tools ?? []) + (body.messages ?? []).map((m: unknown) => JSON.stringify(m)).join("")

const commonPrefix = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

/** Cached tokens for a shared prefix of `chars` characters: none below 1,024 tokens, then whole steps of 128. */
export const cachedTokensOf = (chars: number, promptTokens: number): number => {
  const tokens = Math.min(Math.floor(chars / 4), promptTokens)
  return tokens < 1_024 ? 0 : Math.floor(tokens / 128) * 128
}

/** The reply as SSE chunks (each a full `data: ...\n\n` line), usage and [DONE] included. */
const completionTokensOf = (reply: Normal): number =>
  Math.ceil((reply.text.length + reply.toolCalls.reduce((n, c) => n + c.name.length + JSON.stringify(c.arguments ?? {}).length, 0)) / 4)

const chunksOf = (reply: Normal, model: string, promptTokens: number, includeUsage: boolean, cachedTokens = 0): Array<string> => {
  const id = `chatcmpl-${++callCounter}`
  const created = Math.floor(Date.now() / 1000)
  const chunk = (delta: unknown, finish: string | null) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`
  const out = [chunk({ role: "assistant", content: "" }, null)]
  // Text in a few deltas, as a real stream sends it.
  for (let i = 0; i < reply.text.length; i += 16) out.push(chunk({ content: reply.text.slice(i, i + 16) }, null))
  reply.toolCalls.forEach((c, index) => {
    const args = JSON.stringify(c.arguments ?? {})
    out.push(chunk({ tool_calls: [{ index, id: `call_${callCounter}_${index}`, type: "function", function: { name: c.name, arguments: "" } }] }, null))
    for (let i = 0; i < args.length; i += 64) out.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(i, i + 64) } }] }, null))
  })
  out.push(chunk({}, reply.finishReason === "error" ? "stop" : reply.finishReason))
  const completion = completionTokensOf(reply)
  if (includeUsage) {
    out.push(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion, prompt_tokens_details: { cached_tokens: cachedTokens } } })}\n\n`
    )
  }
  out.push("data: [DONE]\n\n")
  return out
}

const sendError = (res: ServerResponse, refusal: Refusal, headers: Record<string, string> = {}) => {
  res.writeHead(refusal.status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify({ error: { message: refusal.message, type: refusal.type, param: refusal.param, code: refusal.code } }))
}

export interface StrictOptions {
  readonly models?: ReadonlyArray<StrictModel>
  readonly handler?: Handler
}

export const DEFAULT_STRICT_MODELS: ReadonlyArray<StrictModel> = [{ id: "strict-1", contextWindow: 128_000, maxTokens: 4_096 }]

export const startStrictProvider = async (options: StrictOptions = {}): Promise<StrictProvider> => {
  const models = options.models ?? DEFAULT_STRICT_MODELS
  const started = performance.now()
  const requests: Array<StrictRequest> = []
  const sockets = new Set<Socket>()
  const hangs = new Set<ServerResponse>()
  /** prompt_cache_key -> the requests seen under it, as the cache sees them. */
  const cache = new Map<string, Array<string>>()
  const cachedFor = (body: any, promptTokens: number): number => {
    const key = body.prompt_cache_key
    if (typeof key !== "string") return 0
    const text = cacheText(body)
    const seen = cache.get(key) ?? []
    const best = seen.reduce((n, earlier) => Math.max(n, commonPrefix(earlier, text)), 0)
    cache.set(key, [...seen.slice(-7), text])
    return cachedTokensOf(best, promptTokens)
  }
  const provider = {
    handler: options.handler ?? ((): Reply => ({ text: "ok" })),
    onRequest: undefined as ((request: StrictRequest) => void) | undefined
  }
  const server = createServer((req, res) => {
    const parts: Array<Buffer> = []
    req.on("data", (b: Buffer) => parts.push(b))
    req.on("end", () => {
      void (async () => {
        const raw = Buffer.concat(parts).toString("utf8")
        let body: any
        try {
          body = JSON.parse(raw)
        } catch {
          body = undefined
        }
        const path = (req.url ?? "").split("?")[0] ?? ""
        const view = viewOf(performance.now() - started, path, req.headers, body)
        requests.push(view)
        const answer = async () => {
          if (req.method !== "POST" || path !== "/v1/chat/completions") {
            view.status = 404
            return sendError(res, refusal(404, `Invalid URL (${req.method} ${path})`, "invalid_request_error", null, null))
          }
          const refused = refusalOf(body, models, req.headers["authorization"], STRICT_API_KEY)
          if (refused !== undefined) {
            view.status = refused.status
            return sendError(res, refused)
          }
          const scripted = await provider.handler(view)
          if (isFault(scripted)) {
            switch (scripted.fault) {
              case "rate-limit":
                view.status = 429
                return sendError(
                  res,
                  refusal(429, `Rate limit reached for requests. Please try again in ${scripted.retryAfterSeconds}s.`, "requests", null, "rate_limit_exceeded"),
                  { "retry-after": String(scripted.retryAfterSeconds) }
                )
              case "server-error":
                view.status = 500
                return sendError(res, refusal(500, "The server had an error while processing your request. Sorry about that!", "server_error", null, null))
              case "hang":
                hangs.add(res)
                res.on("close", () => hangs.delete(res))
                return
              case "cut": {
                view.status = 200
                res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
                const chunks = chunksOf(normalize(scripted.reply), body.model, view.inputTokens, body.stream_options?.include_usage === true)
                for (const c of chunks.slice(0, scripted.afterChunks)) res.write(c)
                // Flushed, then the connection drops without the stream's end.
                setImmediate(() => res.socket?.destroy())
                return
              }
            }
          }
          const reply = normalize(scripted)
          if (reply.finishReason === "error") {
            view.status = 500
            return sendError(res, refusal(500, reply.errorMessage ?? "The server had an error while processing your request.", "server_error", null, null))
          }
          view.status = 200
          res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
          const cached = cachedFor(body, view.inputTokens)
          view.outputTokens = completionTokensOf(reply)
          view.cachedTokens = cached
          for (const c of chunksOf(reply, body.model, view.inputTokens, body.stream_options?.include_usage === true, cached)) res.write(c)
          res.end()
        }
        try {
          await answer()
        } catch (e) {
          view.status = 500
          if (!res.headersSent) sendError(res, refusal(500, `test handler failed: ${e instanceof Error ? e.message : String(e)}`, "server_error", null, null))
          else res.destroy()
        }
        provider.onRequest?.(view)
      })()
    })
  })
  server.on("connection", (s) => {
    sockets.add(s)
    s.on("close", () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  const baseUrl = `http://127.0.0.1:${port}/v1`
  return Object.assign(provider, {
    baseUrl,
    startedAt: started,
    models,
    requests,
    openHangs: () => hangs.size,
    modelsJson: () => ({
      providers: {
        [STRICT_PROVIDER]: {
          baseUrl,
          api: "openai-completions",
          apiKey: STRICT_API_KEY,
          // What the OpenAI API itself accepts: the cache key field, max_completion_tokens, usage in the stream.
          compat: { promptCacheKeyMode: "enabled", maxTokensField: "max_completion_tokens", supportsStore: false, supportsUsageInStreaming: true },
          models: models.map((m) => ({
            id: m.id,
            name: m.id,
            input: ["text"],
            contextWindow: m.contextWindow,
            maxTokens: m.maxTokens,
            cost: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 0 }
          }))
        }
      }
    }),
    close: async () => {
      for (const res of hangs) res.destroy()
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }) as StrictProvider
}
