import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { backgroundToolsSection, BACKGROUND_TOOLS_HEADING } from "../../src/prompts/backgroundTools.ts"
import { extractorTaskPrompt, NOTHING_TO_SAVE } from "../../src/prompts/extractor.ts"

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "../fixtures/prompts", name), "utf8").replace(/\n$/, "")

describe("extractor task prompt", () => {
  it("matches its fixture word for word; only the directory, the message count and the catalog are filled in", () => {
    expect(extractorTaskPrompt({ memoryDir: "{{MEMORY_DIR}}", recentMessages: 7, catalog: "{{CATALOG}}" })).toBe(fixture("extractor.txt"))
    const filled = extractorTaskPrompt({ memoryDir: "/m", recentMessages: 3, catalog: "- [user] a.md (2026-01-01T00:00:00.000Z): a" })
    expect(filled).toBe(fixture("extractor.txt").replaceAll("{{MEMORY_DIR}}", "/m").replaceAll("7", "3").replace("{{CATALOG}}", "- [user] a.md (2026-01-01T00:00:00.000Z): a"))
  })
  it("says so when there are no memories yet, instead of an empty catalog", () => {
    const text = extractorTaskPrompt({ memoryDir: "/m", recentMessages: 2, catalog: "" })
    expect(text).toContain("holds no memories yet")
    expect(text).not.toContain("newest first")
  })
  it("covers the checklist: two-step read/write plan, no verification, remember and forget, the fixed nothing line", () => {
    const text = extractorTaskPrompt({ memoryDir: "/m", recentMessages: 2, catalog: "" })
    expect(text).toContain("no git commands")
    expect(text).toContain("first read")
    expect(text).toContain("explicitly asked to remember")
    expect(text).toContain("asked to forget")
    expect(text).toContain(NOTHING_TO_SAVE)
  })
})

describe("background tools section", () => {
  it("matches its fixture and opens with the exact heading", () => {
    expect(backgroundToolsSection("{{MEMORY_DIR}}", "{{CWD}}")).toBe(fixture("background-tools.txt"))
    expect(backgroundToolsSection("/m", "/c").split("\n")[0]).toBe(BACKGROUND_TOOLS_HEADING)
  })
})
