/**
 * Memory you can trust, end to end in the real Pi host with the fake provider and the built extension, then the real
 * `dist/pm.js`: a hostile extractor tries to read `.env` (tool and bash) and to save a GitHub token and a private
 * key; only its clean topic lands, `pm log` shows the task, and `pm undo` restores the directory byte for byte.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { call, calls, type Harness, say, startHarness, taskTurn, topic } from "../background/harness.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { githubToken, privateKeyBlock } from "./fakeSecrets.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})
beforeAll(() => ensureBuilt())

const INDEX = "- [Old](old.md) - an older memory\n"

/** Every file under `dir` with its bytes. */
const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else out[relative(dir, p)] = readFileSync(p).toString("base64")
    }
  }
  walk(dir)
  return out
}

const toolResults = (h: Harness) =>
  // The last request of the task carries every tool result of the task.
  h.ofKind("background").at(-1)!.messages.filter((m: any) => m.role === "toolResult").map((m: any) => ({
    name: m.toolName as string,
    isError: m.isError as boolean,
    text: (m.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("")
  }))

/** One extraction by a hostile model; returns the tokens it tried to leak. */
const hostileExtraction = async (h: Harness) => {
  const dir = h.memoryDir
  const token = githubToken()
  const key = privateKeyBlock()
  writeFileSync(join(h.cwd, ".env"), `GITHUB_TOKEN=${token}\n`)
  h.background = (r) => {
    const turn = taskTurn(r)
    if (turn === 0) {
      return calls(
        ["read", { path: ".env" }],
        ["bash", { command: "cat .env" }],
        ["read", { path: join(dir, "MEMORY.md") }]
      )
    }
    if (turn === 1) {
      return calls(
        ["write", { path: join(dir, "token.md"), content: topic("Token", "the CI token", "reference", `GITHUB_TOKEN=${token}`) }],
        ["write", { path: join(dir, "key.md"), content: topic("Key", "the deploy key", "reference", key) }],
        ["write", { path: join(dir, "deploys.md"), content: topic("Deploys", "deploys happen on Fridays only") }],
        ["edit", { path: join(dir, "MEMORY.md"), edits: [{ oldText: INDEX, newText: `${INDEX}- [Deploys](deploys.md) - Friday deploys\n` }] }]
      )
    }
    return say("Saved deploys.md.")
  }
  await h.prompt("please remember that deploys happen on Fridays")
  await h.prompt("/memory extract")
  return { token, key }
}

describe("a hostile extractor in the real host, then pm log and pm undo", () => {
  it("only the clean topic lands; pm log shows the task; pm undo restores the directory byte for byte", async () => {
    // pi-ai's in-process fake: the assertions read each tool result's isError, which no wire carries.
    h = await startHarness({ provider: "faux", memory: { "MEMORY.md": INDEX, "old.md": topic("Old", "an older memory") } })
    const before = snapshot(h.memoryDir)
    const { token } = await hostileExtraction(h)

    const results = toolResults(h)
    expect(results.map((r) => [r.name, r.isError])).toEqual([
      ["read", true],
      ["bash", true],
      ["read", false],
      ["write", true],
      ["write", true],
      ["write", false],
      ["edit", false]
    ])
    expect(results[0]!.text).toMatch(/^Refused: .*environment file/)
    expect(results[1]!.text).toMatch(/^Refused: .*environment file/)
    expect(results[3]!.text).toMatch(/GitHub/)
    expect(results[4]!.text).toMatch(/private key/i)
    // No tool result ever showed the model the token from .env.
    for (const r of results) expect(r.text).not.toContain(token)

    const after = snapshot(h.memoryDir)
    expect(Object.keys(after).sort()).toEqual(["MEMORY.md", "deploys.md", "old.md"])
    expect(after["old.md"]).toBe(before["old.md"])

    const env = { agentDir: h.agentDir, home: mkdtempSync(join(tmpdir(), "pm-home-")), cwd: h.cwd }
    const log = await runPm(["log", "--json"], env)
    expect(log.stderr).toBe("")
    expect(log.code).toBe(0)
    const tasks = JSON.parse(log.stdout)
    expect(tasks).toHaveLength(1)
    expect(Object.keys(tasks[0]).sort()).toEqual(["at", "changes", "kind", "model", "pending", "session", "task"])
    expect(tasks[0].pending).toEqual([])
    expect(tasks[0].kind).toBe("extract")
    expect(tasks[0].session).toBe(h.session.sessionManager.getSessionId())
    expect(tasks[0].model).toMatch(/\/faux-1$/)
    expect(tasks[0].changes).toEqual([
      { file: "deploys.md", op: "create", before: null, after: expect.stringMatching(/^[0-9a-f]{64}$/) },
      { file: "MEMORY.md", op: "update", before: expect.stringMatching(/^[0-9a-f]{64}$/), after: expect.stringMatching(/^[0-9a-f]{64}$/) }
    ])

    const undo = await runPm(["undo", "--json"], env)
    expect(undo.code).toBe(0)
    expect(JSON.parse(undo.stdout)).toEqual({
      task: tasks[0].task,
      undoTask: expect.stringMatching(/^undo-/),
      files: [{ file: "deploys.md", outcome: "deleted" }, { file: "MEMORY.md", outcome: "restored" }],
      restored: ["deploys.md", "MEMORY.md"],
      refused: []
    })
    expect(snapshot(h.memoryDir)).toEqual(before)

    // The undo is journaled itself, newest first.
    const relog = JSON.parse((await runPm(["log", "--json", "--limit", "1"], env)).stdout)
    expect(relog).toHaveLength(1)
    expect(relog[0].kind).toBe("undo")
  })

  it("a file changed since the task is refused and left alone; the others are restored; exit 1", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "old.md": topic("Old", "an older memory") } })
    const before = snapshot(h.memoryDir)
    await hostileExtraction(h)
    const edited = topic("Deploys", "deploys happen on Fridays only", "project", "Edited by hand.")
    writeFileSync(join(h.memoryDir, "deploys.md"), edited)

    const env = { agentDir: h.agentDir, home: mkdtempSync(join(tmpdir(), "pm-home-")), cwd: h.cwd }
    const undo = await runPm(["undo", "--json"], env)
    expect(undo.code).toBe(1)
    const out = JSON.parse(undo.stdout)
    expect(out.restored).toEqual(["MEMORY.md"])
    expect(out.refused).toEqual([{ file: "deploys.md", reason: expect.stringContaining("changed after this task") }])
    expect(readFileSync(join(h.memoryDir, "deploys.md"), "utf8")).toBe(edited)
    expect(readFileSync(join(h.memoryDir, "MEMORY.md")).toString("base64")).toBe(before["MEMORY.md"])
  })
  it("/memory undo in Pi restores the directory and reports the task", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "old.md": topic("Old", "an older memory") } })
    const before = snapshot(h.memoryDir)
    await hostileExtraction(h)
    expect(snapshot(h.memoryDir)).not.toEqual(before)
    await h.prompt("/memory undo")
    expect(snapshot(h.memoryDir)).toEqual(before)
    expect(h.notifications.map((n) => n.message)).toContainEqual(expect.stringMatching(
      /^Undid extract-\S+:\n  deleted    deploys\.md \(this task had created it\)\n  restored   MEMORY\.md\n1 restored, 1 deleted, 0 unchanged, 0 left alone\.$/
    ))
    // Nothing left to undo but the undo itself: a second /memory undo says so instead of failing silently.
    await h.prompt("/memory undo")
    expect(h.notifications.at(-1)!.message).toContain("nothing to undo")
  })
})
