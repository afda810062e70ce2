/** Turning a selector reply into filenames, with every failure named. Pure. */
import { SELECTOR_MAX_FILES } from "./limits.ts"
import { SELECTOR_TOOL_NAME } from "./selectorPrompt.ts"

/** The parts of a pi-ai AssistantMessage the parser reads. */
export interface SelectorReply {
  readonly stopReason: string
  readonly errorMessage?: string | undefined
  readonly content: ReadonlyArray<
    | { readonly type: "text"; readonly text: string }
    | { readonly type: "toolCall"; readonly name: string; readonly arguments: unknown }
    | { readonly type: string }
  >
}

export type SelectionFailure =
  | { readonly _tag: "Aborted" }
  | { readonly _tag: "RequestFailed"; readonly message: string }
  | { readonly _tag: "Truncated" }
  | { readonly _tag: "NoAnswer" }
  | { readonly _tag: "BadJson"; readonly message: string }
  | { readonly _tag: "SchemaMismatch"; readonly message: string }

export type ParsedSelection =
  | { readonly _tag: "Selected"; readonly names: ReadonlyArray<string> }
  | { readonly _tag: "Failed"; readonly failure: SelectionFailure }

const failed = (failure: SelectionFailure): ParsedSelection => ({ _tag: "Failed", failure })

/** The answer must be exactly `{ selected_memories: string[] }`, nothing more. */
const checkShape = (value: unknown): ReadonlyArray<string> | string => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "the answer is not an object"
  const keys = Object.keys(value)
  if (!keys.includes("selected_memories")) return "selected_memories is missing"
  const extra = keys.filter((k) => k !== "selected_memories")
  if (extra.length > 0) return `unexpected properties: ${extra.join(", ")}`
  const list = (value as { selected_memories: unknown }).selected_memories
  if (!Array.isArray(list)) return "selected_memories is not an array"
  if (!list.every((x) => typeof x === "string")) return "selected_memories holds a non-string"
  return list as ReadonlyArray<string>
}

/** A JSON object in a text reply, allowing a Markdown code fence around it. */
const jsonInText = (text: string): unknown => {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text)
  return JSON.parse((fenced?.[1] ?? text).trim())
}

export const parseSelectorReply = (reply: SelectorReply): ParsedSelection => {
  if (reply.stopReason === "aborted") return failed({ _tag: "Aborted" })
  if (reply.stopReason === "error") return failed({ _tag: "RequestFailed", message: reply.errorMessage ?? "the request failed" })
  if (reply.stopReason === "length") return failed({ _tag: "Truncated" })
  const call = reply.content.find(
    (c): c is { type: "toolCall"; name: string; arguments: unknown } => c.type === "toolCall" && "name" in c && c.name === SELECTOR_TOOL_NAME
  )
  let value: unknown
  if (call !== undefined) {
    value = typeof call.arguments === "string" ? safeParse(call.arguments) : call.arguments
    if (value instanceof SyntaxError) return failed({ _tag: "BadJson", message: value.message })
  } else {
    const text = reply.content
      .filter((c): c is { type: "text"; text: string } => c.type === "text" && "text" in c)
      .map((c) => c.text)
      .join("")
      .trim()
    if (text === "") return failed({ _tag: "NoAnswer" })
    try {
      value = jsonInText(text)
    } catch (error) {
      return failed({ _tag: "BadJson", message: (error as Error).message })
    }
  }
  const shape = checkShape(value)
  return typeof shape === "string" ? failed({ _tag: "SchemaMismatch", message: shape }) : { _tag: "Selected", names: shape }
}

const safeParse = (s: string): unknown => {
  try {
    return JSON.parse(s)
  } catch (error) {
    return error as SyntaxError
  }
}

/**
 * From raw names to files: a `[type] ` prefix is stripped, names not among the candidates are dropped, duplicates
 * removed, at most five kept, then files already read in full on this branch are filtered out.
 */
export const normalizeSelection = (
  names: ReadonlyArray<string>,
  candidates: ReadonlySet<string>,
  suppressed: (filename: string) => boolean
): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const raw of names) {
    const name = raw.trim().replace(/^\[[^\]]*\]\s*/, "")
    if (!candidates.has(name) || out.includes(name)) continue
    out.push(name)
    if (out.length === SELECTOR_MAX_FILES) break
  }
  return out.filter((n) => !suppressed(n))
}

export const describeFailure = (f: SelectionFailure): string => {
  switch (f._tag) {
    case "Aborted":
      return "the request was cancelled"
    case "RequestFailed":
      return `the request failed: ${f.message}`
    case "Truncated":
      return "the answer was cut off at the token limit"
    case "NoAnswer":
      return "the model answered with neither a tool call nor text"
    case "BadJson":
      return `the answer is not valid JSON (${f.message})`
    case "SchemaMismatch":
      return `the answer does not match the schema (${f.message})`
  }
}

/** Errors that mean the provider refused the constrained-sampling (strict schema) feature itself. */
export const isSchemaFeatureRejection = (message: string): boolean =>
  /(strict|json[_ ]?schema|constrained|grammar|response_format|structured output)/i.test(message) &&
  /(not supported|unsupported|invalid|not allowed|unknown|unrecognized|does not support)/i.test(message)
