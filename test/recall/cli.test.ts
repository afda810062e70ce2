/**
 * `pm recall` in a child process, against pi-ai's fake provider loaded as a provider extension through
 * PM_EXTENSIONS (test/fixtures/providers/faux.mjs) and a temporary Pi agent directory.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { createHash } from "node:crypto"
import { ensureBuilt, repoRoot, runPm, type PmOptions } from "../support/pm.ts"
import { tempAgent, tempDir, topicText, writeFileAt } from "../support/tmp.ts"

/** The selector cache id's hash, computed here rather than with the code under test: sha256, first 24 hex digits. */
const hex24 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex").slice(0, 24)

const PROVIDER = join(repoRoot, "test", "fixtures", "providers", "faux.mjs")
const FIXTURE = readFileSync(join(repoRoot, "test", "fixtures", "prompts", "selector.txt"), "utf8").replace(/\n$/, "")
const GUIDANCE =
  "Memories from earlier sessions that may bear on this request. They were true when written; verify anything that could have changed before acting on it."
const DAY = 86_400_000

beforeAll(() => ensureBuilt(), 180_000)

interface Setup {
  readonly memoryDir: string
  readonly agentDir: string
  readonly capture: string
}

const setup = (): Setup => {
  const memoryDir = join(tempDir("pm-cli-recall-"), "memory")
  const now = Date.now()
  writeFileAt(join(memoryDir, "release.md"), topicText({ name: "Release", description: "How we release", type: "project", body: "Tag vX.Y.Z from main." }), now - DAY)
  writeFileAt(join(memoryDir, "style.md"), topicText({ name: "Style", description: "Code style", type: "user", body: "Two-space indent." }), now - 2 * DAY)
  const { agentDir } = tempAgent()
  return { memoryDir, agentDir, capture: join(tempDir("pm-capture-"), "requests.jsonl") }
}

const pm = (s: Setup, args: ReadonlyArray<string>, script: ReadonlyArray<unknown> | undefined, extra: PmOptions["env"] = {}) =>
  runPm(["recall", ...args, "--memory-dir", s.memoryDir, "--json"], {
    agentDir: s.agentDir,
    env: {
      PM_EXTENSIONS: script === undefined ? undefined : PROVIDER,
      PM_FAUX_SCRIPT: script === undefined ? undefined : JSON.stringify(script),
      PM_FAUX_CAPTURE: s.capture,
      ...extra
    }
  })

interface Captured {
  readonly model: string
  readonly systemPrompt: string
  readonly tools: ReadonlyArray<Record<string, unknown>>
  readonly messages: ReadonlyArray<{ role: string; text: string }>
  readonly options: Record<string, unknown>
}

const captured = (s: Setup): ReadonlyArray<Captured> =>
  existsSync(s.capture)
    ? readFileSync(s.capture, "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Captured)
    : []

const fileText = (s: Setup, name: string): string => readFileSync(join(s.memoryDir, name), "utf8").trim()

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
      /^Available memories:\n- \[project\] release\.md \(\d{4}-\d\d-\d\dT[\d:.]+Z\): How we release\n- \[user\] style\.md \([^)]+\): Code style\n\nUser message:\nhow do we release$/
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
    const r = await pm(s, ["how do we release"], [])
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
