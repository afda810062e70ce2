/**
 * Failures a person can see, in the real Pi host: a failing extraction is told once (and once when it works again),
 * `/memory status` and `pm status` keep the recent runs with their outcome and reason, an unknown configured model
 * is told at session start and by `pm doctor`, and in print mode (`pi -p`, no UI) each of these is one line on
 * stderr, the selector's warning too.
 */
import { fauxAssistantMessage, fauxText } from "@earendil-works/pi-ai"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { latestRuns, parseRunHistory } from "../../src/background/runHistory.ts"
import { run } from "../support/install.ts"
import { repoRoot, runPm } from "../support/pm.ts"
import { gitRepo, tempDir } from "../support/tmp.ts"
import { call, type Harness, say, startHarness, taskTurn, topic } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const PROVIDER = join(repoRoot, "test", "fixtures", "providers", "faux.mjs")
const serverError = () => fauxAssistantMessage([fauxText("")], { stopReason: "error", errorMessage: "500 Internal Server Error" } as any)
const told = (h: Harness, what: string) => h.notifications.filter((n) => n.message.startsWith(`Project memory: the memory ${what}`))
const runsFile = (h: Harness) => parseRunHistory(readFileSync(join(h.memoryDir, "..", "background-runs.json"), "utf8"))

/** A prompt, then `/memory extract`, which waits for the extraction the turn started (and finds nothing new). */
const turn = async (text: string) => {
  await h!.prompt(text)
  await h!.prompt("/memory extract")
}

describe("a failing extraction in the TUI", () => {
  it("is told once while it keeps failing and once when it works again; the status keeps every run and its reason", async () => {
    h = await startHarness({ provider: "faux" })
    h.background = serverError
    await turn("please remember that deploys happen on Fridays")
    await turn("also remember the release train leaves at noon")
    await turn("and remember that reviews need two approvals")
    expect(told(h, "extraction").map((n) => [n.level, n.message])).toEqual([
      ["warning", "Project memory: the memory extraction failed: model error: 500 Internal Server Error. Not repeated while it keeps failing; /memory status lists the recent runs and why."]
    ])
    h.background = () => say("Nothing to save.")
    await turn("remember nothing in particular this time")
    expect(told(h, "extraction")).toHaveLength(2)
    expect(told(h, "extraction")[1]).toMatchObject({ level: "info", message: expect.stringMatching(/^Project memory: the memory extraction works again \(3 failed runs since \S+\)\.$/) })

    // Every run is on record with its outcome: none of them overwrote another.
    expect(runsFile(h).map((r) => [r.outcome, r.detail])).toEqual([
      ["failed", "model error: 500 Internal Server Error"],
      ["failed", "model error: 500 Internal Server Error"],
      ["failed", "model error: 500 Internal Server Error"],
      ["nothing", "read this conversation"]
    ])
    await h.prompt("/memory status")
    const status = h.notifications.at(-1)!.message
    // Each run once: the newest in full, the three before it in the list.
    expect(status).toMatch(/^Last extraction: +\S+ turn: nothing to save: read this conversation; 1 turn, /m)
    const recent = status.slice(status.indexOf("Earlier background runs (newest first):")).split("\n").slice(1)
    expect(recent).toHaveLength(3)
    for (const line of recent) expect(line).toMatch(/^ {2}\S+ extraction turn +failed: model error: 500 Internal Server Error$/)

    const env = { PI_CODING_AGENT_DIR: h.agentDir }
    const text = await runPm(["status", "--cwd", h.cwd], { agentDir: h.agentDir, home: h.base, env })
    expect(text.stdout.split("\n").filter((l) => /^ {2}\S+ extraction /.test(l))).toEqual(recent)
    const json = JSON.parse((await runPm(["status", "--cwd", h.cwd, "--json"], { agentDir: h.agentDir, home: h.base, env })).stdout)
    expect(json.background.extract).toMatchObject({ outcome: "nothing" })
    expect(json.background.recent.map((r: any) => r.outcome)).toEqual(["failed", "failed", "failed", "nothing"])
    // Each of these runs reached its tools, so its record says how its bash ran; pm status reads the newest.
    const modes = runsFile(h).map((r) => r.sandbox)
    for (const m of modes) expect(["sandbox", "refuse"]).toContain(m)
    expect(json.sandbox.lastRun).toMatchObject({ kind: "extract", mode: modes.at(-1) })
  })

  it("a change the task could not make, with nothing saved, is a failure that names the file and why", async () => {
    h = await startHarness({ provider: "faux" })
    const path = join(h.memoryDir, "deploys.md")
    h.background = (r) => (taskTurn(r) === 0 ? call("write", { path, content: "deploys happen on Fridays\n" }) : say("Saved deploys.md."))
    await turn("please remember that deploys happen on Fridays")
    expect(existsSync(path)).toBe(false)
    const [record] = runsFile(h)
    expect(record).toMatchObject({ outcome: "failed", detail: "the change the model asked for could not be made", unsaved: [{ file: "deploys.md" }] })
    expect(record!.unsaved![0]!.reason).toMatch(/^write failed: Refused: deploys\.md is a topic file and needs frontmatter/)
    expect(told(h, "extraction")).toEqual([
      {
        level: "warning",
        message: "Project memory: the memory extraction could not save deploys.md (the model asked for a change that could not be made; the next extraction tries again). " +
          "Not repeated while it keeps failing; /memory status lists the recent runs and why."
      }
    ])
  })

  it("a write to a file the task never read: the notice names the file, never the model's instructions or a path; /memory status tells it once", async () => {
    h = await startHarness({ provider: "faux", memory: { "MEMORY.md": "- [Deploys](deploys.md) - when deploys happen\n", "deploys.md": topic("Deploys", "when deploys happen") } })
    const path = join(h.memoryDir, "deploys.md")
    h.background = (r) =>
      taskTurn(r) === 0 ? call("write", { path, content: topic("Deploys", "when deploys happen", "project", "Deploys happen on Fridays only.") }) : say("Saved deploys.md.")
    await turn("please remember that deploys happen on Fridays only")
    const [record] = runsFile(h)
    expect(record!.unsaved![0]!.reason).toContain(`${path} already exists and was not read in this task. Read it first`)
    const notices = told(h, "extraction")
    expect(notices.map((n) => n.message)).toEqual([
      "Project memory: the memory extraction could not save deploys.md (the model asked for a change that could not be made; the next extraction tries again). " +
      "Not repeated while it keeps failing; /memory status lists the recent runs and why."
    ])
    await h.prompt("/memory status")
    const status = h.notifications.at(-1)!.message
    // The details, once: the file and the model's reason, in the newest run's line; no list repeats it.
    expect(status.split("already exists and was not read")).toHaveLength(2)
    expect(status).toMatch(/^Last extraction: +\S+ turn: failed: could not save deploys\.md \(write failed: /m)
    expect(status).not.toContain("Earlier background runs")
  })

  it("an extraction and a dream both land in the history, and no temporary file is left behind", async () => {
    const base = tempDir("pm-bg-")
    h = await startHarness({ provider: "faux", base, sessionDir: join(base, "sessions") })
    h.background = () => say("Nothing to save.")
    await turn("please remember that deploys happen on Fridays")
    await h.prompt("/memory dream")
    expect(runsFile(h).map((r) => r.kind).sort()).toEqual(["dream", "extract"])
    expect(readdirSync(join(h.memoryDir, "..")).filter((f) => f.endsWith(".tmp"))).toEqual([])
  })
})

describe("an unknown configured model", () => {
  it("is told once at session start with the key and value; the extraction failures it causes are not told again", async () => {
    h = await startHarness({ config: { extractor: { model: "faux/nope" } } })
    const atStart = h.notifications.filter((n) => n.message.includes("faux/nope"))
    expect(atStart).toEqual([
      { level: "warning", message: expect.stringMatching(/^Project memory: config\.json extractor\.model "faux\/nope" is not usable: model faux\/nope is not known to Pi .*Extraction fails until it is fixed \(pm doctor checks it\)\.$/) }
    ])
    await turn("please remember that deploys happen on Fridays")
    await turn("also remember the release train leaves at noon")
    // Beside the reports of /memory extract itself (a failure, as a warning), nothing more is told.
    const reports = h.notifications.filter((n) => n.message.startsWith("Memory extraction: "))
    expect(reports.map((n) => n.level)).toEqual(["warning", "warning"])
    expect(h.notifications.filter((n) => n.message.includes("faux/nope") && !reports.includes(n))).toEqual(atStart)
    expect(told(h, "extraction")).toEqual([])
    expect(latestRuns(runsFile(h)).extract).toMatchObject({ outcome: "failed", detail: expect.stringContaining("model faux/nope is not known to Pi") })
  })

  it("pm doctor: exit 1 naming the key and the value; a model Pi knows is no problem", async () => {
    const agentDir = tempDir("pm-doctor-agent-")
    const repo = gitRepo()
    const doctor = async (config: unknown) => {
      mkdirSync(join(agentDir, "project-memory"), { recursive: true })
      writeFileSync(join(agentDir, "project-memory", "config.json"), JSON.stringify(config))
      return runPm(["doctor", "--cwd", repo, "--json"], { agentDir, home: agentDir, env: { PM_EXTENSIONS: PROVIDER } })
    }
    const bad = await doctor({ extractor: { model: "faux/nope" }, dream: { model: "faux/faux-2" }, selector: { model: "nobody/none" } })
    expect(bad.code).toBe(1)
    const problems = JSON.parse(bad.stdout).problems.filter((p: any) => p.code === "model-unknown")
    expect(problems.map((p: any) => p.message)).toEqual([
      'config.json selector.model is "nobody/none", a model Pi does not know (check models.json, the provider\'s login, or the extension that registers it).',
      'config.json extractor.model is "faux/nope", a model Pi does not know (check models.json, the provider\'s login, or the extension that registers it).'
    ])
    const good = await doctor({ extractor: { model: "faux/faux-1" }, dream: { model: "faux/faux-2" } })
    expect(JSON.parse(good.stdout).problems.filter((p: any) => p.code.startsWith("model-"))).toEqual([])
  })
})

describe("print mode (pi -p, no UI)", () => {
  const piBin = join(repoRoot, "node_modules", ".bin", "pi")
  const runPi = (cwd: string, agentDir: string, script: ReadonlyArray<unknown>, config?: unknown) => {
    if (config !== undefined) {
      mkdirSync(join(agentDir, "project-memory"), { recursive: true })
      writeFileSync(join(agentDir, "project-memory", "config.json"), JSON.stringify(config))
    }
    return run(
      piBin,
      ["-e", join(repoRoot, "dist", "extension.ts"), "-e", PROVIDER, "--provider", "faux", "--model", "faux-1", "--no-session", "-p", "please remember that deploys happen on Fridays"],
      { cwd, env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, HOME: agentDir, NO_COLOR: "1", PM_FAUX_SCRIPT: JSON.stringify(script) }, timeoutMs: 120_000 }
    )
  }
  const ours = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("Project memory") || l.startsWith("Memory recall"))

  it("a failed extraction is one line on stderr; the answer alone is on stdout", async () => {
    const agentDir = tempDir("pm-print-agent-")
    const r = await runPi(gitRepo(), agentDir, [{ text: "ok" }, { error: "500 Internal Server Error" }])
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe("ok")
    // At a shell, the command named is pm's.
    expect(ours(r.stderr)).toEqual([
      "Project memory: the memory extraction failed: model error: 500 Internal Server Error. Not repeated while it keeps failing; pm status lists the recent runs and why."
    ])
  })

  it("the selector's warning and an unknown model at start reach stderr too, each once", async () => {
    const agentDir = tempDir("pm-print-agent-")
    const repo = gitRepo()
    // A topic, so that the selector runs before the answer; it fails.
    const memory = join(agentDir, "project-memory", "projects", repo.replace(/[^a-zA-Z0-9]/g, "-"), "memory")
    mkdirSync(memory, { recursive: true })
    writeFileSync(join(memory, "release.md"), topic("Release", "how releases are tagged"))
    const r = await runPi(repo, agentDir, [{ error: "503 selector overloaded" }, { text: "ok" }], { extractor: { model: "faux/nope" } })
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe("ok")
    const lines = ours(r.stderr)
    expect(lines.filter((l) => l.includes('extractor.model "faux/nope"'))).toHaveLength(1)
    expect(lines.filter((l) => l.startsWith("Memory recall skipped:") || l.includes("503 selector overloaded"))).toHaveLength(1)
    expect(lines.filter((l) => l.includes("memory extraction failed"))).toEqual([])
  })
})
