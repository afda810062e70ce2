/**
 * `pm recall` in a child process (see cli.test.ts): which model it uses, its one-line errors, and --select.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { run } from "../support/install.ts"
import { ensureBuilt, repoRoot } from "../support/pm.ts"
import { type StrictProvider, startStrictProvider } from "../support/strictProvider.ts"
import { captured, fileText, GUIDANCE, pm, setup } from "./cliSupport.ts"

beforeAll(() => ensureBuilt())

let strict: StrictProvider | undefined
afterEach(async () => {
  await strict?.close()
  strict = undefined
})

/** The model a bare `pi -p` answers with in this agent directory: the one Pi starts with. */
const piStartsWith = async (agentDir: string, cwd: string): Promise<string> => {
  const before = strict!.requests.length
  const r = await run(join(repoRoot, "node_modules", ".bin", "pi"), ["--no-session", "--no-extensions", "-p", "say ok"], {
    cwd,
    env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, HOME: agentDir, PI_OFFLINE: "1" },
    timeoutMs: 120_000
  })
  expect(r.code, r.stderr).toBe(0)
  return strict!.requests.slice(before).map((q) => q.model).join(",")
}

describe("pm recall: model choice", () => {
  it("an unknown model is a one-line error with exit 2 and nothing on stdout", async () => {
    const s = setup()
    const r = await pm(s, ["how do we release", "--model", "faux/nope"], [{ select: ["release.md"] }])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe("pm: model faux/nope is not known to Pi (check models.json and the provider's login)\n")
    expect(captured(s)).toHaveLength(0)
  })

  it("a malformed --model is a one-line error with exit 2", async () => {
    const s = setup()
    const r = await pm(s, ["how do we release", "--model", "faux-1"], [])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe('pm: "faux-1" is not of the form provider/model-id\n')
  })

  it("no model anywhere is a one-line error with exit 2", async () => {
    const s = setup()
    // No provider extension and no models.json: no model has a login.
    const r = await pm(s, ["how do we release"], undefined)
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr.split("\n")).toStrictEqual([expect.stringMatching(/^pm: no model is configured/), ""])
  })

  it("a provider extension that cannot be loaded is a one-line error with exit 2", async () => {
    const s = setup()
    const r = await pm(s, ["how do we release", "--model", "faux/faux-1"], undefined, { PM_EXTENSIONS: join(s.memoryDir, "missing.mjs") })
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toMatch(/^pm: cannot load Pi's model runtime: [^\n]*\n$/)
  })

  it("Pi's default model from settings.json is used when --model is absent", async () => {
    const s = setup()
    writeFileSync(join(s.agentDir, "settings.json"), JSON.stringify({ defaultProvider: "faux", defaultModel: "faux-2" }))
    const r = await pm(s, ["how do we release"], [{ select: ["release.md"] }])
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).selected).toStrictEqual(["release.md"])
    expect(captured(s).map((q) => q.model)).toStrictEqual(["faux/faux-2"])
  })

  it("selector.model in config.json wins over Pi's default; --model wins over both", async () => {
    const s = setup()
    writeFileSync(join(s.agentDir, "settings.json"), JSON.stringify({ defaultProvider: "faux", defaultModel: "faux-1" }))
    mkdirSync(join(s.agentDir, "project-memory"), { recursive: true })
    writeFileSync(join(s.agentDir, "project-memory", "config.json"), JSON.stringify({ selector: { model: "faux/faux-2" } }))
    const a = await pm(s, ["how do we release"], [{ select: [] }])
    expect(a.code).toBe(0)
    const b = await pm(s, ["how do we release", "--model", "faux/faux-1"], [{ select: [] }])
    expect(b.code).toBe(0)
    expect(captured(s).map((q) => q.model)).toStrictEqual(["faux/faux-2", "faux/faux-1"])
  })
})

describe("pm recall: the model Pi starts with", () => {
  it.each([
    ["one model in models.json and no setting", undefined],
    ["two models and no setting", undefined],
    ["a default setting", { defaultProvider: "strict", defaultModel: "strict-b" }],
    ["enabledModels without the default", { defaultProvider: "strict", defaultModel: "strict-a", enabledModels: ["strict/strict-b"] }]
  ] as const)("%s: the selector asks the model a bare pi -p answers with", async (name, settings) => {
    const s = setup()
    const ids = name.startsWith("one") ? ["strict-a"] : ["strict-a", "strict-b"]
    strict = await startStrictProvider({
      models: ids.map((id) => ({ id, contextWindow: 128_000, maxTokens: 4_096 })),
      handler: (r) => (r.tools.includes("select_memories") ? { toolCalls: [{ name: "select_memories", arguments: { selected_memories: ["release.md"] } }] } : { text: "ok" })
    })
    writeFileSync(join(s.agentDir, "models.json"), JSON.stringify(strict.modelsJson()))
    if (settings !== undefined) writeFileSync(join(s.agentDir, "settings.json"), JSON.stringify(settings))
    const pi = await piStartsWith(s.agentDir, s.memoryDir)
    const r = await pm(s, ["how do we release"], undefined)
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).selected).toStrictEqual(["release.md"])
    const selector = strict.requests.filter((q) => q.tools.includes("select_memories")).map((q) => q.model)
    expect(selector).toEqual([pi])
    // The cases differ: Pi's choice is not always the first model.
    if (name === "a default setting" || name.startsWith("enabledModels")) expect(pi).toBe("strict-b")
  })
})

describe("pm recall --select", () => {
  it("works without any model or provider", async () => {
    const s = setup()
    const r = await pm(s, ["anything", "--select", "release.md"], undefined)
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const release = fileText(s, "release.md")
    expect(JSON.parse(r.stdout)).toStrictEqual({
      selected: ["release.md"],
      injection: `<system-reminder>\n${GUIDANCE}\n\n## ${join(s.memoryDir, "release.md")}\n\n${release}\n</system-reminder>`,
      budgetUsed: release.length
    })
  })

  it("an unknown file is an error with exit 2", async () => {
    const s = setup()
    const r = await pm(s, ["anything", "--select", "nope.md"], undefined)
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe(`pm: not a topic in ${s.memoryDir}: nope.md\n`)
  })
})
