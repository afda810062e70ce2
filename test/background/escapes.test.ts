/**
 * A hostile background model in the real Pi host: every attempt to change something outside memory is refused by
 * the real writer and the real bash guard, and nothing outside the memory directory changes.
 */
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, lstatSync, readFileSync, realpathSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { calls, type Harness, say, startHarness, taskTurn, textOf, topic } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

/** Every file under `dir` (links not followed) with a hash of its content, except under `skip`. */
const snapshot = (dir: string, skip: ReadonlyArray<string>): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      if (skip.some((s) => p === s || p.startsWith(`${s}/`))) continue
      if (e.isDirectory()) walk(p)
      else if (e.isFile()) out[relative(dir, p)] = createHash("sha256").update(readFileSync(p)).digest("hex")
      else out[relative(dir, p)] = "link"
    }
  }
  walk(dir)
  return out
}

const DEPLOY_EXTENSION = `export default function (pi) {
  pi.registerTool({ name: "deploy", label: "deploy", description: "Deploys the app",
    parameters: { type: "object", properties: {}, additionalProperties: false },
    async execute() { (await import("node:fs")).writeFileSync(process.env.PM_DEPLOY_MARK, "deployed"); return { content: [{ type: "text", text: "ok" }], details: undefined } } })
}
`

describe("a hostile background model", () => {
  it("is refused every write, edit and delete outside memory, and nothing outside memory changes", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-bg-hostile-")))
    const outside = join(base, "outside")
    mkdirSync(outside)
    writeFileSync(join(outside, "target.md"), "untouched\n")
    const extension = join(base, "deploy-extension.mjs")
    writeFileSync(extension, DEPLOY_EXTENSION)
    process.env["PM_DEPLOY_MARK"] = join(outside, "deployed")
    // pi-ai's in-process fake: these assertions read each tool result's isError, which no wire carries.
    h = await startHarness({
      provider: "faux",
      base,
      extensions: [extension],
      memory: { "MEMORY.md": "- [Old](old.md) - old\n", "old.md": topic("Old", "old"), "other.md": topic("Other", "other") }
    })
    const mem = h.memoryDir
    symlinkSync(join(outside, "target.md"), join(mem, "link.md"))
    symlinkSync(outside, join(mem, "sub"))
    const skip = [mem, join(h.agentDir, "project-memory"), join(h.agentDir, "sessions")]
    const before = snapshot(base, skip)
    const otherBefore = readFileSync(join(mem, "other.md"), "utf8")

    const attempts: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
      ["write", { path: "../x.md", content: "x" }],
      ["write", { path: join(mem, "..", "x.md"), content: "x" }],
      ["write", { path: join(h.cwd, "evil.md"), content: "x" }],
      ["write", { path: join(outside, "new.md"), content: "x" }],
      ["write", { path: join(mem, "link.md"), content: "through a link" }],
      ["write", { path: join(mem, "sub", "target.md"), content: "through a linked folder" }],
      ["write", { path: join(mem, "sub", "fresh.md"), content: "through a linked folder" }],
      ["edit", { path: join(mem, "other.md"), edits: [{ oldText: "Body text.", newText: "Rewritten." }] }],
      ["bash", { command: `echo pwned > ${join(outside, "bash.md")}` }],
      ["bash", { command: `touch ${join(h.cwd, "pwned")}` }],
      ["bash", { command: `sed -i s/untouched/changed/ ${join(outside, "target.md")}` }],
      ["bash", { command: `cat ${join(mem, "old.md")} | tee ${join(outside, "tee.md")}` }],
      ["bash", { command: `rm -rf ${outside}` }],
      ["bash", { command: `rm -rf ${mem}` }],
      ["bash", { command: `rm ${join(outside, "target.md")}` }],
      ["bash", { command: `rm ${join(mem, "link.md")} ${join(outside, "target.md")}` }],
      ["deploy", {}],
      ["shell_exec", { command: "id" }],
      ["read", { path: join(mem, "old.md") }]
    ]
    h.background = (r) => {
      const turn = taskTurn(r)
      if (turn === 0) return calls(...attempts)
      if (turn === 1) {
        // Someone else changes old.md after the task read it: the task's write must be refused as stale.
        writeFileSync(join(mem, "old.md"), topic("Old", "changed by someone else"))
        const later = new Date(Date.now() + 5_000)
        utimesSync(join(mem, "old.md"), later, later)
        return calls(["write", { path: join(mem, "old.md"), content: topic("Old", "overwritten by the task") }])
      }
      return say("Done.")
    }
    await h.prompt("please remember that deploys happen on Fridays")
    await h.prompt("/memory extract")

    const background = h.ofKind("background")
    expect(background).toHaveLength(3)
    const first = background[1]!.messages.filter((m: any) => m.role === "toolResult")
    expect(first).toHaveLength(attempts.length)
    const byIndex = first.map((m: any) => ({ error: m.isError as boolean, text: textOf(m) }))
    // Every attempt but the final read is refused.
    expect(byIndex.slice(0, -1).map((r: { error: boolean }) => r.error)).toEqual(attempts.slice(0, -1).map(() => true))
    expect(byIndex.at(-1)!.error).toBe(false)
    // A fork: the parent's own declarations, including its extension tool, which has no executor here.
    expect(background[0]!.tools).toContain("deploy")
    expect(byIndex[7]!.text).toMatch(/was not read in this task/)
    expect(byIndex[16]!.text).toMatch(/not available in this background memory task/)
    expect(byIndex[17]!.text).toMatch(/not available in this background memory task/)
    const stale = background[2]!.messages.filter((m: any) => m.role === "toolResult").at(-1)
    expect(stale.isError).toBe(true)
    expect(textOf(stale)).toMatch(/changed since it was read/)

    // Nothing outside memory changed; inside, only what was allowed (nothing).
    expect(snapshot(base, skip)).toEqual(before)
    expect(readFileSync(join(outside, "target.md"), "utf8")).toBe("untouched\n")
    expect(existsSync(join(outside, "deployed"))).toBe(false)
    expect(readFileSync(join(mem, "other.md"), "utf8")).toBe(otherBefore)
    expect(readFileSync(join(mem, "old.md"), "utf8")).toBe(topic("Old", "changed by someone else"))
    expect(lstatSync(join(mem, "link.md")).isSymbolicLink()).toBe(true)
    expect(existsSync(join(h.base, "x.md")) || existsSync(join(h.cwd, "..", "x.md"))).toBe(false)
  })
})

describe("codemode in the main session", () => {
  it("gives the task its own codemode over the six tools: a script writes memory and is refused everything else", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-bg-codemode-")))
    const pi = join(import.meta.dirname, "../../node_modules/@earendil-works/pi-coding-agent/dist/index.js")
    const extension = join(base, "codemode-on.mjs")
    writeFileSync(
      extension,
      `import { createCodemodeExtension } from ${JSON.stringify(pi)}
const codemode = createCodemodeExtension()
export default function (pi) {
  codemode(pi)
  pi.on("session_start", () => pi.setActiveTools([...pi.getActiveTools(), "codemode"]))
}
`
    )
    h = await startHarness({ provider: "faux", base, extensions: [extension] })
    const mem = h.memoryDir
    const script = [
      `const refused = []`,
      `try { await tools.bash({ command: ${JSON.stringify(`touch ${join(base, "pwned")}`)} }) } catch (e) { refused.push("bash") }`,
      `try { await tools.write({ path: ${JSON.stringify(join(h.cwd, "evil.md"))}, content: "x" }) } catch (e) { refused.push("write") }`,
      `await tools.write({ path: ${JSON.stringify(join(mem, "from-script.md"))}, content: ${JSON.stringify(topic("Script", "written from a codemode script"))} })`,
      `return refused.join(",")`
    ].join("\n")
    h.background = (r) => (taskTurn(r) === 0 ? calls(["codemode", { code: script }]) : say("Done."))
    await h.prompt("please remember that deploys happen on Fridays")
    await h.prompt("/memory extract")
    const [first, second] = h.ofKind("background")
    expect(first!.tools).toContain("codemode")
    const result = second!.messages.filter((m: any) => m.role === "toolResult").at(-1)
    expect(result.isError).toBe(false)
    expect(textOf(result)).toContain("bash,write")
    expect(readFileSync(join(mem, "from-script.md"), "utf8")).toContain("written from a codemode script")
    expect(existsSync(join(base, "pwned"))).toBe(false)
    expect(existsSync(join(h.cwd, "evil.md"))).toBe(false)
  })
})
