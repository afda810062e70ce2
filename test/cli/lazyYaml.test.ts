/**
 * The YAML frontmatter engine in the built CLI: `dist/frontmatter-yaml.cjs` is loaded only when a header needs it
 * (the strict fast path reads plain `key: value` headers), and what it parses is the same as before it moved out.
 * The loads are observed with Node's module hooks in the child process, not by timing.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { loadedBy, recordLoadsOption } from "../support/moduleLoads.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { tempDir } from "../support/tmp.ts"

const plain = (name: string) => `---\nname: ${name}\ndescription: The ${name} topic\ntype: project\n---\nBody.\n`

describe("pm's YAML frontmatter engine loads on first use", () => {
  let record: string
  beforeAll(() => {
    ensureBuilt()
    record = recordLoadsOption()
  })
  const run = (args: ReadonlyArray<string>) => runPm(args, { env: { NODE_OPTIONS: record } })

  it("is not loaded by a scan of plain headers", async () => {
    const dir = tempDir("pm-yaml-plain-")
    for (const n of ["alpha", "beta", "gamma"]) writeFileSync(join(dir, `${n}.md`), plain(n))
    const r = await run(["scan", "--json", "--memory-dir", dir])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).topics.map((t: { name: string }) => t.name).sort()).toEqual(["alpha", "beta", "gamma"])
    const loaded = loadedBy(r.stderr)
    expect(loaded).toContain("pm-main.js")
    expect(loaded).not.toContain("frontmatter-yaml.cjs")
  })

  it("is loaded for a header the fast path leaves to it, and reads quoted, block and broken YAML as before", async () => {
    const dir = tempDir("pm-yaml-rich-")
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "plain.md"), plain("plain"))
    writeFileSync(join(dir, "quoted.md"), `---\nname: "a # not a comment"\ndescription: |\n  Folded over\n  two lines\ntype: 'feedback'\n---\nBody.\n`)
    writeFileSync(join(dir, "broken.md"), `---\nname: [never closed\ndescription: x\n---\nBody.\n`)
    const r = await run(["scan", "--json", "--memory-dir", dir])
    expect(r.code).toBe(0)
    const byFile = Object.fromEntries(
      (JSON.parse(r.stdout).topics as ReadonlyArray<{ filename: string; name: unknown; description: unknown; type: unknown }>).map((t) => [t.filename, t])
    )
    expect(byFile["quoted.md"]).toMatchObject({ name: "a # not a comment", description: "Folded over\ntwo lines", type: "feedback" })
    expect(byFile["plain.md"]).toMatchObject({ name: "plain", description: "The plain topic", type: "project" })
    expect(byFile["broken.md"]).toMatchObject({ name: null, description: null, type: null })
    expect(loadedBy(r.stderr)).toContain("frontmatter-yaml.cjs")
    const lint = await run(["lint", "--json", "--memory-dir", dir])
    expect(lint.stdout).toMatch(/not valid YAML/)
  })
})
