/**
 * `pm recall` in a child process, against pi-ai's fake provider loaded as a provider extension through
 * PM_EXTENSIONS (test/fixtures/providers/faux.mjs) and a temporary Pi agent directory: the answer and the request.
 * Model choice and --select: cliModels.test.ts.
 */
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { captured, FIXTURE, fileText, GUIDANCE, hex24, pm, PROVIDER, setup } from "./cliSupport.ts"

beforeAll(() => ensureBuilt())

describe("pm recall QUERY --model faux/faux-1 --json", () => {
  it("prints exactly { selected, injection, budgetUsed } and sends the exact request", async () => {
    const s = setup()
    const r = await pm(s, ["how do we release", "--model", "faux/faux-1"], [{ select: ["[project] release.md", "nope.md"] }])
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const release = fileText(s, "release.md")
    expect(JSON.parse(r.stdout)).toStrictEqual({
      selected: ["release.md"],
      injection: `<system-reminder>\n${GUIDANCE}\n\n## ${join(s.memoryDir, "release.md")}\n\n${release}\n</system-reminder>`,
      budgetUsed: release.length
    })
    const [req, ...more] = captured(s)
    expect(more).toHaveLength(0)
    expect(req!.model).toBe("faux/faux-1")
    expect(req!.systemPrompt).toBe(FIXTURE)
    expect(req!.messages).toHaveLength(1)
    expect(req!.messages[0]!.role).toBe("user")
    expect(req!.messages[0]!.text).toMatch(
      /^Available memories:\n- \[project\] release\.md \(\d{4}-\d\d-\d\d\): How we release\n- \[user\] style\.md \([^)]+\): Code style\n\nUser message:\nhow do we release$/
    )
    expect(req!.tools.map((t) => [t["name"], t["parameters"]])).toStrictEqual([
      [
        "select_memories",
        {
          type: "object",
          properties: { selected_memories: { type: "array", items: { type: "string" } } },
          required: ["selected_memories"],
          additionalProperties: false
        }
      ]
    ])
    expect(req!.options).toStrictEqual({ maxTokens: 512, cacheRetention: "short", sessionId: `pm-cli-${hex24(s.memoryDir)}` })
  })

  it("a stale file gets its note; the text output shows the injection and a summary", async () => {
    const s = setup()
    const r = await runPm(["recall", "code style please", "--model", "faux/faux-1", "--memory-dir", s.memoryDir], {
      agentDir: s.agentDir,
      env: { PM_EXTENSIONS: PROVIDER, PM_FAUX_SCRIPT: JSON.stringify([{ select: ["style.md"] }]) }
    })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`## ${join(s.memoryDir, "style.md")}\n\nNote: This memory was last changed 2 days ago.`)
    expect(r.stdout).toContain(`Selected: style.md; budget used: ${fileText(s, "style.md").length} units`)
  })

  it("a provider failure: [] on stdout, one warning on stderr, exit 1", async () => {
    const s = setup()
    const r = await pm(s, ["how do we release", "--model", "faux/faux-1"], [{ error: "503 overloaded" }])
    expect(JSON.parse(r.stdout)).toStrictEqual({ selected: [], injection: "", budgetUsed: 0 })
    expect(r.stderr).toBe("pm: warning: Memory recall skipped: the request failed: 503 overloaded.\n")
    expect(r.code).toBe(1)
  })

  it("prose instead of a tool call: [] plus a warning, exit 1", async () => {
    const s = setup()
    const r = await pm(s, ["how do we release", "--model", "faux/faux-1"], [{ text: "release.md looks right" }])
    expect(JSON.parse(r.stdout)).toStrictEqual({ selected: [], injection: "", budgetUsed: 0 })
    expect(r.stderr).toMatch(/^pm: warning: Memory recall skipped: the answer is not valid JSON .*\n$/)
    expect(r.code).toBe(1)
  })

  it("the schema retry runs in the CLI too: two requests on the same model", async () => {
    const s = setup()
    const r = await pm(s, ["how do we release", "--model", "faux/faux-2"], [{ error: "strict json_schema is not supported" }, { select: ["release.md"] }])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).selected).toStrictEqual(["release.md"])
    const reqs = captured(s)
    expect(reqs.map((q) => q.model)).toStrictEqual(["faux/faux-2", "faux/faux-2"])
    expect(reqs.map((q) => q.tools[0]!["constrainedSampling"])).toStrictEqual([{ type: "json_schema", strict: "prefer" }, false])
  })

  it("a single word never reaches the model", async () => {
    const s = setup()
    const r = await pm(s, ["release", "--model", "faux/faux-1"], [{ select: ["release.md"] }])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toStrictEqual({ selected: [], injection: "", budgetUsed: 0 })
    expect(captured(s)).toHaveLength(0)
  })
})
