/**
 * The background `find` walks the tree in Pi's own process: the walk stops as soon as the call's signal fires (its
 * time limit or an abort), and what it lists passes the scope check.
 */
import * as pi from "@earendil-works/pi-coding-agent"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeFindTool, nodeGlob } from "../../layers/background/tools/find.ts"
import type { ToolContext } from "../../layers/background/tools/toolContext.ts"
import { tempDir } from "../support/tmp.ts"

describe("background find", () => {
  it("stops walking once its call is aborted: no entry is looked at after the signal fires", async () => {
    const cwd = tempDir("pm-find-")
    for (let d = 0; d < 40; d++) {
      mkdirSync(join(cwd, `d${d}`))
      for (let f = 0; f < 25; f++) writeFileSync(join(cwd, `d${d}`, `f${f}.md`), "")
    }
    const controller = new AbortController()
    let looked = 0
    let afterAbort = 0
    const paths = {
      guardPath: async () => {
        if (controller.signal.aborted) afterAbort++
        if (++looked === 10) controller.abort()
        return undefined
      },
      refusePath: async () => undefined
    }
    // The walk itself is awaited (Pi's find returns at the abort and would leave a walk running unseen).
    await expect(nodeGlob("*.md", cwd, { ignore: [], limit: 10_000 }, async (p) => (await paths.guardPath()) !== undefined && p === "", controller.signal)).rejects.toThrow("aborted")
    expect(looked).toBe(10)
    expect(afterAbort).toBe(0)
    // Through the tool, an aborted call ends as aborted.
    const again = new AbortController()
    again.abort()
    const tool = makeFindTool({ pi, cwd, paths } as unknown as ToolContext)
    await expect(tool.execute("c1", { pattern: "*.md" }, again.signal)).rejects.toThrow()
  })

  it("without an abort, the same walk lists every file", async () => {
    const cwd = tempDir("pm-find-")
    for (let f = 0; f < 30; f++) writeFileSync(join(cwd, `f${f}.md`), "")
    const paths = { guardPath: async () => undefined, refusePath: async () => undefined }
    const tool = makeFindTool({ pi, cwd, paths } as unknown as ToolContext)
    const result = await tool.execute("c1", { pattern: "*.md" }, new AbortController().signal)
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("")
    expect(text.split("\n").filter((l) => l.endsWith(".md"))).toHaveLength(30)
  })
})
