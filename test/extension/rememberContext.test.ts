/**
 * `/memory remember`, `/memory context` and recall switched off, in the real Pi host with the built extension.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt } from "../support/pm.ts"
import { githubToken } from "../trust/fakeSecrets.ts"
import { selectAnswer, startHarness, topic, type Harness } from "./harness.ts"

beforeAll(() => ensureBuilt())

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const said = async (x: Harness, command: string) => {
  const before = x.notifications.length
  await x.prompt(command)
  return x.notifications.slice(before)
}
const text = async (x: Harness, command: string) => (await said(x, command)).map((n) => n.message).join("\n")

const RELEASE = topic("Release process", "How releases are tagged and published; who approves")
const INDEX = "- [Release process](release.md) - tagging and publishing\n"

describe("/memory remember", () => {
  it("saves a topic and its index line, named in the reply; the next request's index has it; /memory undo takes it back", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE } })
    await h.prompt("hello there, first question")
    // This harness's UI has no status line, so its background extraction fails: only the command's reply counts here.
    const reply = (await said(h, "/memory remember --type feedback Always run the linter before committing")).map((n) => n.message).filter((m) => m.startsWith("Project memory: saved")).join("\n")
    expect(reply).toMatch(/^Project memory: saved always-run-the-linter-before-committing\.md, MEMORY\.md \(task remember-[0-9a-f-]+; \/memory undo takes it back\)\.$/)
    const saved = readFileSync(join(h.memoryDir, "always-run-the-linter-before-committing.md"), "utf8")
    expect(saved).toContain("metadata:\n  type: feedback\n")
    expect(readFileSync(join(h.memoryDir, "MEMORY.md"), "utf8")).toBe(
      `${INDEX}- [Always run the linter before committing](always-run-the-linter-before-committing.md)\n`
    )
    // The index snapshot stays; the change is said with the next request.
    await h.prompt("and a second question")
    expect(JSON.stringify(h.mainRequests().at(-1)!.messages)).toContain("<auto_memory_notice>")
    const undo = await text(h, "/memory undo")
    expect(undo).toContain("always-run-the-linter-before-committing.md")
    expect(existsSync(join(h.memoryDir, "always-run-the-linter-before-committing.md"))).toBe(false)
    expect(readFileSync(join(h.memoryDir, "MEMORY.md"), "utf8")).toBe(INDEX)
  })

  it("refuses a credential with a warning naming its kind, never the value, and writes nothing", async () => {
    h = await startHarness()
    const token = githubToken()
    const reply = await said(h, `/memory remember the CI token is ${token}`)
    expect(reply.map((n) => n.level)).toEqual(["warning"])
    expect(reply[0]!.message).toContain("GitHub")
    expect(reply[0]!.message).not.toContain(token)
    expect(readdirSync(h.memoryDir)).toEqual([])
    expect((await said(h, "/memory remember")).map((n) => n.message)).toEqual(["Usage: /memory remember [--type user|feedback|project|reference] TEXT"])
  })
})

describe("/memory context", () => {
  it("lists the sections the next request carries and the last recall, each with characters and tokens", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE }, selector: () => selectAnswer(["release.md"]) })
    await h.prompt("how do we tag and publish a release")
    const recallMessage = h.mainRequests().at(-1)!.messages.map((m: any) => (typeof m.content === "string" ? m.content : m.content.map((c: any) => c.text ?? "").join(""))).find((t: string) => t.includes("release.md"))
    const reply = await text(h, "/memory context")
    const sizes = reply.split("\n").filter((l) => / characters, about [\d,]+ tokens/.test(l))
    expect(sizes.map((l) => l.split(" ")[0])).toEqual(["auto_memory", "auto_memory_index", "auto_memory_date", "recall", "Total:"])
    expect(reply).toContain(`<auto_memory_index>\n${INDEX.trim()}\n</auto_memory_index>`)
    // What the system prompt carries is what the context shows, byte for byte.
    const system = h.mainRequests().at(-1)!.system
    const index = `<auto_memory_index>\n${INDEX.trim()}\n</auto_memory_index>`
    expect(system).toContain(index)
    expect(reply).toContain(`auto_memory_index (system prompt): ${index.length} characters, about ${Math.ceil(index.length / 4)} tokens`)
    const date = /<auto_memory_date>\n.*\n<\/auto_memory_date>/.exec(system)?.[0]
    expect(date).toBeDefined()
    expect(reply).toContain(date)
    expect(reply).toMatch(/^recall \(message\): [\d,]+ characters, about [\d,]+ tokens — the last recall, for "how do we tag and publish a release": release\.md$/m)
    expect(recallMessage).toBeDefined()
    expect(reply).toContain(recallMessage)
  })
})

describe("recall switched off", () => {
  it("no selector request and no recalled topic; the index and rules stay", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE }, selector: () => selectAnswer(["release.md"]) })
    const off = await text(h, "/memory off recall --project")
    expect(off).toContain(`Recall is off (saved in config.json for ${h.cwd} only).`)
    await h.prompt("how do we tag and publish a release")
    expect(h.selectorRequests()).toHaveLength(0)
    const main = h.mainRequests().at(-1)!
    expect(main.system).toContain("<auto_memory_index>")
    expect(JSON.stringify(main.messages)).not.toContain("Body text.")
    expect(await text(h, "/memory context")).toContain("Recall is switched off: no topic is selected or added to messages.")
    // Switched on again by editing config.json: the next message is recalled.
    writeFileSync(join(h.agentDir, "project-memory", "config.json"), JSON.stringify({ projects: { [h.cwd]: { recall: { enabled: true } } } }))
    await h.prompt("and how are releases approved")
    expect(h.selectorRequests()).toHaveLength(1)
  })
})

describe("/memory on|off completions", () => {
  it("complete the part and --project", async () => {
    h = await startHarness()
    const command = h.session.extensionRunner.getCommand("memory")
    const values = async (prefix: string) => ((await command.getArgumentCompletions(prefix)) ?? []).map((i: { value: string }) => i.value)
    expect(await values("off ")).toEqual(["off extraction", "off dream", "off recall", "off --project"])
    expect(await values("off re")).toEqual(["off recall"])
    expect(await values("on dream --p")).toEqual(["on dream --project"])
    expect(await values("rem")).toEqual(["remember"])
    expect(await values("off recall")).toEqual([])
    expect(await values("on dream --project")).toEqual([])
  })
})
