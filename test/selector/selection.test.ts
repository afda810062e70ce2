import { describe, expect, it } from "vitest"
import {
  describeFailure,
  isSchemaFeatureRejection,
  normalizeSelection,
  parseSelectorReply,
  type SelectorReply
} from "../../src/selection.ts"

const tool = (args: unknown, name = "select_memories"): SelectorReply => ({
  stopReason: "toolUse",
  content: [{ type: "toolCall", name, arguments: args }]
})
const text = (t: string): SelectorReply => ({ stopReason: "stop", content: [{ type: "text", text: t }] })

describe("parseSelectorReply", () => {
  it("reads the select_memories tool call", () => {
    expect(parseSelectorReply(tool({ selected_memories: ["a.md", "b.md"] }))).toStrictEqual({ _tag: "Selected", names: ["a.md", "b.md"] })
    expect(parseSelectorReply(tool({ selected_memories: [] }))).toStrictEqual({ _tag: "Selected", names: [] })
  })

  it("parses arguments given as a JSON string, and names bad JSON", () => {
    expect(parseSelectorReply(tool('{"selected_memories":["a.md"]}'))).toStrictEqual({ _tag: "Selected", names: ["a.md"] })
    const bad = parseSelectorReply(tool('{"selected_memories":["a.md"'))
    expect(bad).toMatchObject({ _tag: "Failed", failure: { _tag: "BadJson" } })
  })

  it("rejects schema mismatches: missing key, extra key, non-array, non-string items, non-object", () => {
    for (const args of [{}, { selected_memories: [], extra: 1 }, { selected_memories: "a.md" }, { selected_memories: [1] }, ["a.md"], null]) {
      expect(parseSelectorReply(tool(args))).toMatchObject({ _tag: "Failed", failure: { _tag: "SchemaMismatch" } })
    }
  })

  it("accepts a JSON text reply, fenced or not, and rejects prose", () => {
    expect(parseSelectorReply(text('{"selected_memories":["a.md"]}'))).toStrictEqual({ _tag: "Selected", names: ["a.md"] })
    expect(parseSelectorReply(text('Here:\n```json\n{"selected_memories":["a.md"]}\n```'))).toStrictEqual({ _tag: "Selected", names: ["a.md"] })
    expect(parseSelectorReply(text("I think a.md is relevant."))).toMatchObject({ _tag: "Failed", failure: { _tag: "BadJson" } })
  })

  it("ignores a call of another tool and falls back to text; nothing at all is NoAnswer", () => {
    expect(parseSelectorReply(tool({ selected_memories: ["a.md"] }, "other"))).toStrictEqual({ _tag: "Failed", failure: { _tag: "NoAnswer" } })
    expect(parseSelectorReply({ stopReason: "stop", content: [] })).toStrictEqual({ _tag: "Failed", failure: { _tag: "NoAnswer" } })
    expect(parseSelectorReply(text("   "))).toStrictEqual({ _tag: "Failed", failure: { _tag: "NoAnswer" } })
  })

  it("maps stop reasons: aborted, error (with its message), length — even when content is present", () => {
    const content = [{ type: "toolCall", name: "select_memories", arguments: { selected_memories: ["a.md"] } }] as const
    expect(parseSelectorReply({ stopReason: "aborted", content })).toStrictEqual({ _tag: "Failed", failure: { _tag: "Aborted" } })
    expect(parseSelectorReply({ stopReason: "error", errorMessage: "boom", content })).toStrictEqual({
      _tag: "Failed",
      failure: { _tag: "RequestFailed", message: "boom" }
    })
    expect(parseSelectorReply({ stopReason: "length", content })).toStrictEqual({ _tag: "Failed", failure: { _tag: "Truncated" } })
  })

  it("describes every failure in one line", () => {
    expect(describeFailure({ _tag: "Truncated" })).toBe("the answer was cut off at the token limit")
    expect(describeFailure({ _tag: "RequestFailed", message: "x" })).toBe("the request failed: x")
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
