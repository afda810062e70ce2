import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import {
  isSchemaFeatureRejection,
  normalizeSelection,
  parseSelectorReply as parse,
  SelectionFailed,
  type SelectionFailureReason,
  type SelectorReply
} from "../../src/recall/selection.ts"

/** The parse as plain data: the names, or the typed error's tag, reason and detail. */
const parseSelectorReply = (reply: SelectorReply) =>
  Either.match(parse(reply), {
    onRight: (names) => ({ names }),
    onLeft: (e) => {
      expect(e).toBeInstanceOf(SelectionFailed)
      return { _tag: e._tag, reason: e.reason, detail: e.detail }
    }
  })
const failure = (reason: SelectionFailureReason, detail = "") => ({ _tag: "SelectionFailed", reason, detail })

const tool = (args: unknown, name = "select_memories"): SelectorReply => ({
  stopReason: "toolUse",
  content: [{ type: "toolCall", name, arguments: args }]
})
const text = (t: string): SelectorReply => ({ stopReason: "stop", content: [{ type: "text", text: t }] })

describe("parseSelectorReply", () => {
  it("reads the select_memories tool call", () => {
    expect(parseSelectorReply(tool({ selected_memories: ["a.md", "b.md"] }))).toStrictEqual({ names: ["a.md", "b.md"] })
    expect(parseSelectorReply(tool({ selected_memories: [] }))).toStrictEqual({ names: [] })
  })

  it("parses arguments given as a JSON string, and names bad JSON", () => {
    expect(parseSelectorReply(tool('{"selected_memories":["a.md"]}'))).toStrictEqual({ names: ["a.md"] })
    const bad = parseSelectorReply(tool('{"selected_memories":["a.md"'))
    expect(bad).toMatchObject({ _tag: "SelectionFailed", reason: "BadJson" })
  })

  it("rejects schema mismatches: missing key, extra key, non-array, non-string items, non-object", () => {
    for (const args of [{}, { selected_memories: [], extra: 1 }, { selected_memories: "a.md" }, { selected_memories: [1] }, ["a.md"], null]) {
      expect(parseSelectorReply(tool(args))).toMatchObject({ _tag: "SelectionFailed", reason: "SchemaMismatch" })
    }
  })

  it("accepts a JSON text reply, fenced or not, and rejects prose", () => {
    expect(parseSelectorReply(text('{"selected_memories":["a.md"]}'))).toStrictEqual({ names: ["a.md"] })
    expect(parseSelectorReply(text('Here:\n```json\n{"selected_memories":["a.md"]}\n```'))).toStrictEqual({ names: ["a.md"] })
    expect(parseSelectorReply(text("I think a.md is relevant."))).toMatchObject({ _tag: "SelectionFailed", reason: "BadJson" })
  })

  it("ignores a call of another tool and falls back to text; nothing at all is NoAnswer", () => {
    expect(parseSelectorReply(tool({ selected_memories: ["a.md"] }, "other"))).toStrictEqual(failure("NoAnswer"))
    expect(parseSelectorReply({ stopReason: "stop", content: [] })).toStrictEqual(failure("NoAnswer"))
    expect(parseSelectorReply(text("   "))).toStrictEqual(failure("NoAnswer"))
  })

  it("maps stop reasons: aborted, error (with its message), length — even when content is present", () => {
    const content = [{ type: "toolCall", name: "select_memories", arguments: { selected_memories: ["a.md"] } }] as const
    expect(parseSelectorReply({ stopReason: "aborted", content })).toStrictEqual(failure("Aborted"))
    expect(parseSelectorReply({ stopReason: "error", errorMessage: "boom", content })).toStrictEqual(failure("RequestFailed", "boom"))
    expect(parseSelectorReply({ stopReason: "length", content })).toStrictEqual(failure("Truncated"))
  })

  it("every failure reason has its own one-line message", () => {
    const messages: Record<SelectionFailureReason, string> = {
      Aborted: "the request was cancelled",
      RequestFailed: "the request failed: x",
      Truncated: "the answer was cut off at the token limit",
      NoAnswer: "the model answered with neither a tool call nor text",
      BadJson: "the answer is not valid JSON (x)",
      SchemaMismatch: "the answer does not match the schema (x)",
      Unexpected: "unexpected error (x)"
    }
    for (const [reason, message] of Object.entries(messages)) {
      expect(new SelectionFailed({ reason: reason as SelectionFailureReason, detail: "x" }).message).toBe(message)
    }
  })
})

describe("normalizeSelection", () => {
  const candidates = new Set(["a.md", "b.md", "c.md", "d.md", "e.md", "f.md", "sub/g.md"])
  const none = () => false

  it("strips a [type] prefix and surrounding spaces", () => {
    expect(normalizeSelection(["[project] a.md", "[user]b.md", "  c.md  ", "[feedback] sub/g.md"], candidates, none)).toStrictEqual([
      "a.md",
      "b.md",
      "c.md",
      "sub/g.md"
    ])
  })

  it("drops unknown names and duplicates (also duplicates only after prefix stripping)", () => {
    expect(normalizeSelection(["a.md", "zzz.md", "[project] a.md", "A.md", "b.md", "b.md"], candidates, none)).toStrictEqual(["a.md", "b.md"])
  })

  it("keeps at most five of six", () => {
    expect(normalizeSelection(["a.md", "b.md", "c.md", "d.md", "e.md", "f.md"], candidates, none)).toStrictEqual(["a.md", "b.md", "c.md", "d.md", "e.md"])
  })

  it("counts the five before dropping suppressed files (suppression filters after selection)", () => {
    expect(normalizeSelection(["a.md", "b.md", "c.md", "d.md", "e.md", "f.md"], candidates, (f) => f === "b.md")).toStrictEqual([
      "a.md",
      "c.md",
      "d.md",
      "e.md"
    ])
  })
})

describe("isSchemaFeatureRejection", () => {
  it.each([
    "400 Invalid schema for response_format: strict json_schema is not supported",
    "strict mode is not supported for this model",
    "json_schema: unsupported parameter",
    "Unknown parameter: tools[0].function.strict is not allowed",
    "constrained decoding does not support this schema"
  ])("recognises %j", (m) => expect(isSchemaFeatureRejection(m)).toBe(true))

  it.each(["503 Service Unavailable", "rate limit exceeded", "invalid api key", "No more faux responses queued"])("does not take %j for one", (m) =>
    expect(isSchemaFeatureRejection(m)).toBe(false)
  )
})
