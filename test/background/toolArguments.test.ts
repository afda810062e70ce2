/**
 * Bounded, checked background writes over the real task tools (Pi's definitions, the real writer and bash guard):
 * every tool's arguments are checked against its schema before any of its code runs, a write may put at most
 * BACKGROUND_WRITE_MAX_BYTES into one file, and a topic file must carry its header.
 */
import * as Effect from "effect/Effect"
import * as pi from "@earendil-works/pi-coding-agent"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { TOOL_ARGUMENTS } from "../../layers/background/tools/toolArguments.ts"
import { BACKGROUND_WRITE_MAX_BYTES } from "../../src/writes/backgroundWrite.ts"
import { BACKGROUND_READ_MAX_BYTES, RECALL_MAX_BYTES } from "../../src/limits.ts"
import * as JSONSchema from "effect/JSONSchema"
import { exec, setupTaskTools as setup, text } from "../support/taskTools.ts"

const header = (name = "Deploys", description = "when deploys happen", type = "project") =>
  `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  type: ${type}\n---\n`

/** A schema reduced to what a call must satisfy: types, properties, items, what is required. */
const shape = (s: any): unknown => ({
  type: s.type,
  ...(s.properties === undefined ? {} : { properties: Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, shape(v)])) }),
  ...(s.items === undefined ? {} : { items: shape(s.items) }),
  required: [...(s.required ?? [])].sort()
})

describe("argument schemas", () => {
  it("state exactly what Pi's own tools declare (names, types, required), so a Pi upgrade that changes one fails here", () => {
    const defs = {
      read: pi.createReadToolDefinition("/tmp"),
      find: pi.createFindToolDefinition("/tmp"),
      grep: pi.createGrepToolDefinition("/tmp"),
      write: pi.createWriteToolDefinition("/tmp"),
      edit: pi.createEditToolDefinition("/tmp"),
      bash: pi.createBashToolDefinition("/tmp")
    }
    for (const [name, def] of Object.entries(defs)) {
      const ours = JSONSchema.make(TOOL_ARGUMENTS[name as keyof typeof defs] as any)
      expect(shape(ours), name).toEqual(shape(def.parameters))
    }
  })
})

describe("arguments are checked before any tool code runs", () => {
  const spyGuard = () => {
    const classified: Array<unknown> = []
    return {
      classified,
      guard: { classify: (command: string) => Effect.sync(() => (classified.push(command), { verdict: "rejected" as const, reason: "spy" })) } as any
    }
  }

  it.each([
    ["read", { path: 12 }, "path: Expected string, actual 12"],
    ["read", { path: "a.md", offset: "2" }, 'offset: Expected number, actual "2"'],
    ["find", { pattern: ["*.md"] }, "pattern: Expected string"],
    ["grep", { pattern: "x", ignoreCase: "yes" }, 'ignoreCase: Expected boolean, actual "yes"'],
    ["write", { path: "/x.md" }, "content: is required and missing"],
    ["write", { path: 5, content: 6 }, "path: Expected string, actual 5"],
    ["edit", { path: "a.md", edits: [{ oldText: 1, newText: "b" }] }, "edits.0.oldText: Expected string, actual 1"],
    ["edit", { path: "a.md", edits: 5 }, "edits: Expected ReadonlyArray"],
    ["bash", { command: ["rm", "-rf", "/"] }, "command: Expected string"],
    ["bash", {}, "command: is required and missing"]
  ])("%s with %j: an error the model can act on, naming the field", async (name, args, problem) => {
    const { guard, classified } = spyGuard()
    const { tools, memoryDir, changes } = await setup({ guard })
    const before = readFileSync(join(memoryDir, "a.md"), "utf8")
    const result = await exec(tools, name, args)
    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(new RegExp(`^Invalid arguments for ${name}; nothing was run:\\n`))
    expect(text(result)).toContain(problem)
    expect(text(result)).toContain(`Call ${name} again with arguments that match its parameters.`)
    expect(text(result)).not.toMatch(/is not a function|Cannot read prop/)
    // Nothing of the tool ran: no command reached the guard, nothing changed.
    expect(classified).toEqual([])
    expect(changes).toEqual([])
    expect(readFileSync(join(memoryDir, "a.md"), "utf8")).toBe(before)
  })

  it("every field at fault is named at once", async () => {
    const { tools } = await setup()
    const result = await exec(tools, "grep", { pattern: 1, context: "3", limit: true })
    expect(text(result)).toContain("pattern: Expected string")
    expect(text(result)).toContain('context: Expected number, actual "3"')
    expect(text(result)).toContain("limit: Expected number, actual true")
  })

  it("Pi's own repair of edit arguments still applies (edits sent as a JSON string), then the checked call runs", async () => {
    const { tools, memoryDir } = await setup()
    const path = join(memoryDir, "a.md")
    await exec(tools, "read", { path })
    const result = await exec(tools, "edit", { path, edits: JSON.stringify([{ oldText: "alpha body", newText: "beta body" }]) })
    expect(result.isError).not.toBe(true)
    expect(readFileSync(path, "utf8")).toContain("beta body")
  })

  it("codemode's own argument is checked too, and its scripts' calls go through the same checks", async () => {
    const { tools, memoryDir } = await setup({ codemode: { mode: "only", inlineBudget: undefined } })
    const bad = await exec(tools, "codemode", { code: 42 })
    expect(bad.isError).toBe(true)
    expect(text(bad)).toContain("code: Expected string, actual 42")
    const nested = await exec(tools, "codemode", { code: `const r = await tools.write({ path: ${JSON.stringify(join(memoryDir, "n.md"))}, content: 7 }); return r` })
    expect(text(nested)).toContain("Invalid arguments for write")
    expect(existsSync(join(memoryDir, "n.md"))).toBe(false)
  })
})

describe("the size cap on what a background task writes into one file", () => {
  it("lies between the recall window and the background read page", () => {
    expect(BACKGROUND_WRITE_MAX_BYTES).toBe(32_768)
    expect(BACKGROUND_WRITE_MAX_BYTES).toBeGreaterThan(RECALL_MAX_BYTES)
    expect(BACKGROUND_WRITE_MAX_BYTES).toBeLessThan(BACKGROUND_READ_MAX_BYTES)
  })

  const sized = (bytes: number, tail = "") => {
    const head = header()
    return head + "x".repeat(bytes - Buffer.byteLength(head + tail, "utf8")) + tail
  }

  it.each([
    [BACKGROUND_WRITE_MAX_BYTES - 1, true],
    [BACKGROUND_WRITE_MAX_BYTES, true],
    [BACKGROUND_WRITE_MAX_BYTES + 1, false]
  ])("a write of %i bytes lands: %s", async (bytes, lands) => {
    const { tools, memoryDir } = await setup()
    const path = join(memoryDir, "big.md")
    const content = sized(bytes)
    expect(Buffer.byteLength(content)).toBe(bytes)
    const result = await exec(tools, "write", { path, content })
    expect(result.isError === true).toBe(!lands)
    expect(existsSync(path)).toBe(lands)
    if (!lands) expect(text(result)).toContain(`big.md would be ${bytes.toLocaleString("en-US")} bytes; a background task may write at most 32,768 bytes`)
  })

  it("counts UTF-8 bytes, not characters: a three-byte character that crosses the edge is refused", async () => {
    const { tools, memoryDir } = await setup()
    const at = await exec(tools, "write", { path: join(memoryDir, "at.md"), content: sized(BACKGROUND_WRITE_MAX_BYTES, "€") })
    expect(at.isError).not.toBe(true)
    const over = await exec(tools, "write", { path: join(memoryDir, "over.md"), content: sized(BACKGROUND_WRITE_MAX_BYTES + 1, "€") })
    expect(over.isError).toBe(true)
    expect(existsSync(join(memoryDir, "over.md"))).toBe(false)
  })

  it("an edit whose result would pass the cap is refused and the file stays; the index is capped too", async () => {
    const { tools, memoryDir } = await setup()
    const path = join(memoryDir, "a.md")
    const before = readFileSync(path, "utf8")
    await exec(tools, "read", { path })
    const grow = await exec(tools, "edit", { path, edits: [{ oldText: "alpha body", newText: "y".repeat(BACKGROUND_WRITE_MAX_BYTES) }] })
    expect(grow.isError).toBe(true)
    expect(text(grow)).toContain("a background task may write at most 32,768 bytes")
    expect(readFileSync(path, "utf8")).toBe(before)
    const index = join(memoryDir, "MEMORY.md")
    await exec(tools, "read", { path: index })
    expect((await exec(tools, "write", { path: index, content: "- [A](a.md) - a\n".repeat(2_100) })).isError).toBe(true)
    expect((await exec(tools, "write", { path: index, content: "- [A](a.md) - a\n".repeat(2_000) })).isError).not.toBe(true)
  })
})

describe("topic files need their header", () => {
  it.each([
    ["no frontmatter", "just a fact\n", "needs frontmatter"],
    ["no name", "---\ndescription: d\nmetadata:\n  type: user\n---\nbody\n", "needs name"],
    ["no description", "---\nname: n\nmetadata:\n  type: user\n---\nbody\n", "needs description"],
    ["no type", "---\nname: n\ndescription: d\n---\nbody\n", "needs metadata.type"],
    ["an unknown type", "---\nname: n\ndescription: d\nmetadata:\n  type: idea\n---\nbody\n", '"idea" is not user, feedback, project or reference'],
    ["an unreadable header", "---\nname: [unclosed\n---\nbody\n", "needs a readable header"]
  ])("a topic with %s is refused with what to add; nothing is written", async (_what, content, problem) => {
    const { tools, memoryDir } = await setup()
    const result = await exec(tools, "write", { path: join(memoryDir, "t.md"), content })
    expect(result.isError).toBe(true)
    expect(text(result)).toContain(problem)
    expect(text(result)).toContain("metadata:\n  type: project")
    expect(existsSync(join(memoryDir, "t.md"))).toBe(false)
  })

  it("accepts the full header and a top-level type; MEMORY.md at the top needs none, one in a folder is a topic", async () => {
    const { tools, memoryDir } = await setup()
    expect((await exec(tools, "write", { path: join(memoryDir, "t.md"), content: `${header()}body\n` })).isError).not.toBe(true)
    expect((await exec(tools, "write", { path: join(memoryDir, "u.md"), content: "---\nname: u\ndescription: d\ntype: user\n---\nbody\n" })).isError).not.toBe(true)
    const index = join(memoryDir, "MEMORY.md")
    await exec(tools, "read", { path: index })
    expect((await exec(tools, "write", { path: index, content: "- [T](t.md) - t\n" })).isError).not.toBe(true)
    const nested = await exec(tools, "write", { path: join(memoryDir, "notes", "MEMORY.md"), content: "- x\n" })
    expect(nested.isError).toBe(true)
    expect(text(nested)).toContain("notes/MEMORY.md is a topic file and needs frontmatter")
  })

  it("an edit that removes the header is refused and the file stays", async () => {
    const { tools, memoryDir } = await setup()
    const path = join(memoryDir, "a.md")
    writeFileSync(path, `${header()}alpha body\n`)
    const before = readFileSync(path, "utf8")
    await exec(tools, "read", { path })
    const result = await exec(tools, "edit", { path, edits: [{ oldText: header(), newText: "" }] })
    expect(result.isError).toBe(true)
    expect(readFileSync(path, "utf8")).toBe(before)
  })
})
