/**
 * `pm remember` says plainly when its new MEMORY.md line lies past what a session loads (the first INDEX_MAX_LINES
 * lines or INDEX_MAX_UNITS characters), at, below and above both edges; the line is appended all the same (no byte of
 * the index rewritten) and recall still reaches the topic.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { INDEX_MAX_LINES, INDEX_MAX_UNITS } from "../../src/limits.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { gitRepo, tempAgent } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

const NOTE = /^Note: MEMORY\.md is longer than a session loads/m

/** A project whose MEMORY.md holds `lines` lines; the text of every line but the last is `width` characters. */
const projectWithIndex = async (lines: number, lastWidth = 40) => {
  const agent = tempAgent()
  const repo = gitRepo()
  const pm = (...args: Array<string>) => runPm(args, { cwd: repo, agentDir: agent.agentDir, home: agent.home })
  const json = JSON.parse((await pm("status", "--json")).stdout)
  const memoryDir: string = json.memoryDir ?? json.location?.memoryDir
  mkdirSync(memoryDir, { recursive: true })
  const body = Array.from({ length: lines }, (_, i) => {
    const line = `- [Topic ${i}](t${i}.md) - x`
    return i === lines - 1 ? line.padEnd(lastWidth, "x") : line
  })
  const index = `${body.join("\n")}\n`
  writeFileSync(join(memoryDir, "MEMORY.md"), index)
  return { pm, memoryDir, index }
}

describe("pm remember and the loaded window of MEMORY.md", () => {
  for (const [lines, outside] of [[INDEX_MAX_LINES - 2, false], [INDEX_MAX_LINES - 1, false], [INDEX_MAX_LINES, true]] as const) {
    it(`an index of ${lines} lines: the new line is number ${lines + 1}, ${outside ? "past" : "inside"} the window`, async () => {
      const t = await projectWithIndex(lines)
      const saved = await t.pm("remember", "deploys happen on fridays only")
      expect(saved.code).toBe(0)
      if (outside) expect(saved.stdout).toMatch(NOTE)
      else expect(saved.stdout).not.toMatch(NOTE)
      const after = readFileSync(join(t.memoryDir, "MEMORY.md"), "utf8")
      expect(after.startsWith(t.index)).toBe(true)
      expect(after.slice(t.index.length)).toMatch(/^- \[.*\]\(deploys-happen-on-fridays-only\.md\)/)
    })
  }

  it("the character edge: a new line ending at exactly INDEX_MAX_UNITS is inside, one character more is past", async () => {
    // Ten lines, the last padded so that the new line ends at the edge (or one past it).
    const probe = await projectWithIndex(10)
    const first = await probe.pm("remember", "deploys happen on fridays only")
    const added = readFileSync(join(probe.memoryDir, "MEMORY.md"), "utf8").slice(probe.index.length).replace(/\n$/, "")
    const lineOf = (i: number) => `- [Topic ${i}](t${i}.md) - x`
    const fixed = Array.from({ length: 9 }, (_, i) => lineOf(i).length + 1).reduce((a, b) => a + b, 0)
    expect(first.stdout).not.toMatch(NOTE)
    for (const [extra, outside] of [[-1, false], [0, false], [1, true]] as const) {
      // Units: the nine lines and their breaks, the tenth line, a break, the new line.
      const lastWidth = INDEX_MAX_UNITS - fixed - 1 - added.length + extra
      const t = await projectWithIndex(10, lastWidth)
      const saved = await t.pm("remember", "deploys happen on fridays only")
      expect(saved.code).toBe(0)
      if (outside) expect(saved.stdout, `extra ${extra}`).toMatch(NOTE)
      else expect(saved.stdout, `extra ${extra}`).not.toMatch(NOTE)
    }
  })
})
