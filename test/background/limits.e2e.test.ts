/**
 * Background requests against the strict HTTP provider in the real Pi host: within the model's declared limits,
 * shortened or skipped (never sent to fail) when they would not fit its window.
 */
import { latestRuns, parseRunHistory } from "../../src/background/runHistory.ts"
import { mkdtempSync, readFileSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { call, type Harness, say, startHarness, taskTurn, textOf, TOOLS_HEADING, topic } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const runsOf = (x: Harness): any => latestRuns(parseRunHistory(readFileSync(join(x.memoryDir, "..", "background-runs.json"), "utf8")))
const gate = () => {
  let open!: () => void
  const promise = new Promise<void>((resolve) => (open = resolve))
  return { promise, open }
}

describe("output tokens within the model's maxTokens", () => {
  it("a model declared at maxTokens 4096: the extractor (8192 configured) asks for 4096, and its write lands", async () => {
    h = await startHarness({ models: [{ id: "strict-1", contextWindow: 128_000, maxTokens: 4_096 }] })
    const dir = h.memoryDir
    h.background = (r) =>
      taskTurn(r) === 0 ? call("write", { path: join(dir, "deploys.md"), content: topic("Deploys", "deploys happen on Fridays") }) : say("Saved.")
    await h.prompt("please remember that deploys happen on Fridays")
    await h.prompt("/memory extract")
    expect(readFileSync(join(dir, "deploys.md"), "utf8")).toContain("deploys happen on Fridays")
    const background = h.strict!.requests.filter((r) => r.messages.some((m: any) => textOf(m).includes(TOOLS_HEADING)))
    expect(background).toHaveLength(2)
    expect(background.map((r) => [r.status, r.options.maxTokens])).toEqual(background.map(() => [200, 4_096]))
    expect(runsOf(h).extract).toMatchObject({ outcome: "saved", filesChanged: ["deploys.md"] })
    // No request of the session was refused.
    expect(h.strict!.requests.filter((r) => r.status !== 200)).toEqual([])
  })

  it("the dream (16384 configured), run by hand, asks for 4096 and runs", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-lim-")))
    h = await startHarness({ base, sessionDir: join(base, "sessions"), models: [{ id: "strict-1", contextWindow: 128_000, maxTokens: 4_096 }] })
    h.background = () => say("Nothing to do.")
    await h.prompt("we talk about the deploy schedule today")
    await h.prompt("/memory dream")
    const dream = h.strict!.requests.filter((r) => r.messages.some((m: any) => textOf(m).includes("# Memory consolidation")))
    expect(dream.map((r) => [r.status, r.options.maxTokens])).toEqual([[200, 4_096]])
    expect(h.notifications.at(-1)!.message).toMatch(/^Memory dream: \S+ manual: nothing to save: done/)
  })
})

describe("input within the model's context window", () => {
  // The extractor's own model: an 8,000-token window (the session's model is large).
  const small = { id: "strict-2", contextWindow: 8_000, maxTokens: 2_048 }
  const models = [{ id: "strict-1", contextWindow: 128_000, maxTokens: 16_384 }, small]
  const config = { extractor: { model: "strict/strict-2" } }
  // 40,000 characters: 10,000 estimated tokens, more than the small window holds.
  const huge = `please remember this whole log ${"x".repeat(40_000)}`

  it("no recent message fits: the run is skipped with the reason, nothing is sent, and the cursor moves on", async () => {
    h = await startHarness({ models, config })
    await h.prompt(huge)
    await h.prompt("/memory extract")
    expect(h.ofKind("background")).toEqual([])
    expect(h.strict!.requests.filter((r) => r.model === "strict-2")).toEqual([])
    const runs = runsOf(h)
    expect(runs.extract).toMatchObject({ outcome: "skipped", turns: 0 })
    expect(runs.extract.detail).toMatch(/^not sent: no recent message fits the model's 8000-token context window with the task \(about \d+ input tokens for all 2\)$/)
    const cursors = h.branch().filter((e) => e.type === "custom" && e.customType === "pm-extract-cursor")
    expect(cursors).toHaveLength(1)
  })

  it("the messages after the cursor do not all fit: the most recent ones that do are sent, and the request succeeds", async () => {
    h = await startHarness({ models, config })
    const first = gate()
    const release = gate()
    let tasks = 0
    h.background = async (r) => {
      if (taskTurn(r) > 0) return say("Nothing to save.")
      if (++tasks === 1) {
        first.open()
        await release.promise
      }
      return say("Nothing to save.")
    }
    await h.prompt("please remember that deploys happen on Fridays")
    await first.promise
    // Two turns settle while the first extraction runs: the trailing one gets the four messages after its cursor.
    await h.prompt(huge)
    await h.prompt("and the release train leaves on Mondays")
    release.open()
    await h.prompt("/memory extract")
    const tasksSent = h.ofKind("background").filter((r) => taskTurn(r) === 0)
    expect(tasksSent).toHaveLength(2)
    const trailing = tasksSent[1]!
    expect(trailing.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user"])
    expect(textOf(trailing.messages[0])).toBe("and the release train leaves on Mondays")
    expect(textOf(trailing.messages[2])).toContain("in the last 2 messages above")
    expect(h.strict!.requests.filter((r) => r.status !== 200)).toEqual([])
    expect(runsOf(h).extract.detail).toBe("read the new messages in a request of its own (the last 2 of 4 messages fit the model's context window)")
  })
})
