/**
 * Whether a model request fits its model's declared limits, before it is sent (pure).
 *
 * Input is estimated the way Pi estimates context for compaction: characters / 4, rounded up, counting text, a tool
 * call's name and JSON arguments, a system message's sections and added tool declarations, 4,800 characters per
 * image, and each declared tool as the JSON of its name, description and parameters. It is an estimate (a real
 * tokenizer counts differently), used only to keep from sending what a provider must refuse.
 *
 * The output asked for is the configured value as a ceiling: never above the model's `maxTokens`, and lowered to
 * what the context window leaves after the input. When that leaves less than `MIN_OUTPUT_TOKENS` (or the ceiling,
 * when it is smaller), the request does not fit.
 */

export const CHARS_PER_TOKEN = 4
export const IMAGE_CHARS = 4_800
/** Below this much room for the answer a background request is not worth sending. */
export const MIN_OUTPUT_TOKENS = 1_024

interface Block {
  readonly type?: unknown
  readonly text?: unknown
  readonly thinking?: unknown
  readonly name?: unknown
  readonly arguments?: unknown
}

const contentChars = (content: unknown): number => {
  if (typeof content === "string") return content.length
  if (!Array.isArray(content)) return 0
  let chars = 0
  for (const b of content as ReadonlyArray<Block>) {
    if (b === null || typeof b !== "object") continue
    if (b.type === "text" && typeof b.text === "string") chars += b.text.length
    else if (b.type === "thinking" && typeof b.thinking === "string") chars += b.thinking.length
    else if (b.type === "image") chars += IMAGE_CHARS
    else if (b.type === "toolCall" && typeof b.name === "string") chars += b.name.length + JSON.stringify(b.arguments ?? {}).length
  }
  return chars
}

export interface ToolLike {
  readonly name: string
  readonly description?: string | undefined
  readonly parameters?: unknown
}

/** The characters one declared tool costs: the JSON of its name, description and parameters. */
export const toolChars = (tool: ToolLike): number =>
  JSON.stringify({ name: tool.name, description: tool.description ?? "", parameters: tool.parameters ?? {} }).length

interface MessageLike {
  readonly role: string
  readonly content?: unknown
  readonly sections?: Readonly<Record<string, unknown>> | undefined
  readonly toolsAdded?: ReadonlyArray<ToolLike> | undefined
}

/** The characters one message costs. */
export const messageChars = (message: MessageLike): number => {
  let chars = contentChars(message.content)
  if (message.role === "system") {
    for (const s of Object.values(message.sections ?? {})) if (typeof s === "string") chars += s.length
    for (const t of message.toolsAdded ?? []) chars += toolChars(t)
  }
  return chars
}

export const tokensOfChars = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN)

export interface RequestLike {
  readonly systemPrompt?: string | undefined
  readonly messages: ReadonlyArray<MessageLike>
  readonly tools?: ReadonlyArray<ToolLike> | undefined
}

export const requestChars = (request: RequestLike): number =>
  (request.systemPrompt?.length ?? 0) +
  request.messages.reduce((n, m) => n + messageChars(m), 0) +
  (request.tools ?? []).reduce((n, t) => n + toolChars(t), 0)

export const estimateInputTokens = (request: RequestLike): number => tokensOfChars(requestChars(request))

export interface ModelLimits {
  /** Tokens; 0 or less: unknown, not checked. */
  readonly contextWindow: number
  readonly maxTokens: number
}

export type Fit =
  | { readonly fits: true; readonly maxTokens: number; readonly inputTokens: number }
  | { readonly fits: false; readonly inputTokens: number; readonly reason: string }

/** The output tokens a request may ask for: `configured`, at most the model's `maxTokens`. */
export const outputCeiling = (configured: number, model: ModelLimits): number =>
  model.maxTokens > 0 ? Math.min(configured, model.maxTokens) : configured

/** The most input tokens a request asking for `configured` output may carry (Infinity when the window is unknown). */
export const maxInputTokens = (model: ModelLimits, configured: number): number =>
  model.contextWindow > 0 ? model.contextWindow - Math.min(outputCeiling(configured, model), MIN_OUTPUT_TOKENS) : Number.POSITIVE_INFINITY

export const fitRequest = (model: ModelLimits, configured: number, inputTokens: number): Fit => {
  const ceiling = outputCeiling(configured, model)
  if (!(model.contextWindow > 0)) return { fits: true, maxTokens: ceiling, inputTokens }
  const room = model.contextWindow - inputTokens
  const floor = Math.min(ceiling, MIN_OUTPUT_TOKENS)
  if (room < floor) {
    return {
      fits: false,
      inputTokens,
      reason: `the request (about ${inputTokens} input tokens) leaves less than ${floor} tokens for the answer in the model's ${model.contextWindow}-token context window`
    }
  }
  return { fits: true, maxTokens: Math.min(ceiling, room), inputTokens }
}

/**
 * How many of the last messages fit: the longest suffix of `messageTokens` (one estimate per message, in order) whose
 * sum stays within `budget`.
 */
export const fittingSuffix = (messageTokens: ReadonlyArray<number>, budget: number): number => {
  let used = 0
  let n = 0
  for (let i = messageTokens.length - 1; i >= 0; i--) {
    used += messageTokens[i]!
    if (used > budget) break
    n++
  }
  return n
}
