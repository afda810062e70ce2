/** Eight `pm scan` processes race to backfill one missing MEMORY.md: exactly one complete index results. */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { BACKFILL_MAX_LINES } from "../../src/limits.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { tempAgent, tempDir, writeTopics } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

const race = async (topicCount: number, json = true) => {
  const dir = tempDir("pm-race-")
  const topics = writeTopics(dir, topicCount)
  const agent = tempAgent()
  const args = ["scan", ...(json ? ["--json"] : []), "--memory-dir", dir]
  const results = await Promise.all(Array.from({ length: 8 }, () => runPm(args, agent)))
  return { dir, topics, results }
}

describe("concurrent backfill", () => {
  it("creates exactly one complete index when 8 processes scan at once", async () => {
    const { dir, topics, results } = await race(40)
    for (const r of results) {
      expect(r.code).toBe(0)
      const out = JSON.parse(r.stdout)
      // Every process sees the same complete index, whether it wrote it or found it.
      expect(out.index).toMatchObject({ exists: true, lines: 40, truncated: false })
    }
    const index = readFileSync(join(dir, "MEMORY.md"), "utf8")
    const lines = index.trimEnd().split("\n")
    expect(lines).toHaveLength(40)
    for (const t of topics) expect(lines.filter((l) => l.includes(`(${t.filename})`))).toHaveLength(1)
    // No staging files left behind, and one MEMORY.md.
    expect(readdirSync(dir).filter((n) => n.includes("MEMORY"))).toEqual(["MEMORY.md"])
  })

  it("has exactly one process report that it created the index", async () => {
    const { results } = await race(40, false)
    const indexLines = results.map((r) => r.stdout.split("\n").find((l) => l.startsWith("Index:")) ?? "")
    expect(indexLines.filter((l) => l.includes("created from the topics just now"))).toHaveLength(1)
    for (const l of indexLines) expect(l).toMatch(/^Index:\s+MEMORY\.md, 40 lines/)
  })

  it("fills the backfill window and no more when there are more topics than it holds", async () => {
    const { dir, topics, results } = await race(BACKFILL_MAX_LINES + 20)
    for (const r of results) expect(r.code).toBe(0)
    const lines = readFileSync(join(dir, "MEMORY.md"), "utf8").trimEnd().split("\n")
    expect(lines).toHaveLength(BACKFILL_MAX_LINES)
    const newest = [...topics].reverse().slice(0, BACKFILL_MAX_LINES)
    expect(lines.map((l) => /\(([^)]+)\)/.exec(l)?.[1])).toEqual(newest.map((t) => t.filename))
    expect(readdirSync(dir).filter((n) => n.includes("MEMORY"))).toEqual(["MEMORY.md"])
  })
})
