/**
 * The extension inside the real Pi 1.6 host with the fake provider. Each test builds its own session over a real
 * git repository and a temporary PI_CODING_AGENT_DIR.
 */
import { fauxAssistantMessage } from "@earendil-works/pi-ai"
import { existsSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { RECALL_MESSAGE } from "../../layers/session/sessionShape.ts"
import { SELECTOR_WAIT_MS } from "../../src/limits.ts"
import { emptyMemoryRulesPrompt, memoryRulesPrompt } from "../../src/session/memoryRules.ts"
import { heldSelector, mainGate, makeTestClock, selectAnswer, startHarness, topic, type Harness } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const RELEASE = topic("Release process", "How releases are tagged and published; who approves")
const INDEX = "- [Release process](release.md) - tagging and publishing\n"

const recallMessages = (r: { messages: ReadonlyArray<any> }) =>
  r.messages.filter((m) => m.role === "custom" || (m.role === "user" && JSON.stringify(m.content).includes("<system-reminder>")))

/** The latest tool result the main model saw. */
const lastToolResult = (x: Harness): any => lastMain(x).messages.findLast((m: any) => m.role === "toolResult")

const lastMain = (x: Harness) => {
  const main = x.mainRequests()
  return main[main.length - 1]!
}

const statusText = async (x: Harness): Promise<string> => {
  const before = x.notifications.length
  await x.prompt("/memory status")
  return x.notifications.slice(before).map((n) => n.message).join("\n")
}

describe("system prompt", () => {
  it("carries the rules and the index, byte-identical across three turns", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE } })
    await h.prompt("first question here")
    await h.prompt("second question here")
    await h.prompt("third question here")
    const systems = h.mainRequests().map((r) => r.system)
    expect(systems).toHaveLength(3)
    expect(systems[0]).toContain(`<auto_memory>\n${memoryRulesPrompt(h.memoryDir)}\n</auto_memory>`)
    expect(systems[0]).toContain(`<auto_memory_index>\n${INDEX.trim()}\n</auto_memory_index>`)
    expect(systems[1]).toBe(systems[0])
    expect(systems[2]).toBe(systems[0])
    expect(h.mainRequests().every((r) => r.systemPatches.length === 0)).toBe(true)
  })

  it("keeps the snapshot when MEMORY.md changes and says so once, in a message with the request", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE } })
    await h.prompt("first question here")
    writeFileSync(join(h.memoryDir, "MEMORY.md"), `${INDEX}- [New](new.md) - something new\n`)
    await h.prompt("second question here")
    await h.prompt("third question here")
    const [first, second, third] = h.mainRequests()
    // The system prompt is sent again byte for byte, with no patch: the conversation's cached prefix stays whole.
    expect(second!.system).toBe(first!.system)
    expect(third!.system).toBe(first!.system)
    expect(second!.systemPatches).toHaveLength(0)
    expect(second!.system).not.toContain("[New](new.md)")
    const notices = (r: typeof second) => JSON.stringify(r!.messages).split("<auto_memory_notice>").length - 1
    expect(notices(first)).toBe(0)
    expect(notices(second)).toBe(1)
    expect(JSON.stringify(second!.messages)).toContain("has changed since this conversation started")
    // Said once: it stays in the conversation and is not repeated.
    expect(notices(third)).toBe(1)
  })

  it("sends an empty memory the rules for saving only, then the whole rules and the index once MEMORY.md holds a line", async () => {
    h = await startHarness()
    await h.prompt("hello there friend")
    const empty = lastMain(h).system
    expect(empty).toContain(`<auto_memory>\n${emptyMemoryRulesPrompt(h.memoryDir)}\n</auto_memory>`)
    expect(empty).toContain("## How to save")
    expect(empty).not.toContain("## Using memories")
    expect(empty).not.toContain("<auto_memory_index>")
    writeFileSync(join(h.memoryDir, "release.md"), RELEASE)
    writeFileSync(join(h.memoryDir, "MEMORY.md"), INDEX)
    await h.prompt("second question here")
    const second = lastMain(h)
    // The first request's bytes are sent again; the rules and the index follow as a patch, not a notice.
    expect(second.leadingSystem).toBe(h.mainRequests()[0]!.leadingSystem)
    expect(second.system).toContain(`<auto_memory>\n${memoryRulesPrompt(h.memoryDir)}\n</auto_memory>`)
    expect(second.system).toContain(`<auto_memory_index>\n${INDEX.trim()}\n</auto_memory_index>`)
    expect(second.system).not.toContain("<auto_memory_notice>")
  })
})

describe("recall", () => {
  it("injects the selected topic's content for a recall-worthy prompt", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE }, selector: () => selectAnswer(["release.md"]) })
    await h.prompt("how do we release this project")
    expect(h.selectorRequests()).toHaveLength(1)
    const sel = h.selectorRequests()[0]!
    expect(JSON.stringify(sel.messages[0].content)).toContain("release.md")
    expect(sel.options.maxTokens).toBe(512)
    expect(sel.options.cacheRetention).toBe("short")
    const injected = recallMessages(lastMain(h))
    expect(injected).toHaveLength(1)
    const text = JSON.stringify(injected[0].content)
    expect(text).toContain("<system-reminder>")
    expect(text).toContain(join(h.memoryDir, "release.md"))
    expect(text).toContain("How releases are tagged and published")
  })

  it("does not call the selector for a one-word prompt", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE }, selector: () => selectAnswer(["release.md"]) })
    await h.prompt("release")
    await h.prompt("   hello   ")
    expect(h.selectorRequests()).toHaveLength(0)
    expect(h.mainRequests()).toHaveLength(2)
    expect(recallMessages(lastMain(h))).toHaveLength(0)
  })

  it("a selection slower than 2 s is delivered on its own, by next turn when Pi is idle, and rides with the next request", async () => {
    const clock = await makeTestClock()
    const held = heldSelector(["release.md"])
    h = await startHarness({ clock: clock.clock, memory: { "MEMORY.md": INDEX, "release.md": RELEASE }, selector: held.answer })
    const run = h.prompt("how do we release this project")
    await held.asked
    // The request's 2 s wait runs out on the extension's clock; the selector is still thinking.
    await clock.adjust(SELECTOR_WAIT_MS)
    await run
    expect(recallMessages(h.mainRequests()[0]!)).toHaveLength(0)
    expect(h.sent).toEqual([])
    held.open()
    await h!.until(() => h!.sent.length > 0)
    expect(h.sent).toEqual([{ customType: RECALL_MESSAGE, deliverAs: "nextTurn" }])
    // The next request's own selection is empty: whatever memory it carries is the late one.
    h.selector = () => selectAnswer([])
    await h.prompt("and then what")
    const injected = recallMessages(lastMain(h))
    expect(injected).toHaveLength(1)
    expect(JSON.stringify(injected)).toContain("How releases are tagged and published")
  })

  it("a late selection during a running turn is delivered by steer into that same run", async () => {
    const clock = await makeTestClock()
    const held = heldSelector(["release.md"])
    h = await startHarness({ clock: clock.clock, memory: { "MEMORY.md": INDEX, "release.md": RELEASE }, selector: held.answer })
    // The main model holds its first answer until the selection has landed, so the run is still going.
    const main = mainGate()
    h.mainDelay = main.delay
    const run = h.prompt("how do we release this project")
    await held.asked
    await clock.adjust(SELECTOR_WAIT_MS)
    await main.entered
    held.open()
    await h!.until(() => h!.sent.length > 0)
    expect(h.sent).toEqual([{ customType: RECALL_MESSAGE, deliverAs: "steer" }])
    h.mainDelay = undefined
    main.open()
    await run
    const requests = h.mainRequests()
    expect(requests.length).toBeGreaterThanOrEqual(2)
    expect(recallMessages(requests[0]!)).toHaveLength(0)
    // The same run: its next request carries the memory after the first answer, before any new user message.
    const last = requests[requests.length - 1]!
    // Pi hands hidden messages to the model as user messages; the only other one is the request itself.
    const users = last.messages.filter((m: any) => m.role === "user" && !JSON.stringify(m.content).includes("<system-reminder>"))
    expect(users).toHaveLength(1)
    const firstAnswer = last.messages.findIndex((m: any) => m.role === "assistant")
    const memory = last.messages.findIndex((m: any) => JSON.stringify(m.content).includes("How releases are tagged"))
    expect(firstAnswer).toBeGreaterThanOrEqual(0)
    expect(memory).toBeGreaterThan(firstAnswer)
  })

  it("a queued follow-up message is prefetched when it enters the session, and delivered on its own", async () => {
    h = await startHarness({ fromSource: true, memory: { "MEMORY.md": INDEX, "release.md": RELEASE }, selector: () => selectAnswer([]) })
    const main = mainGate()
    h.mainDelay = main.delay
    const run = h.prompt("start a long task now")
    await main.entered
    h.selector = () => selectAnswer(["release.md"])
    await h.session.followUp("also how do we release this")
    h.mainDelay = undefined
    main.open()
    await run
    await h!.until(() => h!.sent.length > 0)
    const queries = h.selectorRequests().map((r) => JSON.stringify(r.messages.at(-1).content))
    expect(queries.some((q) => q.includes("also how do we release this"))).toBe(true)
    expect(queries.filter((q) => q.includes("start a long task now"))).toHaveLength(1)
    expect(h.sent).toHaveLength(1)
    expect(h.sent[0]!.customType).toBe(RECALL_MESSAGE)
    // Steered into the run if it was still going, else with the next request: either way it reaches the model.
    expect(["steer", "nextTurn"]).toContain(h.sent[0]!.deliverAs)
    if (h.sent[0]!.deliverAs === "nextTurn") await h.prompt("next step please")
    expect(h.mainRequests().some((r) => JSON.stringify(recallMessages(r)).includes("How releases are tagged"))).toBe(true)
  })

  it("a full read suppresses later recall of that file; a partial read does not", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE, "other.md": topic("Other", "Another topic", "project", "a\nb\nc\nd") } })
    await h.prompt(`read ${join(h.memoryDir, "other.md")} offset=2 limit=1`)
    await h.prompt(`read ${join(h.memoryDir, "release.md")}`)
    h.selector = () => selectAnswer(["release.md", "other.md"])
    await h.prompt("tell me about the release process")
    const injected = JSON.stringify(recallMessages(lastMain(h)))
    expect(injected).not.toContain("How releases are tagged and published")
    expect(injected).toContain(join(h.memoryDir, "other.md"))
  })

  it("an unchanged topic already recalled on the branch is not injected or charged again; changed, or after compaction, it is", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE }, selector: () => selectAnswer(["release.md"]) })
    const injectedNow = () => JSON.stringify(recallMessages(lastMain(h!))).split("How releases are tagged and published").length - 1
    await h.prompt("how do we release this project")
    expect(injectedNow()).toBe(1)
    const charged = (await statusText(h)).match(/Recall budget: +([\d,]+) of/)![1]
    for (const p of ["and how about a hotfix release", "who approves a release again", "what about release notes then"]) {
      await h.prompt(p)
      // Once in the whole request: the first turn's injection, never a second copy.
      expect(injectedNow()).toBe(1)
    }
    expect(h.selectorRequests()).toHaveLength(4)
    expect((await statusText(h)).match(/Recall budget: +([\d,]+) of/)![1]).toBe(charged)
    // Changed on disk: injected again.
    utimesSync(join(h.memoryDir, "release.md"), new Date(), new Date(Date.now() + 60_000))
    await h.prompt("the release process once more please")
    expect(injectedNow()).toBe(2)
    // After a compaction the earlier text is gone from context: injected again.
    await h.session.compact()
    await h.prompt("and after compaction the release process")
    expect(injectedNow()).toBe(1)
  })

  it("a stale memory read in full gets the staleness reminder first", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE } })
    const threeDaysAgo = (Date.now() - 3 * 86_400_000) / 1000
    utimesSync(join(h.memoryDir, "release.md"), threeDaysAgo, threeDaysAgo)
    await h.prompt(`read ${join(h.memoryDir, "release.md")}`)
    const toolResult = lastMain(h).messages.find((m: any) => m.role === "toolResult")
    expect(toolResult.content[0].text).toContain("<system-reminder>")
    expect(toolResult.content[0].text).toContain("3 days ago")
    expect(JSON.stringify(toolResult.content.slice(1))).toContain("How releases are tagged")
  })

  it("a memory write with problems gets the lint reminder", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "notes.md": RELEASE } })
    await h.prompt(`write ${join(h.memoryDir, "notes-2.md")} <<<just some text`)
    expect(readFileSync(join(h.memoryDir, "notes-2.md"), "utf8")).toBe("just some text")
    const toolResult = lastMain(h).messages.find((m: any) => m.role === "toolResult")
    const text = JSON.stringify(toolResult.content)
    expect(text).toContain("needs a correction")
    expect(text).toContain("numbered continuation")
    expect(text).toContain("has no frontmatter")
  })

  it("a memory edit by the main agent that breaks the topic gets the lint reminder", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE } })
    await h.prompt(`edit ${join(h.memoryDir, "release.md")} <<<type: project>>>type: rumor`)
    expect(readFileSync(join(h.memoryDir, "release.md"), "utf8")).toContain("  type: rumor\n")
    const toolResult = lastToolResult(h)
    expect(toolResult.toolName).toBe("edit")
    expect(toolResult.isError).toBe(false)
    const text = JSON.stringify(toolResult.content)
    expect(text).toContain("needs a correction")
    expect(text).toContain('type \\"rumor\\" is not one of')
  })

  it("a clean memory edit gets no reminder", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE } })
    await h.prompt(`edit ${join(h.memoryDir, "release.md")} <<<Body text.>>>Tag, then publish.`)
    expect(readFileSync(join(h.memoryDir, "release.md"), "utf8")).toContain("Tag, then publish.")
    const toolResult = lastToolResult(h)
    expect(toolResult.isError).toBe(false)
    expect(JSON.stringify(toolResult.content)).not.toContain("needs a correction")
  })

  it("a clean memory write gets no reminder", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX } })
    await h.prompt(`write ${join(h.memoryDir, "deploys.md")} <<<${topic("Deploys", "How deploys work")}`)
    const toolResult = lastMain(h).messages.find((m: any) => m.role === "toolResult")
    expect(JSON.stringify(toolResult.content)).not.toContain("needs a correction")
  })
})

describe("state resets", () => {
  it("branch navigation rebuilds the recall budget from the active branch", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE }, selector: () => selectAnswer([]) })
    await h.prompt("hello there everyone")
    expect(await statusText(h)).toMatch(/Recall budget: +0 of 61,440 characters/)
    h.selector = () => selectAnswer(["release.md"])
    await h.prompt("how do we release this project")
    expect(await statusText(h)).not.toMatch(/Recall budget: +0 of/)
    const entries = h.session.sessionManager.getEntries()
    const firstUser = entries.find((e: any) => e.type === "message" && e.message.role === "user")
    await h.session.navigateTree(firstUser.id, { summarize: false })
    expect(await statusText(h)).toMatch(/Recall budget: +0 of 61,440 characters/)
  })

  it("compaction resets the budget and the prompt snapshot", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE }, selector: () => selectAnswer(["release.md"]) })
    await h.prompt("how do we release this project")
    await h.prompt("and what about hotfixes then")
    await h.prompt("one more question please")
    expect(await statusText(h)).not.toMatch(/Recall budget: +0 of/)
    writeFileSync(join(h.memoryDir, "MEMORY.md"), `${INDEX}- [New](new.md) - something new\n`)
    await h.session.compact()
    expect(await statusText(h)).toMatch(/Recall budget: +0 of 61,440 characters/)
    await h.prompt("after compaction now")
    const system = lastMain(h).system
    expect(system).toContain("[New](new.md)")
    expect(system).not.toContain("<auto_memory_notice>")
  })

  it("reload builds a fresh instance that reads the index anew", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE } })
    await h.prompt("first question here")
    writeFileSync(join(h.memoryDir, "MEMORY.md"), `${INDEX}- [New](new.md) - something new\n`)
    await h.session.reload()
    await h.prompt("second question here")
    const system = lastMain(h).system
    expect(system).toContain("[New](new.md)")
    expect(system).not.toContain("<auto_memory_notice>")
    expect(h.notifications.filter((n) => n.message.startsWith("EXTENSION ERROR"))).toEqual([])
  })
})

describe("trust", () => {
  it("an untrusted project blocks main-agent reads of memory files and injects no memory", async () => {
    h = await startHarness({ trusted: false, memory: { "MEMORY.md": INDEX, "release.md": RELEASE }, selector: () => selectAnswer(["release.md"]) })
    await h.prompt(`read ${join(h.memoryDir, "release.md")}`)
    const toolResult = lastMain(h).messages.find((m: any) => m.role === "toolResult")
    expect(toolResult.isError).toBe(true)
    expect(JSON.stringify(toolResult.content)).toContain("not trusted")
    expect(lastMain(h).system).not.toContain("<auto_memory>")
    expect(h.selectorRequests()).toHaveLength(0)
  })

  it("a trusted project never blocks reads, writes or edits of memory files", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE } })
    await h.prompt(`read ${join(h.memoryDir, "release.md")}`)
    expect(lastToolResult(h).toolName).toBe("read")
    expect(lastToolResult(h).isError).toBe(false)
    await h.prompt(`write ${join(h.memoryDir, "deploys.md")} <<<${topic("Deploys", "How deploys work")}`)
    expect(lastToolResult(h).toolName).toBe("write")
    expect(lastToolResult(h).isError).toBe(false)
    expect(readFileSync(join(h.memoryDir, "deploys.md"), "utf8")).toBe(topic("Deploys", "How deploys work"))
    await h.prompt(`edit ${join(h.memoryDir, "release.md")} <<<Body text.>>>Tag, then publish.`)
    expect(lastToolResult(h).toolName).toBe("edit")
    expect(lastToolResult(h).isError).toBe(false)
    expect(readFileSync(join(h.memoryDir, "release.md"), "utf8")).toContain("Tag, then publish.")
  })

  /** The main agent tries to read, create and edit memory files; each must be refused and leave the files as they were. */
  const expectMemoryOffLimits = async (x: Harness) => {
    await x.prompt(`read ${join(x.memoryDir, "release.md")}`)
    expect(lastToolResult(x).isError).toBe(true)
    expect(JSON.stringify(lastToolResult(x).content)).toContain("not trusted")
    await x.prompt(`write ${join(x.memoryDir, "planted.md")} <<<${topic("Planted", "Written by an untrusted project")}`)
    expect(lastToolResult(x).isError).toBe(true)
    expect(existsSync(join(x.memoryDir, "planted.md"))).toBe(false)
    await x.prompt(`edit ${join(x.memoryDir, "release.md")} <<<Body text.>>>Planted text.`)
    expect(lastToolResult(x).isError).toBe(true)
    expect(readFileSync(join(x.memoryDir, "release.md"), "utf8")).toBe(RELEASE)
    // The project's own files are not affected.
    await x.prompt(`read ${join(x.cwd, "README.md")}`)
    expect(lastToolResult(x).isError).toBe(false)
  }

  it("with memory switched off, an untrusted project's agent still cannot read, write or edit memory files", async () => {
    h = await startHarness({ trusted: false, memory: { "MEMORY.md": INDEX, "release.md": RELEASE } })
    writeFileSync(join(h.agentDir, "project-memory", "config.json"), JSON.stringify({ enabled: false }))
    await h.session.reload()
    expect(await statusText(h)).toContain("switched off")
    await expectMemoryOffLimits(h)
  })

  it("with memory failed to activate, an untrusted project's agent still cannot read, write or edit memory files", async () => {
    h = await startHarness({ trusted: false, memory: { "MEMORY.md": INDEX, "release.md": RELEASE } })
    writeFileSync(join(h.agentDir, "project-memory", "config.json"), JSON.stringify({ autoMemoryDirectory: "/proc/version/memory" }))
    await h.session.reload()
    expect(await statusText(h)).toContain("inactive")
    await expectMemoryOffLimits(h)
  })

  it("revoking trust mid-session turns memory off at the next check", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE } })
    await h.prompt("first question here")
    expect(lastMain(h).system).toContain("<auto_memory>")
    h.settingsManager.setProjectTrusted(false)
    await h.prompt(`read ${join(h.memoryDir, "release.md")}`)
    const toolResult = lastMain(h).messages.find((m: any) => m.role === "toolResult")
    expect(toolResult.isError).toBe(true)
  })
})

describe("broken memory never blocks the prompt", () => {
  it("garbage, FIFOs, dangling links and a directory named like a topic", async () => {
    h = await startHarness({
      memory: { "good.md": topic("Good", "A valid memory"), "bad.md": "---\nname: [unclosed\n---\n", "bin.md": "\u0000\u0001\u0002binary" },
      selector: () => selectAnswer(["good.md", "missing.md"])
    })
    symlinkSync(join(h.memoryDir, "nowhere"), join(h.memoryDir, "MEMORY.md"))
    symlinkSync(join(h.memoryDir, "gone"), join(h.memoryDir, "dangling.md"))
    mkdirSync(join(h.memoryDir, "dir.md"))
    execFileSync("mkfifo", [join(h.memoryDir, "pipe.md")])
    await h.prompt("tell me something useful now")
    expect(h.mainRequests()).toHaveLength(1)
    const injected = JSON.stringify(recallMessages(lastMain(h)))
    expect(injected).toContain("A valid memory")
  })

  it("a memory directory that cannot be created turns memory off with a warning", async () => {
    h = await startHarness()
    writeFileSync(join(h.agentDir, "project-memory", "config.json"), JSON.stringify({ autoMemoryDirectory: "/proc/version/memory" }))
    await h.session.reload()
    await h.prompt("hello there friend")
    expect(h.mainRequests()).toHaveLength(1)
    expect(lastMain(h).system).not.toContain("<auto_memory>")
    expect(h.notifications.some((n) => n.level === "warning" && n.message.includes("Project memory is off"))).toBe(true)
  })

  it("a configured selector model Pi does not know means no recall this turn and one warning", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE }, selector: () => selectAnswer(["release.md"]) })
    writeFileSync(join(h.agentDir, "project-memory", "config.json"), JSON.stringify({ selector: { model: "nowhere/no-model" } }))
    await h.prompt("how do we release this project")
    expect(h.mainRequests()).toHaveLength(1)
    expect(h.selectorRequests()).toHaveLength(0)
    expect(recallMessages(lastMain(h))).toHaveLength(0)
    const warnings = h.notifications.filter((n) => n.message.includes("nowhere/no-model"))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.level).toBe("warning")
  })

  it("a selector that returns garbage leaves the prompt alone and warns once", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE }, selector: () => fauxAssistantMessage("not json at all") })
    await h.prompt("how do we release this project")
    expect(h.mainRequests()).toHaveLength(1)
    expect(recallMessages(lastMain(h))).toHaveLength(0)
    expect(h.notifications.filter((n) => n.message.includes("Memory recall skipped"))).toHaveLength(1)
  })
})

describe("/memory", () => {
  it("off stops injection and on brings it back", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX } })
    await h.prompt("/memory off")
    await h.prompt("hello there friend")
    expect(lastMain(h).system).not.toContain("<auto_memory>")
    expect(JSON.parse(readFileSync(join(h.agentDir, "project-memory", "config.json"), "utf8")).enabled).toBe(false)
    await h.prompt("/memory on")
    await h.prompt("hello again friend")
    expect(lastMain(h).system).toContain("<auto_memory>")
  })

  it("a config.json change made elsewhere takes effect at the next request", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX } })
    await h.prompt("hello there friend")
    expect(lastMain(h).system).toContain("<auto_memory>")
    // Another Pi session (or the user) switches memory off.
    writeFileSync(join(h.agentDir, "project-memory", "config.json"), JSON.stringify({ enabled: false }))
    await h.prompt("hello again friend")
    expect(lastMain(h).system).not.toContain("<auto_memory>")
  })

  it("off that cannot be saved says so and never claims success", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX } })
    // config.json as a directory: the atomic rename onto it fails.
    mkdirSync(join(h.agentDir, "project-memory", "config.json"), { recursive: true })
    const before = h.notifications.length
    await h.prompt("/memory off")
    const said = h.notifications.slice(before)
    expect(said.map((n) => n.message).join("\n")).not.toContain("Project memory is off")
    expect(said.some((n) => n.level === "warning")).toBe(true)
  })

  it("status names the directory and topic count; open prints the directory", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE } })
    const status = await statusText(h)
    expect(status).toContain(h.memoryDir)
    expect(status).toMatch(/Topics: +1/)
    expect(status).toMatch(/Last dream: +never/)
    const before = h.notifications.length
    await h.prompt("/memory open")
    expect(h.notifications.slice(before).map((n) => n.message)).toContain(h.memoryDir)
  })
})
