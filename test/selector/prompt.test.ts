import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import {
  answerText,
  catalogMessage,
  queryMessage,
  SELECTOR_SCHEMA,
  SELECTOR_SYSTEM_PROMPT,
  SELECTOR_TOOL_NAME,
  selectorMessages
} from "../../src/recall/selectorPrompt.ts"
import { repoRoot } from "../support/pm.ts"

describe("selector prompt (DECISIONS D6)", () => {
  it("is word for word the fixture test/fixtures/prompts/selector.txt (trailing newline aside)", () => {
    const fixture = readFileSync(join(repoRoot, "test", "fixtures", "prompts", "selector.txt"), "utf8")
    expect(SELECTOR_SYSTEM_PROMPT).toBe(fixture.replace(/\n$/, ""))
  })

  it("ends with the fixed tool instruction the alignment allows", () => {
    expect(SELECTOR_SYSTEM_PROMPT.endsWith("Call the select_memories tool exactly once with the JSON object you would otherwise return.")).toBe(true)
    expect(SELECTOR_TOOL_NAME).toBe("select_memories")
  })

  it("states the limit of five files and the catalog line format", () => {
    expect(SELECTOR_SYSTEM_PROMPT).toContain("at most 5")
    expect(SELECTOR_SYSTEM_PROMPT).toContain('"- [type] filename (last modified): description"')
  })
})

describe("selector schema (alignment §4)", () => {
  it("is exactly the reference schema", () => {
    expect(JSON.parse(JSON.stringify(SELECTOR_SCHEMA))).toStrictEqual({
      type: "object",
      properties: { selected_memories: { type: "array", items: { type: "string" } } },
      required: ["selected_memories"],
      additionalProperties: false
    })
  })
})

describe("selector messages", () => {
  const catalog = "- [project] a.md (2024-01-01T00:00:00.000Z): A\n- b.md (2024-01-02T00:00:00.000Z): B"

  it("with no history: one user message holding the catalog, then the query", () => {
    expect(selectorMessages(catalog, [], "how do we release")).toStrictEqual([
      { role: "user", text: `Available memories:\n${catalog}\n\nUser message:\nhow do we release` }
    ])
  })

  it("an empty catalog says so", () => {
    expect(catalogMessage("")).toBe("Available memories: none.")
  })

  it("with history: earlier queries and JSON answers in order, the catalog only in the first user message", () => {
    const messages = selectorMessages(
      catalog,
      [
        { query: "q one", selected: ["a.md"] },
        { query: "q two", selected: [] }
      ],
      "q three"
    )
    expect(messages).toStrictEqual([
      { role: "user", text: `${catalogMessage(catalog)}\n\n${queryMessage("q one")}` },
      { role: "assistant", text: '{"selected_memories":["a.md"]}' },
      { role: "user", text: "User message:\nq two" },
      { role: "assistant", text: '{"selected_memories":[]}' },
      { role: "user", text: "User message:\nq three" }
    ])
    expect(answerText(["x.md", "y.md"])).toBe('{"selected_memories":["x.md","y.md"]}')
  })

  it("keeps the earlier prefix byte-identical when a turn is added and the catalog is unchanged", () => {
    const one = selectorMessages(catalog, [{ query: "q one", selected: ["a.md"] }], "q two")
    const two = selectorMessages(catalog, [{ query: "q one", selected: ["a.md"] }, { query: "q two", selected: [] }], "q three")
    expect(two.slice(0, one.length - 1)).toStrictEqual(one.slice(0, -1))
    expect(two[2]).toStrictEqual(one[2])
  })
})
