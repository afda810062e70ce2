/** The pure parts of the trust guard, and the status text's figures. */
import { describe, expect, it } from "vitest"
import { formatStatus } from "../../extension/command.ts"
import { toolCallWithoutSession } from "../../layers/safety/ToolGuard.ts"
import { couldTouchMemory, guardedToolPath, isWithin } from "../../src/safety/toolPath.ts"

const ROOT = "/home/u/.pi/agent/project-memory"

describe("guardedToolPath", () => {
  it("names the path of read, write and edit, and the searched folder of grep, find and ls (the cwd by default)", () => {
    expect(guardedToolPath("read", { path: "a.md" })).toBe("a.md")
    expect(guardedToolPath("write", { path: "" })).toBeUndefined()
    expect(guardedToolPath("edit", {})).toBeUndefined()
    expect(guardedToolPath("grep", { pattern: "x" })).toBe(".")
    expect(guardedToolPath("find", { pattern: "*.md", path: "/m" })).toBe("/m")
    expect(guardedToolPath("ls", {})).toBe(".")
    expect(guardedToolPath("bash", { command: "cat a.md" })).toBeUndefined()
  })
})

describe("isWithin", () => {
  it("holds for the folder itself and what is inside it, not for siblings sharing a prefix", () => {
    expect(isWithin("/m/mem", "/m/mem")).toBe(true)
    expect(isWithin("/m/mem", "/m/mem/a.md")).toBe(true)
    expect(isWithin("/m/mem", "/m/memory/a.md")).toBe(false)
    expect(isWithin("/m/mem", "/m")).toBe(false)
  })
})

describe("couldTouchMemory: the fail-closed rule when the check cannot run", () => {
  it("blocks Markdown files, anything naming the storage root, and every search", () => {
    expect(couldTouchMemory("read", { path: "notes.md" }, ROOT)).toBe(true)
    expect(couldTouchMemory("write", { path: "NOTES.MD " }, ROOT)).toBe(true)
    expect(couldTouchMemory("read", { path: `${ROOT}/config.json` }, ROOT)).toBe(true)
    expect(couldTouchMemory("edit", { path: "~/.pi/agent/project-memory/x" }, ROOT)).toBe(true)
    expect(couldTouchMemory("grep", { pattern: "secret" }, ROOT)).toBe(true)
    expect(couldTouchMemory("ls", { path: "src" }, ROOT)).toBe(true)
  })

  it("lets other files and other tools through", () => {
    expect(couldTouchMemory("read", { path: "src/app.ts" }, ROOT)).toBe(false)
    expect(couldTouchMemory("write", { path: "notes.mdx" }, ROOT)).toBe(false)
    expect(couldTouchMemory("bash", { command: "cat notes.md" }, ROOT)).toBe(false)
    expect(couldTouchMemory("read", {}, ROOT)).toBe(false)
  })
})

describe("the extension's guard when the session cannot run at all", () => {
  it("allows a trusted project, and blocks memory paths when trust is false or cannot be read", () => {
    expect(toolCallWithoutSession("read", { path: "notes.md" }, () => true, ROOT)).toBeUndefined()
    expect(toolCallWithoutSession("read", { path: "notes.md" }, () => false, ROOT)?.block).toBe(true)
    const stale = () => {
      throw new Error("This extension ctx is stale")
    }
    expect(toolCallWithoutSession("write", { path: `${ROOT}/projects/x/memory/a.md` }, stale, ROOT)?.reason).toContain("could not run")
    expect(toolCallWithoutSession("read", { path: "src/app.ts" }, () => false, ROOT)).toBeUndefined()
  })
})

describe("/memory status", () => {
  it("shows the branch budget with the spec's figure, grouped as in the docs", () => {
    const text = formatStatus({
      active: true,
      reason: undefined,
      location: { memoryDir: "/m", projectRoot: "/p" } as never,
      topics: 3,
      indexLines: 2,
      indexChars: 40,
      budgetUsed: 12345,
      usage: { requests: 1, input: 10, output: 2, cacheRead: 0, cacheWrite: 0, cost: 0 } as never,
      generation: 1,
      lastDreamAt: null
    })
    expect(text).toMatch(/Recall budget: +12,345 of 61,440 characters used on this branch/)
  })
})
