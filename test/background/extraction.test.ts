/** The extractor end to end in the real Pi host against the strict HTTP provider. */
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { call, calls, type Harness, say, startHarness, taskTurn, textOf, TOOLS_HEADING, topic } from "./harness.ts"
import { run } from "../support/install.ts"

const PM = resolve(import.meta.dirname, "../../dist/pm.js")
let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const INDEX = "- [Old](old.md) - an older memory\n"

describe("extraction after a settled turn", () => {
  it("reads MEMORY.md, writes a topic and edits the index; the notice reaches the next request and the cursor moves", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "old.md": topic("Old", "an older memory") } })
    const dir = h.memoryDir
    h.background = (r) => {
      const turn = taskTurn(r)
      if (turn === 0) return call("read", { path: join(dir, "MEMORY.md") })
      if (turn === 1) {
        return calls(
          ["write", { path: join(dir, "deploys.md"), content: topic("Deploys", "deploys happen on Fridays only") }],
          ["edit", { path: join(dir, "MEMORY.md"), edits: [{ oldText: INDEX, newText: `${INDEX}- [Deploys](deploys.md) - Friday deploys\n` }] }]
        )
      }
      return say("Saved deploys.md.")
    }
    await h.prompt("please remember that deploys happen on Fridays")
    await h.prompt("/memory extract") // waits for the dispatched extraction, then finds nothing new

    expect(readFileSync(join(dir, "deploys.md"), "utf8")).toContain("deploys happen on Fridays only")
    expect(readFileSync(join(dir, "MEMORY.md"), "utf8")).toBe(`${INDEX}- [Deploys](deploys.md) - Friday deploys\n`)

    const background = h.ofKind("background")
    // The writes landed and the index links the new topic: the task ends there, with no call for a summary line.
    expect(background).toHaveLength(2)
    // A fork: the parent's system message byte for byte, the parent's messages as the prefix, short cache retention.
    const main = h.ofKind("main")[0]!
    expect(background[0]!.leadingSystem).toBe(main.leadingSystem)
    expect(background[0]!.options.cacheRetention).toBe("short")
    expect(background[0]!.options.sessionId).toBe(main.options.sessionId)
    const last = background[0]!.messages.at(-1)
    expect(textOf(last)).toContain(TOOLS_HEADING)
    expect(textOf(last)).toContain("old.md")
    // The parent's prompt already carries the memory rules: they are not added again.
    expect(main.system).toContain("## Four types")
    expect(textOf(last)).not.toContain("## Four types")
    expect(background[0]!.messages.some((m: any) => m.role === "user" && textOf(m) === "please remember that deploys happen on Fridays")).toBe(true)
    // The read of the index the fork's system prompt holds word for word points to it instead of repeating it.
    const results = background[1]!.messages.filter((m: any) => m.role === "toolResult")
    expect(results.map(textOf)).toEqual([
      `${join(dir, "MEMORY.md")} (1 line) is the memory index already in your instructions (the auto_memory_index section), word for word, so it is not repeated here. It counts as read: edit it against that text.`
    ])

    // The cursor advanced to the end of the snapshot.
    const cursors = h.branch().filter((e) => e.type === "custom" && e.customType === "pm-extract-cursor")
    expect(cursors).toHaveLength(1)
    const assistantReply = h.branch().filter((e) => e.type === "message" && e.message.role === "assistant").at(-1)
    expect(cursors[0].data.cursor).toBe(assistantReply.id)

    // Usage and the outcome are on record.
    await h.prompt("/memory status")
    const status = h.notifications.at(-1)!.message
    expect(status).toMatch(/Last extraction: .* turn: saved 2 files \(deploys\.md, MEMORY\.md\): read this conversation; 2 turns, 2 requests, \d+ input \/ [1-9]\d* output tokens, cache [1-9]\d* read/)
    // pm status reads the same record.
    const env = { ...process.env, PI_CODING_AGENT_DIR: h.agentDir }
    const pmJson = JSON.parse((await run(process.execPath, [PM, "status", "--cwd", h.cwd, "--json"], { env })).stdout)
    expect(pmJson.background.extract).toMatchObject({ outcome: "saved", trigger: "turn", turns: 2, filesChanged: ["deploys.md", "MEMORY.md"] })
    expect((await run(process.execPath, [PM, "status", "--cwd", h.cwd], { env })).stdout).toMatch(/Last extraction: .* turn: saved 2 files \(deploys\.md, MEMORY\.md\)/)
    expect(h.statuses).toContainEqual({ key: "pm-memory", text: "memory: extracting" })
    expect(h.statuses.at(-1)).toEqual({ key: "pm-memory", text: undefined })

    // The change notices reach the main agent's next request, hidden and wrapped.
    await h.prompt("what should we do next then")
    const next = h.ofKind("main").at(-1)!
    const notices = next.messages.filter((m: any) => m.role === "user" && textOf(m).includes("<system-reminder>") && textOf(m).includes("Memory files changed by the background extraction"))
    // One notice for the task, naming both files it changed, relative to the memory directory.
    expect(notices.map(textOf)).toEqual([
      "<system-reminder>\nMemory files changed by the background extraction: deploys.md (written), MEMORY.md (edited).\n</system-reminder>"
    ])
    // The background loop never entered the transcript.
    expect(next.messages.some((m: any) => textOf(m).includes(TOOLS_HEADING))).toBe(false)

    // The next extraction forks from a prefix that holds those notices: it receives them as Pi sent them to the
    // provider (user messages with text blocks), and its request succeeds.
    h.background = () => say("Nothing to save.")
    await h.prompt("/memory extract")
    const fork = h.ofKind("background").at(-1)!
    expect(fork.messages.some((m: any) => m.role === "custom")).toBe(false)
    const forkedNotice = fork.messages.find((m: any) => m.role === "user" && textOf(m).includes("Memory files changed by the background extraction"))
    expect(forkedNotice?.content).toEqual(expect.arrayContaining([expect.objectContaining({ type: "text" })]))
    const afterNotice = JSON.parse((await run(process.execPath, [PM, "status", "--cwd", h.cwd, "--json"], { env })).stdout)
    expect(afterNotice.background.extract).toMatchObject({ outcome: "nothing", trigger: "turn" })
  })
})

describe("a fork's tools", () => {
  it("the task text names exactly the tools the fork request declares; a task tool it does not declare is refused", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX } })
    const dir = h.memoryDir
    h.background = (r) => (taskTurn(r) === 0 ? calls(["find", { pattern: "*.md", path: dir }], ["read", { path: join(dir, "MEMORY.md") }]) : say("Nothing to save."))
    await h.prompt("please remember that deploys happen on Fridays")
    await h.prompt("/memory extract")
    const [first, second] = h.ofKind("background")
    // A fork: the parent's declarations (Pi's default four), unchanged.
    expect(first!.tools).toEqual(h.ofKind("main")[0]!.tools)
    expect(first!.tools).not.toContain("find")
    const section = textOf(first!.messages.at(-1)).split("\n").find((l) => l.startsWith("In this task you can call only"))!
    const named = [...section.matchAll(/`([a-z]+)`/g)].map((m) => m[1]!)
    expect([...named].sort()).toEqual([...first!.tools].sort())
    const [find, read] = second!.messages.filter((m: any) => m.role === "toolResult")
    // Over the wire a tool result carries no error flag: the texts tell the refusal from the read.
    expect(textOf(find)).toBe(`The tool "find" is not available in this background memory task. Use only ${named.join(", ")}.`)
    // The index the fork already holds comes back as a pointer to it.
    expect(textOf(read)).toContain("is the memory index already in your instructions")
  })
})

describe("an independent request", () => {
  it("with another model: our system prompt with the rules and the tools section, only the six tools, its own session id", async () => {
    h = await startHarness({ models: ["strict-1", "strict-2"], config: { extractor: { model: "strict/strict-2" } } })
    h.background = () => say("Nothing to save.")
    await h.prompt("please remember that deploys happen on Fridays")
    await h.prompt("/memory extract")
    const [task] = h.ofKind("background")
    expect(task).toBeDefined()
    const main = h.ofKind("main")[0]!
    expect(task!.leadingSystem).not.toBe(main.leadingSystem)
    expect(task!.system).toContain(TOOLS_HEADING)
    expect(task!.system.split("## Four types")).toHaveLength(2)
    expect(task!.tools).toEqual(["read", "find", "grep", "write", "edit", "bash"])
    expect(task!.options.cacheRetention).toBe("short")
    expect(task!.options.sessionId).toBe(`${main.options.sessionId}-memory-extract`)
    expect(task!.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user"])
    expect(textOf(task!.messages[0])).toBe("please remember that deploys happen on Fridays")
    // The cursor advanced although nothing was saved: the same messages are never sent twice.
    await h.prompt("/memory extract")
    expect(h.ofKind("background")).toHaveLength(1)
  })
})
