/**
 * `pm eval`'s requests, tokens and cost come from the model's own answers and Pi's model table: against the strict
 * HTTP provider (test/support/strictProvider.ts, declared in models.json with prices), the figures are the requests
 * the provider received, the prompt tokens it reported (input plus those read from cache), and the cost Pi's table
 * gives those tokens. Without `--model` the model is the one Pi starts with.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { estimateWireTokens, type StrictProvider, startStrictProvider } from "../support/strictProvider.ts"
import { tempAgent, tempDir, topicText, writeFileAt } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

let strict: StrictProvider | undefined
afterEach(async () => {
  await strict?.close()
  strict = undefined
})

describe("pm eval's usage figures", () => {
  it("counts the provider's requests and reported tokens, priced by Pi's model table", async () => {
    const set = tempDir("pm-eval-set-")
    writeFileAt(join(set, "memory", "release.md"), topicText({ name: "Release", description: "Tag from main on Tuesdays", type: "project" }))
    writeFileAt(join(set, "memory", "style.md"), topicText({ name: "Style", description: "Two-space indent", type: "user" }))
    // Enough topics that the second request's catalog is read from the provider's cache (past 1,024 tokens).
    for (let i = 0; i < 80; i++) {
      writeFileAt(join(set, "memory", `note-${i}.md`), topicText({ name: `Note ${i}`, description: `A note about part ${i} of the build, its owner and the way it is deployed to staging`, type: "project" }))
    }
    writeFileSync(join(set, "prompts.jsonl"), [
      JSON.stringify({ prompt: "how do we cut a release", expect: ["release.md"] }),
      JSON.stringify({ prompt: "what is two plus two", expect: [] })
    ].join("\n"))
    strict = await startStrictProvider({
      handler: (r) => ({ toolCalls: [{ name: "select_memories", arguments: { selected_memories: r.tools.includes("select_memories") ? ["release.md"] : [] } }] })
    })
    const { agentDir } = tempAgent()
    writeFileSync(join(agentDir, "models.json"), JSON.stringify(strict.modelsJson()))
    const r = await runPm(["eval", "recall", "--set", set, "--json"], { agentDir })
    expect(r.code, r.stderr).toBe(0)
    const j = JSON.parse(r.stdout) as {
      model: string
      recall_at_5: number
      precision_at_5: number
      abstention: number
      usage: { requests: number; input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_write_tokens: number; cost: number }
    }
    expect(j.model).toBe("strict/strict-1")
    expect([j.recall_at_5, j.precision_at_5, j.abstention]).toStrictEqual([1, 0.5, 0])
    const u = j.usage
    expect(u.requests).toBe(strict.requests.length)
    expect(u.requests).toBe(2)
    expect(u.input_tokens + u.cache_read_tokens).toBe(strict.requests.reduce((n, q) => n + estimateWireTokens(q.body), 0))
    expect(u.output_tokens).toBeGreaterThan(0)
    expect(u.cache_read_tokens).toBeGreaterThan(0)
    // models.json prices: 1 per million input tokens, 2 per million output, 0.1 per million read from cache.
    expect(u.cost).toBeCloseTo((u.input_tokens * 1 + u.output_tokens * 2 + u.cache_read_tokens * 0.1) / 1e6, 12)
    expect(u.cost).toBeGreaterThan(0)
  })
})
