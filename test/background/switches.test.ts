/**
 * Switches and announcements in the real Pi host with the built extension: extraction and dream switched off on
 * their own (`/memory off extraction`, config.json per project), a config.json broken by an edit that keeps memory
 * as it was, every background save named in a notification, and in print mode (`pi -p`) on one stderr line.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { run } from "../support/install.ts"
import { ensureBuilt, repoRoot } from "../support/pm.ts"
import { gitRepo, tempDir } from "../support/tmp.ts"
import { call, type Harness, say, startHarness, taskTurn, topic } from "./harness.ts"

beforeAll(() => ensureBuilt())

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

/** An extraction that writes one topic and the index, then ends. */
const savesDeploys = (dir: string) => (r: Parameters<Harness["background"]>[0]) => {
  const turn = taskTurn(r)
  if (turn === 0) return call("write", { path: join(dir, "deploys.md"), content: topic("Deploys", "deploys happen on Fridays only") })
  if (turn === 1) return call("write", { path: join(dir, "MEMORY.md"), content: "- [Deploys](deploys.md) - Friday deploys\n" })
  return say("Saved deploys.md.")
}

const messages = (x: Harness) => x.notifications.map((n) => n.message)

describe("a background save is announced", () => {
  it("in the TUI: one notification naming every file the extraction saved", async () => {
    h = await startHarness()
    h.background = savesDeploys(h.memoryDir)
    await h.prompt("please remember that deploys happen on Fridays")
    await h.prompt("/memory extract")
    expect(messages(h).filter((m) => m.includes("saved"))).toContain(
      "Project memory: the extraction saved deploys.md, MEMORY.md (/memory undo takes it back)."
    )
    // The change notice (one per task, naming its files) is part of every request on this branch from now on.
    await h.prompt("/memory context")
    const context = messages(h).at(-1)!
    expect(context.split("\n").filter((l) => l.startsWith("change notice (message): "))).toHaveLength(1)
    const notice = "Memory files changed by the background extraction: deploys.md (written)"
    expect(context).toContain(notice)
    await h.prompt("thanks, what else is there")
    expect(JSON.stringify(h.ofKind("main").at(-1)!.messages)).toContain(notice)
    await h.prompt("/memory context")
    expect(messages(h).at(-1)).toContain(notice)
  })

  it("in print mode (pi -p): one line on stderr naming the files; the answer alone on stdout", async () => {
    const agentDir = tempDir("pm-print-agent-")
    const repo = gitRepo()
    const memoryDir = join(agentDir, "project-memory", "projects", repo.replace(/[^a-zA-Z0-9]/g, "-"), "memory")
    const script = [
      { text: "ok" },
      { tools: [{ name: "write", arguments: { path: join(memoryDir, "deploys.md"), content: topic("Deploys", "deploys happen on Fridays only") } }] },
      { tools: [{ name: "write", arguments: { path: join(memoryDir, "MEMORY.md"), content: "- [Deploys](deploys.md) - Friday deploys\n" } }] },
      { text: "Saved." }
    ]
    const r = await run(
      join(repoRoot, "node_modules", ".bin", "pi"),
      ["-e", join(repoRoot, "dist", "extension.ts"), "-e", join(repoRoot, "test", "fixtures", "providers", "faux.mjs"), "--provider", "faux", "--model", "faux-1", "--no-session", "-p", "please remember that deploys happen on Fridays"],
      { cwd: repo, env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, HOME: agentDir, NO_COLOR: "1", PM_FAUX_SCRIPT: JSON.stringify(script) }, timeoutMs: 120_000 }
    )
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trim()).toBe("ok")
    expect(readFileSync(join(memoryDir, "deploys.md"), "utf8")).toContain("Fridays")
    expect(r.stderr.split("\n").filter((l) => l.startsWith("Project memory"))).toEqual([
      "Project memory: the extraction saved deploys.md, MEMORY.md (pm undo takes it back)."
    ])
  })
})

describe("print mode tells a warning once", () => {
  it("the same selector failure on two messages of one pi -p is one line on stderr", async () => {
    const agentDir = tempDir("pm-print-agent-")
    const repo = gitRepo()
    const memoryDir = join(agentDir, "project-memory", "projects", repo.replace(/[^a-zA-Z0-9]/g, "-"), "memory")
    mkdirSync(memoryDir, { recursive: true })
    writeFileSync(join(memoryDir, "release.md"), topic("Release", "how releases are tagged"))
    // Extraction and the dream off, so the script is the selector's and the main agent's only.
    writeFileSync(join(agentDir, "project-memory", "config.json"), JSON.stringify({ extractor: { enabled: false }, dream: { enabled: false } }))
    const script = [{ error: "503 selector overloaded" }, { text: "ok" }, { error: "503 selector overloaded" }, { text: "fine" }]
    const r = await run(
      join(repoRoot, "node_modules", ".bin", "pi"),
      ["-e", join(repoRoot, "dist", "extension.ts"), "-e", join(repoRoot, "test", "fixtures", "providers", "faux.mjs"), "--provider", "faux", "--model", "faux-1", "--no-session", "-p", "how are releases tagged here", "and who approves the releases"],
      { cwd: repo, env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, HOME: agentDir, NO_COLOR: "1", PM_FAUX_SCRIPT: JSON.stringify(script) }, timeoutMs: 120_000 }
    )
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain("fine")
    expect(r.stderr.split("\n").filter((l) => l.includes("503 selector overloaded"))).toHaveLength(1)
  })
})

describe("extraction and dream switch on their own", () => {
  it("/memory off extraction: a settled turn starts no extraction, recall and the index stay; /memory on extraction brings it back", async () => {
    h = await startHarness({ memory: { "MEMORY.md": "- [Old](old.md) - an older memory\n", "old.md": topic("Old", "an older memory") } })
    h.background = savesDeploys(h.memoryDir)
    await h.prompt("/memory off extraction")
    expect(messages(h).at(-1)).toContain("Extraction is off (saved in config.json for every project).")
    expect(JSON.parse(readFileSync(join(h.agentDir, "project-memory", "config.json"), "utf8"))).toEqual({ extractor: { enabled: false } })
    await h.prompt("please remember that deploys happen on Fridays")
    await h.prompt("/memory extract")
    expect(messages(h).at(-1)).toContain("skipped: extraction is switched off (/memory on extraction)")
    expect(h.ofKind("background")).toHaveLength(0)
    // The index still reaches the main agent and the selector still runs.
    expect(h.ofKind("main").at(-1)!.system).toContain("<auto_memory_index>")
    expect(h.ofKind("selector").length).toBeGreaterThan(0)
    await h.prompt("/memory status")
    expect(messages(h).at(-1)).toMatch(/^Switches: +memory on, extraction off \(global\), dream on, recall on$/m)
    await h.prompt("/memory off dream --project")
    expect(messages(h).at(-1)).toContain(`Dream is off (saved in config.json for ${h.cwd} only).`)
    await h.prompt("/memory dream")
    expect(messages(h).at(-1)).toContain("skipped: dream is switched off for this project (/memory on dream --project)")
    await h.prompt("/memory on extraction")
    await h.prompt("and remember that reviews need two approvals")
    await h.prompt("/memory extract")
    expect(h.ofKind("background").length).toBeGreaterThan(0)
  })

  it("config.json per project: extraction off for this project only", async () => {
    h = await startHarness({ config: { projects: {} } })
    writeFileSync(join(h.agentDir, "project-memory", "config.json"), JSON.stringify({ projects: { [h.cwd]: { extractor: { enabled: false } } } }))
    h.background = savesDeploys(h.memoryDir)
    await h.prompt("please remember that deploys happen on Fridays")
    await h.prompt("/memory extract")
    expect(messages(h).at(-1)).toContain("skipped: extraction is switched off for this project (/memory on extraction --project)")
    expect(h.ofKind("background")).toHaveLength(0)
  })
})

describe("invalid values are told where the person looks", () => {
  it("in the TUI: one notification per bad key at session start, naming the key, the value and what it must be", async () => {
    h = await startHarness({ config: { extractor: { maxTurns: -3 }, selector: "haiku" } })
    await h.prompt("hello there, first question")
    const file = join(h.agentDir, "project-memory", "config.json")
    const config = h.notifications.filter((n) => n.message.includes(file))
    expect(config.map((n) => n.message).sort()).toEqual([
      `Project memory: ${file}: "extractor.maxTurns" must be an integer from 1 to 200 (found -3); using the default, 5.`,
      `Project memory: ${file}: "selector" must be an object (found "haiku"); using the default.`
    ])
    expect(config.every((n) => n.level === "warning")).toBe(true)
    // /memory status lists them too, one line each.
    await h.prompt("/memory status")
    const status = messages(h).at(-1)!.split("\n").filter((l) => l.startsWith("Config problem:"))
    expect(status.map((l) => l.replace(/^Config problem: +/, "Project memory: ")).sort()).toEqual(config.map((n) => n.message).sort())
  })
})

describe("a config.json broken by an edit fails closed", () => {
  it("memory switched off stays off after a bad edit, with one warning; a fresh session is off too", async () => {
    h = await startHarness({ config: { enabled: false } })
    await h.prompt("hello there, how are you")
    expect(h.ofKind("main").at(-1)!.system).not.toContain("<auto_memory")
    // The person's edit leaves the file unreadable as JSON.
    writeFileSync(join(h.agentDir, "project-memory", "config.json"), '{ "enabled": false, "selector": ')
    await h.prompt("and now another question please")
    expect(h.ofKind("main").at(-1)!.system).not.toContain("<auto_memory")
    expect(messages(h).filter((m) => m.includes("is not valid JSON"))).toHaveLength(1)
    expect(messages(h).find((m) => m.includes("is not valid JSON"))).toContain("keeping the settings read before")
    // A new process that never read it (pi -p): off, never the defaults.
    const agentDir = tempDir("pm-print-agent-")
    mkdirSync(join(agentDir, "project-memory"), { recursive: true })
    writeFileSync(join(agentDir, "project-memory", "config.json"), "{ nope")
    const r = await run(join(repoRoot, "node_modules", ".bin", "pi"), ["-e", join(repoRoot, "dist", "extension.ts"), "--no-session", "-p", "/memory status"], {
      cwd: gitRepo(),
      env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, HOME: agentDir, NO_COLOR: "1" },
      timeoutMs: 120_000
    })
    expect(r.stdout).toContain("Project memory is inactive: off because config.json is not valid JSON")
    expect(r.stderr.split("\n").filter((l) => l.includes("is not valid JSON"))).toHaveLength(1)
    expect(r.stderr).toContain("project memory stays off until it is fixed")
  })
})
