/** Turning a selector reply into filenames, with every failure a typed error. Pure. */
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { SELECTOR_MAX_FILES } from "../limits.ts"
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

/**
 * Why a selection failed. `Aborted` is cancellation (never shown to the user); `Unexpected` is a defect caught at
 * the selector's boundary; the rest describe the request or the reply.
 */
export const SelectionFailureReason = Schema.Literal(
  "Aborted",
  "RequestFailed",
  "Truncated",
  "NoAnswer",
  "BadJson",
  "SchemaMismatch",
  "Unexpected"
)
export type SelectionFailureReason = typeof SelectionFailureReason.Type

export class SelectionFailed extends Data.TaggedError("SelectionFailed")<{
  readonly reason: SelectionFailureReason
  /** The provider's or the parser's own words, when there are any. */
  readonly detail: string
}> {
  /** One line for the user, after "Memory recall skipped: ". */
  override get message(): string {
    switch (this.reason) {
      case "Aborted":
        return "the request was cancelled"
      case "RequestFailed":
        return `the request failed: ${this.detail}`
      case "Truncated":
        return "the answer was cut off at the token limit"
      case "NoAnswer":
        return "the model answered with neither a tool call nor text"
      case "BadJson":
        return `the answer is not valid JSON (${this.detail})`
      case "SchemaMismatch":
        return `the answer does not match the schema (${this.detail})`
      case "Unexpected":
        return `unexpected error (${this.detail})`
    }
  }
}

const failed = (reason: SelectionFailureReason, detail = ""): Either.Either<ReadonlyArray<string>, SelectionFailed> =>
  Either.left(new SelectionFailed({ reason, detail }))

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

/** The names the reply selects, or why it selects nothing usable. */
export const parseSelectorReply = (reply: SelectorReply): Either.Either<ReadonlyArray<string>, SelectionFailed> => {
  if (reply.stopReason === "aborted") return failed("Aborted")
  if (reply.stopReason === "error") return failed("RequestFailed", reply.errorMessage ?? "the request failed")
  if (reply.stopReason === "length") return failed("Truncated")
  const call = reply.content.find(
    (c): c is { type: "toolCall"; name: string; arguments: unknown } => c.type === "toolCall" && "name" in c && c.name === SELECTOR_TOOL_NAME
  )
  let value: unknown
  if (call !== undefined) {
    value = typeof call.arguments === "string" ? safeParse(call.arguments) : call.arguments
    if (value instanceof SyntaxError) return failed("BadJson", value.message)
  } else {
    const text = reply.content
      .filter((c): c is { type: "text"; text: string } => c.type === "text" && "text" in c)
      .map((c) => c.text)
      .join("")
      .trim()
    if (text === "") return failed("NoAnswer")
    try {
      value = jsonInText(text)
    } catch (error) {
      return failed("BadJson", (error as Error).message)
    }
  }
  const shape = checkShape(value)
  return typeof shape === "string" ? failed("SchemaMismatch", shape) : Either.right(shape)
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
 * removed, at most five kept, then files the model already has on this branch (read in full, or recalled) and
 * unchanged since are filtered out.
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

/** Errors that mean the provider refused the constrained-sampling (strict schema) feature itself. */
export const isSchemaFeatureRejection = (message: string): boolean =>
  /(strict|json[_ ]?schema|constrained|grammar|response_format|structured output)/i.test(message) &&
  /(not supported|unsupported|invalid|not allowed|unknown|unrecognized|does not support)/i.test(message)
