/**
 * The person's commands over a memory of more than 200 topics, through the real dist/pm.js: `pm list` pages and says
 * how many there are, `show`, `search`, `forget` and `lint` reach the oldest topic (no false `index-link-missing`),
 * and `pm scan` keeps its documented output (the 200 newest, the others reported as older). The default page
 * (SCAN_MAX_TOPICS) is checked at, below and above its edge through MemoryBrowse, with what `/memory list` says.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { formatList } from "../../extension/command.ts"
import { MemoryBrowse } from "../../layers/memory/MemoryBrowse.ts"
import { browseLayer, coreLayer } from "../../layers/app/App.ts"
import { SCAN_MAX_TOPICS } from "../../src/limits.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { gitRepo, tempAgent, tempDir, topicText, writeFileAt, writeTopics } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

const DAY = 86_400_000

/** 250 topics and one older than all, `ancient.md`, every one linked from MEMORY.md. */
const setup = async () => {
  const agent = tempAgent()
  const repo = gitRepo()
  const r = await runPm(["project", "--json", "--cwd", repo], agent)
  const memoryDir = (JSON.parse(r.stdout) as Record<string, string>)["memoryDir"]!
  const written = writeTopics(memoryDir, 250)
  writeFileAt(join(memoryDir, "ancient.md"), topicText({ name: "Ancient", description: "The zeppelin hangar rules", type: "project", body: "Moor zeppelins at dawn." }), Date.now() - 400 * DAY)
  const links = ["ancient.md", ...written.map((w) => w.filename)].map((f) => `- [${f}](${f}) - a topic`)
  writeFileSync(join(memoryDir, "MEMORY.md"), `${links.join("\n")}\n`)
  return { ...agent, repo, memoryDir }
}

describe("pm over 251 topics", () => {
  it("lists a page of 200, says how many there are, pages to the oldest, and --limit 0 lists every one", async () => {
    const s = await setup()
    const first = JSON.parse((await runPm(["list", "--json", "--cwd", s.repo], s)).stdout)
    expect(first).toMatchObject({ total: 251, offset: 0 })
    expect(first.topics).toHaveLength(200)
    const rest = JSON.parse((await runPm(["list", "--json", "--offset", "200", "--cwd", s.repo], s)).stdout)
    expect(rest.topics).toHaveLength(51)
    expect(rest.topics.at(-1).filename).toBe("ancient.md")
    const all = JSON.parse((await runPm(["list", "--json", "--limit", "0", "--cwd", s.repo], s)).stdout)
    expect(all.topics).toHaveLength(251)
    const text = await runPm(["list", "--cwd", s.repo], s)
    expect(text.stdout).toContain("251 topics, newest first: numbers 1 to 200 shown. `pm list --offset 200` shows the next ones")
    const bad = await runPm(["list", "--offset", "-1", "--cwd", s.repo], s)
    expect(bad.code).toBe(2)
  }, 60_000)

  it("shows, finds and forgets the oldest topic, and lint finds no missing link", async () => {
    const s = await setup()
    const shown = await runPm(["show", "ancient", "--json", "--cwd", s.repo], s)
    expect(shown.code).toBe(0)
    expect(JSON.parse(shown.stdout).description).toBe("The zeppelin hangar rules")
    const found = JSON.parse((await runPm(["search", "zeppelin", "--json", "--cwd", s.repo], s)).stdout)
    expect(found.map((h: { filename: string }) => h.filename)).toEqual(["ancient.md"])
    const lint = JSON.parse((await runPm(["lint", "--json", "--cwd", s.repo], s)).stdout) as Array<{ file: string; problems: Array<{ code: string }> }>
    const codes = lint.flatMap((f) => f.problems.map((p) => p.code))
    expect(codes).not.toContain("index-link-missing")
    expect(codes).not.toContain("topic-unindexed")
    const forgot = await runPm(["forget", "ancient.md", "--json", "--cwd", s.repo], s)
    expect(forgot.code).toBe(0)
    expect(existsSync(join(s.memoryDir, "ancient.md"))).toBe(false)
  }, 60_000)

  it("pm scan keeps its documented output: the 200 newest, the others skipped as older", async () => {
    const s = await setup()
    const out = JSON.parse((await runPm(["scan", "--json", "--cwd", s.repo], s)).stdout)
    expect(out.topics).toHaveLength(200)
    expect(out.skipped).toHaveLength(51)
    expect(out.skipped).toContainEqual({ filename: "ancient.md", reason: "older than the 200 newest topics" })
  }, 60_000)
})

describe(`the default page of a listing (${SCAN_MAX_TOPICS} topics)`, () => {
  for (const count of [SCAN_MAX_TOPICS - 1, SCAN_MAX_TOPICS, SCAN_MAX_TOPICS + 1]) {
    it(`of ${count} topics holds ${Math.min(count, SCAN_MAX_TOPICS)}, with the total`, async () => {
      const dir = tempDir()
      writeTopics(dir, count)
      const listing = await Effect.runPromise(
        Effect.flatMap(MemoryBrowse, (b) => b.list(dir)).pipe(Effect.provide(Layer.provide(browseLayer, coreLayer({ agentDir: tempAgent().agentDir }))))
      )
      expect(listing.total).toBe(count)
      expect(listing.topics).toHaveLength(Math.min(count, SCAN_MAX_TOPICS))
      // `/memory list` says when it shows the newest of more.
      const more = `The ${SCAN_MAX_TOPICS} newest of ${count} topics: \`pm list --offset ${SCAN_MAX_TOPICS}\` lists the others.`
      expect(formatList(listing.topics, listing.total).endsWith(more)).toBe(count > SCAN_MAX_TOPICS)
    })
  }
})
