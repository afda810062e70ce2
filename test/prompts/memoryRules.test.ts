/**
 * The main rules must describe exactly what the rest of the product accepts: a file written by following them
 * passes the lint and the writer's name check, and the limits they state are the lint's limits.
 */
import { describe, expect, it } from "vitest"
import { checkFileName } from "../../src/storage/containment.ts"
import { parseFrontmatter } from "../../src/memory/frontmatter.ts"
import { DESCRIPTION_MAX_CHARS, INDEX_LINE_MAX_CHARS, INDEX_MAX_LINES } from "../../src/limits.ts"
import { lintIndex, lintTopic } from "../../src/memory/lint.ts"
import { memoryRulesPrompt, memoryRulesSection, withMemoryRules } from "../../src/session/memoryRules.ts"

const rules = memoryRulesPrompt("/m")

/** The header template the rules show, taken from the rules text itself. */
const headerTemplate = (): string => {
  const block = /```markdown\n([\s\S]*?)```/.exec(rules)
  if (block === null) throw new Error("the rules show no header template")
  return block[1]!
}

const topicOfType = (type: string): string => headerTemplate().replace("user | feedback | project | reference", type)

const occurrences = (text: string, part: string): number => text.split(part).length - 1

describe("main rules agree with the lint and the writer", () => {
  it("a topic written from the rules' header template, for each type, passes the lint", () => {
    for (const type of ["user", "feedback", "project", "reference"]) {
      const content = topicOfType(type)
      const fm = parseFrontmatter(content)
      expect(fm.problem).toBeUndefined()
      expect(fm.type).toBe(type)
      expect(fm.name).toBe("testing-policy")
      expect(lintTopic({ filename: "testing-policy.md", content })).toEqual([])
    }
  })

  it("the example file name is accepted by the writer, and `name` is that name without .md", () => {
    expect(rules).toContain("`testing-policy.md`")
    expect(checkFileName("testing-policy.md", "testing-policy.md")).toBeUndefined()
    expect(rules).toContain("`name` is the file name without `.md`")
  })

  it("the counter-example name is one the lint flags as a numbered continuation", () => {
    expect(rules).toContain("never `notes-2.md`")
    expect(lintTopic({ filename: "notes-2.md", content: headerTemplate(), siblings: ["notes.md", "notes-2.md"] }).map((p) => p.code)).toContain("continuation-name")
  })

  it("states the lint's limits: index line length, description length, index lines", () => {
    expect(rules).toContain(`at most ${INDEX_LINE_MAX_CHARS} characters`)
    expect(rules).toContain(`description at most ${DESCRIPTION_MAX_CHARS} characters`)
    expect(rules).toContain(`cut after ${INDEX_MAX_LINES} lines`)
  })

  it("an index line in the rules' format passes the lint at 150 characters and fails at 151", () => {
    const line = (length: number) => {
      const head = "- [Testing policy](testing-policy.md) - "
      return head + "x".repeat(length - head.length)
    }
    expect(rules).toContain("`- [Title](file.md) - short hook`")
    expect(lintIndex(line(149))).toEqual([])
    expect(lintIndex(line(INDEX_LINE_MAX_CHARS))).toEqual([])
    expect(lintIndex(line(INDEX_LINE_MAX_CHARS + 1)).map((p) => p.code)).toEqual(["index-line-too-long"])
  })

  it("a description at the stated limit passes and one over it fails", () => {
    const withDescription = (n: number) => topicOfType("feedback").replace(/^description: .*$/m, `description: ${"d".repeat(n)}`)
    expect(lintTopic({ filename: "a.md", content: withDescription(DESCRIPTION_MAX_CHARS) })).toEqual([])
    expect(lintTopic({ filename: "a.md", content: withDescription(DESCRIPTION_MAX_CHARS + 1) }).map((p) => p.code))
      .toEqual(["description-too-long"])
  })
})

describe("main rules in a background task's system prompt", () => {
  it("an independent request's prompt without the rules gets them exactly once", () => {
    const out = withMemoryRules("You are a helpful agent.", "/m")
    expect(occurrences(out, rules)).toBe(1)
    expect(out).toBe(`You are a helpful agent.\n\n${memoryRulesSection("/m")}`)
    expect(withMemoryRules("", "/m")).toBe(memoryRulesSection("/m"))
  })

  it("a forked parent prompt that already has the rules is kept byte for byte", () => {
    const parent = `preamble\n\n${memoryRulesSection("/m")}\n\n<auto_memory_index>\n- [A](a.md)\n</auto_memory_index>`
    expect(withMemoryRules(parent, "/m")).toBe(parent)
    expect(occurrences(withMemoryRules(withMemoryRules("p", "/m"), "/m"), rules)).toBe(1)
  })

  it("rules for another memory directory do not count: this directory's rules are added", () => {
    const parent = `preamble\n\n${memoryRulesSection("/other")}`
    const out = withMemoryRules(parent, "/m")
    expect(occurrences(out, rules)).toBe(1)
    expect(out.startsWith(parent)).toBe(true)
  })
})
