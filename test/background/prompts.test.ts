import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { backgroundToolsSection, BACKGROUND_TOOLS_HEADING } from "../../src/background/prompts/backgroundTools.ts"
import { extractorTaskPrompt, NOTHING_TO_SAVE } from "../../src/background/prompts/extractor.ts"

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "../fixtures/prompts", name), "utf8").replace(/\n$/, "")

describe("extractor task prompt", () => {
  it("matches its fixture word for word; only the directory, the message count and the catalog are filled in", () => {
    expect(extractorTaskPrompt({ memoryDir: "{{MEMORY_DIR}}", today: "{{TODAY}}", recentMessages: 7, catalog: "{{CATALOG}}" })).toBe(fixture("extractor.txt"))
    const filled = extractorTaskPrompt({ memoryDir: "/m", today: "Thursday 2026-12-03", recentMessages: 3, catalog: "- [user] a.md (2026-01-01T00:00:00.000Z): a" })
    expect(filled).toBe(fixture("extractor.txt").replaceAll("{{MEMORY_DIR}}", "/m").replaceAll("7", "3").replace("{{TODAY}}", "Thursday 2026-12-03").replace("{{CATALOG}}", "- [user] a.md (2026-01-01T00:00:00.000Z): a"))
  })
  it("says so when there are no memories yet, instead of an empty catalog", () => {
    const text = extractorTaskPrompt({ memoryDir: "/m", today: "Thursday 2026-12-03", recentMessages: 2, catalog: "" })
    expect(text).toContain("holds no memories yet")
    expect(text).not.toContain("newest first")
  })
  it("covers the checklist: two-step read/write plan, no verification, remember and forget, the fixed nothing line", () => {
    const text = extractorTaskPrompt({ memoryDir: "/m", today: "Thursday 2026-12-03", recentMessages: 2, catalog: "" })
    expect(text).toContain("no git commands")
    expect(text).toContain("first read")
    expect(text).toContain("explicitly asked to remember")
    expect(text).toContain("asked to forget")
    expect(text).toContain(NOTHING_TO_SAVE)
  })
})

const SIX = ["read", "find", "grep", "write", "edit", "bash"]

/** The tools a section names: the list of its "call only" line, and every tool a rule line opens with. */
const namedIn = (section: string) => {
  const offered = /^In this task you can call only (?:these tools|this tool): (.*)\. Any other tool call returns an error\.$/m.exec(section)?.[1] ?? ""
  const rules = section.split("\n").filter((l) => l.startsWith("- ")).map((l) => l.slice(2, l.indexOf(":")))
  const list = (text: string) => [...text.matchAll(/`([a-z]+)`/g)].map((m) => m[1]!)
  return { offered: list(offered), ruled: rules.flatMap(list) }
}

describe("background tools section", () => {
  it("matches its fixture and opens with the exact heading", () => {
    expect(backgroundToolsSection("{{CWD}}", SIX)).toBe(fixture("background-tools.txt"))
    expect(backgroundToolsSection("/c", SIX).split("\n")[0]).toBe(BACKGROUND_TOOLS_HEADING)
  })

  it("names exactly the tools it is given, for every subset of the six, in the task's order, and promises no other", () => {
    for (let mask = 0; mask < 1 << SIX.length; mask++) {
      const given = SIX.filter((_, i) => (mask & (1 << i)) !== 0)
      // Given in another order and with a parent tool that is not the task's: neither changes what is named.
      const section = backgroundToolsSection("/c", [...[...given].reverse(), "deploy"])
      const { offered, ruled } = namedIn(section)
      expect(offered, given.join(",")).toEqual(given)
      expect(ruled, given.join(",")).toEqual(given)
      expect(section).not.toContain("deploy")
      if (given.length === 0) expect(section).toContain("call only these tools: none")
    }
  })

  it("without read, write and edit are limited to new files; with codemode, the rules of the six its scripts call are there", () => {
    expect(backgroundToolsSection("/c", ["write", "bash"])).toContain("cannot be changed in this task (there is no `read` to read it first)")
    const only = backgroundToolsSection("/c", ["codemode"])
    expect(namedIn(only).offered).toEqual(["codemode"])
    expect(namedIn(only).ruled).toEqual(["codemode", ...SIX])
  })
})
