/**
 * The dream end to end in the real Pi host against the strict HTTP provider: real sessions write real `.jsonl` files into a
 * session directory, and the sixth session's settled turn finds five others and dreams.
 */
import { SessionManager } from "@earendil-works/pi-coding-agent"
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { join, resolve } from "node:path"
import { latestRuns, parseRunHistory } from "../../src/background/runHistory.ts"
import { afterEach, describe, expect, it } from "vitest"
import { fauxAssistantMessage, fauxText } from "@earendil-works/pi-ai"
import { call, calls, type Harness, type Recorded, say, startHarness, taskTurn, textOf, topic } from "../background/harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const freshBase = () => {
  const base = join(realpathSync(tmpdir()), `pm-dream-${process.pid}-${Math.random().toString(36).slice(2)}`)
  mkdirSync(base)
  return base
}

const DREAM_MARK = "# Memory consolidation"
const isDream = (r: Recorded) => r.messages.some((m: any) => m.role === "user" && textOf(m).includes(DREAM_MARK))

const INDEX = [
  "- [Deploy days](deploy-days.md) - when deploys happen",
  "- [Friday deploys](deploys-friday.md) - deploys on Fridays",
  "- [Tests](tests.md) - how to run the tests",
  ""
].join("\n")

/** The two duplicates as they were before the dream. */
const BEFORE = {
  "deploy-days.md": topic("Deploy days", "when deploys happen", "project", "Deploys happen on Fridays."),
  "deploys-friday.md": topic("Friday deploys", "deploys on Fridays", "project", "We deploy on Fridays, never on public holidays.")
}
const PM = resolve(import.meta.dirname, "../../dist/pm.js")
const pm = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => promisify(execFile)(process.execPath, [PM, ...args], { env, encoding: "utf8" })

const MERGED = topic("Deploy days", "deploys happen on Fridays, never on holidays", "project", "Deploys happen on Fridays.\nNever on public holidays.")
const NEW_INDEX = "- [Deploy days](deploy-days.md) - Friday deploys, never on holidays\n- [Tests](tests.md) - how to run the tests\n"

/** Resolves when the dream asks for its last turn: its tool calls (and their change notices) are behind it. */
const deferred = () => {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

describe("the dream in the real host", () => {
  it("after five other sessions: merges two duplicates (read, then write), removes one with rm, rewrites the index; notices reach the agent; the next session does not dream", async () => {
    const base = freshBase()
    const sessionDir = join(base, "sessions")
    // The directory is shared: a real session of another project and a corrupt file lie beside ours, and never count.
    const other = join(base, "other-project")
    mkdirSync(other)
    const foreign = SessionManager.create(other, sessionDir)
    foreign.appendMessage({ role: "user", content: "another project", timestamp: Date.now() } as any)
    foreign.appendMessage({ role: "assistant", content: [{ type: "text", text: "ok" }], api: "faux", provider: "faux", model: "faux-1", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: Date.now() } as any)
    expect(existsSync(foreign.getSessionFile()!)).toBe(true)
    writeFileSync(join(sessionDir, "2026-01-01T00-00-00-000Z_corrupt.jsonl"), "{not json\n")
    h = await startHarness({
      base,
      sessionDir,
      memory: { "MEMORY.md": INDEX, ...BEFORE, "tests.md": topic("Tests", "how to run the tests", "reference", "npm test") }
    })
    const dir = h.memoryDir
    const lastTurn = deferred()
    h.background = (r) => {
      if (!isDream(r)) return say("Nothing to save.")
      const turn = taskTurn(r)
      if (turn === 0) {
        return calls(
          ["read", { path: join(dir, "MEMORY.md") }],
          ["read", { path: join(dir, "deploy-days.md") }],
          ["read", { path: join(dir, "deploys-friday.md") }]
        )
      }
      if (turn === 1) return call("write", { path: join(dir, "deploy-days.md"), content: MERGED })
      if (turn === 2) return call("bash", { command: `rm ${join(dir, "deploys-friday.md")}` })
      if (turn === 3) return call("write", { path: join(dir, "MEMORY.md"), content: NEW_INDEX })
      lastTurn.resolve()
      return say("Merged deploys-friday.md into deploy-days.md and removed it; rewrote the index.")
    }
    const rt = h.runtime as any
    const sessionIds: Array<string> = []
    for (let i = 1; i <= 6; i++) {
      if (i > 1) await rt.newSession()
      sessionIds.push(rt.session.sessionManager.getSessionId())
      await h.prompt(`session number ${i} talks about the deploy schedule`)
      if (i < 6) expect(h.ofKind("background").filter(isDream)).toHaveLength(0)
    }
    // Five session files beside the current one's: the sixth session's settled turn dispatched the dream.
    await lastTurn.promise
    const dream = h.ofKind("background").filter(isDream)
    expect(dream).toHaveLength(5)
    const instructions = textOf(dream[0]!.messages.at(-1))
    expect(instructions).toContain(`\`${sessionDir}\``)
    expect(instructions).toContain("## Sessions since the last consolidation: 5")
    for (const id of sessionIds.slice(0, 5)) expect(instructions).toContain(`- ${id}`)
    expect(instructions).not.toContain(`- ${sessionIds[5]}`)
    expect(dream[0]!.tools).toEqual(["read", "find", "grep", "write", "edit", "bash"])
    expect(dream[0]!.options.sessionId).toBe(`${sessionIds[5]}-memory-dream`)
    // Every tool call succeeded.
    const results = dream[4]!.messages.filter((m: any) => m.role === "toolResult")
    // (The wire carries no error flag: each result's text says what happened.)
    expect(results.map(textOf)).toEqual([
      INDEX,
      BEFORE["deploy-days.md"],
      BEFORE["deploys-friday.md"],
      `Successfully wrote to ${join(dir, "deploy-days.md")}`,
      "Removed 1 file(s).",
      `Successfully wrote to ${join(dir, "MEMORY.md")}`
    ])

    expect(readFileSync(join(dir, "deploy-days.md"), "utf8")).toBe(MERGED)
    expect(existsSync(join(dir, "deploys-friday.md"))).toBe(false)
    expect(readFileSync(join(dir, "MEMORY.md"), "utf8")).toBe(NEW_INDEX)
    expect(readFileSync(join(dir, "tests.md"), "utf8")).toContain("npm test")

    // The change notices reach the main agent's next request in this session.
    await h.prompt("what should we do next then")
    const next = h.ofKind("main").at(-1)!
    const notices = next.messages
      .filter((m: any) => m.role === "user" && textOf(m).includes("<system-reminder>") && textOf(m).includes("changed by the background dream"))
      .map(textOf)
    // One notice for the dream, naming each file it changed once.
    expect(notices).toEqual([
      "<system-reminder>\nMemory files changed by the background dream: deploy-days.md (written), deploys-friday.md (deleted), MEMORY.md (written).\n</system-reminder>"
    ])

    // A new session (the host waits for background work first) does not dream again: the attempt time is recent.
    await rt.newSession()
    await h.prompt("session number seven talks about the deploy schedule")
    await h.prompt("/memory status")
    expect(h.ofKind("background").filter(isDream)).toHaveLength(5)
    const status = h.notifications.at(-1)!.message
    expect(status).toMatch(/Dream run: +\d{4}-\d\d-\d\dT[^ ]+ turn: saved 3 files \(deploy-days\.md, deploys-friday\.md, MEMORY\.md\): done; 5 turns, 5 requests/)
    const eligible = /Next dream: +not before (\S+),/.exec(status)?.[1]
    expect(eligible).toBeDefined()
    expect(Date.parse(eligible!) - Date.now()).toBeGreaterThan(23 * 3_600_000)
    expect(h.notifications.filter((n) => n.level === "error")).toEqual([])

    // The dream is one task in the change journal, and `pm undo` puts every file back byte for byte.
    const env = { ...process.env, PI_CODING_AGENT_DIR: h.agentDir }
    // Asynchronous: the session's own extraction of the last turn may still hold extract.lock, and must be able to
    // finish while `pm undo` waits for it.
    const log = JSON.parse((await pm(["log", "--cwd", h.cwd, "--json"], env)).stdout)
    const dreamTask = log.find((t: any) => t.kind === "dream")
    expect(dreamTask.changes.map((c: any) => [c.file, c.op]).sort()).toEqual([
      ["MEMORY.md", "update"],
      ["deploy-days.md", "update"],
      ["deploys-friday.md", "delete"]
    ])
    const undo = JSON.parse((await pm(["undo", dreamTask.task, "--cwd", h.cwd, "--json"], env)).stdout)
    expect(undo.refused).toEqual([])
    expect(readFileSync(join(dir, "MEMORY.md"), "utf8")).toBe(INDEX)
    expect(readFileSync(join(dir, "deploy-days.md"), "utf8")).toBe(BEFORE["deploy-days.md"])
    expect(readFileSync(join(dir, "deploys-friday.md"), "utf8")).toBe(BEFORE["deploys-friday.md"])
  })
})

describe("/memory dream by hand", () => {
  it("runs without the thresholds, reports an index over 160 lines, and skips while another process holds dream.lock", async () => {
    const base = freshBase()
    // 161 topics, so that an index linking each of them is over 160 lines (an index line must link a topic that exists).
    const topics = Object.fromEntries(Array.from({ length: 161 }, (_, i) => [`t${i}.md`, topic(`Topic ${i}`, `hook ${i}`)]))
    h = await startHarness({ base, sessionDir: join(base, "sessions"), memory: { "MEMORY.md": INDEX, ...topics } })
    const dir = h.memoryDir
    const longIndex = Array.from({ length: 161 }, (_, i) => `- [Topic ${i}](t${i}.md) - hook`).join("\n") + "\n"
    h.background = (r) => {
      if (!isDream(r)) return say("Nothing to save.")
      const turn = taskTurn(r)
      if (turn === 0) return call("read", { path: join(dir, "MEMORY.md") })
      if (turn === 1) return call("write", { path: join(dir, "MEMORY.md"), content: longIndex })
      return say("Rewrote the index.")
    }
    // One session, no other: a settled turn does not dream.
    await h.prompt("we talk about the deploy schedule today")
    await h.prompt("/memory dream")
    const dream = h.ofKind("background").filter(isDream)
    expect(dream).toHaveLength(3)
    expect(textOf(dream[0]!.messages.at(-1))).toContain("## Sessions since the last consolidation: 0")
    expect(h.notifications.at(-1)!.message).toMatch(
      /^Memory dream: \S+ manual: saved 1 file \(MEMORY\.md\): done; MEMORY\.md is over 160 lines or 20,000 characters \(161 lines, \d+ characters\): later additions may be cut off; 3 turns/
    )
    // Another live process holds the lock: the dream by hand does not wait and does not run.
    const roots = join(h.agentDir, "project-memory", "memory-roots")
    const [root] = readdirSync(roots)
    writeFileSync(join(roots, root!, "locks", "dream.lock"), JSON.stringify({ pid: process.pid, token: "another-process", acquiredAt: Date.now() }))
    await h.prompt("/memory dream")
    expect(h.ofKind("background").filter(isDream)).toHaveLength(3)
    expect(h.notifications.at(-1)!.message).toMatch(/^Memory dream: \S+ manual: skipped: another session was dreaming$/)
  })
})

describe("the dream's attempt time in the real host", () => {
  const stateOf = (agentDir: string) => {
    const roots = join(agentDir, "project-memory", "memory-roots")
    const [root] = readdirSync(roots)
    return JSON.parse(readFileSync(join(roots, root!, "state.json"), "utf8")) as { lastDreamAt: number | null }
  }

  it("a first request refused (429 with retry-after) is no dream: recorded as failed, the attempt time given back", async () => {
    const base = freshBase()
    h = await startHarness({ base, sessionDir: join(base, "sessions") })
    h.background = (r) => (isDream(r) ? { fault: "rate-limit", retryAfterSeconds: 30 } : say("Nothing to save."))
    await h.prompt("we talk about the deploy schedule today")
    await h.prompt("/memory dream")
    expect(h.ofKind("background").filter(isDream)).toHaveLength(1)
    expect(h.notifications.at(-1)!.message).toMatch(
      /^Memory dream: \S+ manual: failed: the first model request failed: .*429.*Rate limit reached.* \(the attempt time was rolled back\)/
    )
    expect(stateOf(h.agentDir).lastDreamAt).toBeNull()
  })

  it("an error answer after the model has worked is the task's result: recorded as failed, the attempt time kept", async () => {
    const base = freshBase()
    h = await startHarness({ base, sessionDir: join(base, "sessions"), memory: { "MEMORY.md": INDEX } })
    h.background = (r) =>
      !isDream(r)
        ? say("Nothing to save.")
        : taskTurn(r) === 0
        ? call("read", { path: join(h!.memoryDir, "MEMORY.md") })
        : fauxAssistantMessage([fauxText("")], { stopReason: "error", errorMessage: "overloaded" } as any)
    await h.prompt("we talk about the deploy schedule today")
    const before = Date.now()
    await h.prompt("/memory dream")
    expect(h.notifications.at(-1)!.message).toMatch(/^Memory dream: \S+ manual: failed: model error: 500\b.*overloaded.*; 2 turns/)
    expect(stateOf(h.agentDir).lastDreamAt).toBeGreaterThanOrEqual(before)
  })

  it("/memory off stops a running dream at once; the attempt time is kept and the record says stopped", async () => {
    const base = freshBase()
    h = await startHarness({ base, sessionDir: join(base, "sessions"), memory: { "MEMORY.md": INDEX } })
    const reached = deferred()
    const hold = deferred()
    h.background = async (r) => {
      if (!isDream(r)) return say("Nothing to save.")
      reached.resolve()
      await hold.promise
      return call("write", { path: join(h!.memoryDir, "MEMORY.md"), content: "- [Gone](gone.md) - should never be written\n" })
    }
    await h.prompt("we talk about the deploy schedule today")
    const before = Date.now()
    const dreaming = h.prompt("/memory dream")
    await reached.promise
    await h.prompt("/memory off")
    await dreaming
    const report = h.notifications.find((n) => n.message.startsWith("Memory dream:"))!.message
    expect(report).toMatch(/^Memory dream: \S+ manual: stopped: interrupted/)
    // The held answer (a write) arrives now. A later dream run start to finish gives it every chance to land.
    hold.resolve()
    h.background = async (r) => (isDream(r) && taskTurn(r) === 0 ? call("read", { path: join(h!.memoryDir, "MEMORY.md") }) : say("Nothing to change."))
    await h.prompt("/memory on")
    await h.prompt("/memory dream")
    expect(h.notifications.filter((n) => n.message.startsWith("Memory dream:")).at(-1)!.message).toMatch(/manual: nothing/)
    expect(readFileSync(join(h.memoryDir, "MEMORY.md"), "utf8")).toBe(INDEX)
    expect(stateOf(h.agentDir).lastDreamAt).toBeGreaterThanOrEqual(before)
    const history = parseRunHistory(readFileSync(join(h.memoryDir, "..", "background-runs.json"), "utf8")).filter((r) => r.kind === "dream")
    expect(history.at(-2)).toMatchObject({ kind: "dream", trigger: "manual", outcome: "stopped", detail: "interrupted" })
  })
})
