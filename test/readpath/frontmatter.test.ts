import { describe, expect, it } from "vitest"
import { parseFrontmatter } from "../../src/memory/frontmatter.ts"

const g = globalThis as { __pmEvaluated?: number }

describe("parseFrontmatter", () => {
  it("reads name, description and metadata.type", () => {
    const fm = parseFrontmatter("---\nname: Build\ndescription: How we build\nmetadata:\n  type: project\n---\nBody\n")
    expect(fm).toMatchObject({ name: "Build", description: "How we build", type: "project", problem: undefined, hasFrontmatter: true })
    expect(fm.body).toBe("Body\n")
  })

  it("handles CRLF line endings", () => {
    const fm = parseFrontmatter("---\r\nname: Build\r\ndescription: How we build\r\nmetadata:\r\n  type: user\r\n---\r\nBody\r\n")
    expect(fm).toMatchObject({ name: "Build", description: "How we build", type: "user", problem: undefined })
  })

  it("handles a leading BOM", () => {
    const fm = parseFrontmatter("\uFEFF---\nname: Build\ndescription: d\n---\nBody")
    expect(fm).toMatchObject({ name: "Build", description: "d", hasFrontmatter: true, problem: undefined })
  })

  it("reports an unclosed fence without throwing", () => {
    const fm = parseFrontmatter("---\nname: Build\ndescription: d\nno end here\n")
    expect(fm.problem).toMatch(/not closed/)
    expect(fm.name).toBeUndefined()
    expect(fm.hasFrontmatter).toBe(true)
  })

  it("reports a scalar or a list instead of a mapping", () => {
    expect(parseFrontmatter("---\njust a string\n---\nbody").problem).toMatch(/not a mapping/)
    expect(parseFrontmatter("---\n- a\n- b\n---\nbody").problem).toMatch(/not a mapping/)
    expect(parseFrontmatter("---\n42\n---\nbody").problem).toMatch(/not a mapping/)
  })

  it("reports duplicate keys as invalid YAML", () => {
    const fm = parseFrontmatter("---\nname: a\nname: b\ndescription: d\n---\nbody")
    expect(fm.problem).toMatch(/not valid YAML/)
    expect(fm.name).toBeUndefined()
  })

  it("reports broken YAML without throwing", () => {
    expect(parseFrontmatter("---\nname: [unclosed\n---\n").problem).toMatch(/not valid YAML/)
    expect(parseFrontmatter("---\n\tname: x\n  - : :\n---\n").problem).toBeDefined()
  })

  it("treats an empty header as no fields and no problem", () => {
    expect(parseFrontmatter("---\n---\nbody")).toMatchObject({ hasFrontmatter: true, problem: undefined, name: undefined })
  })

  it("never evaluates ---js or ---javascript headers", () => {
    delete g.__pmEvaluated
    for (const lang of ["js", "javascript", "JS", "js ", "coffee"]) {
      const fm = parseFrontmatter(`---${lang}\n({ name: (globalThis.__pmEvaluated = 1, "x") })\n---\nbody`)
      expect(fm.name).toBeUndefined()
      expect(fm.problem).toMatch(/other than YAML/)
    }
    // A space before the language is not a fence at all.
    expect(parseFrontmatter("--- js\n({ name: (globalThis.__pmEvaluated = 1, 'x') })\n---\n").name).toBeUndefined()
    expect(g.__pmEvaluated).toBeUndefined()
  })

  it("moves top-level type and modified into metadata", () => {
    const fm = parseFrontmatter("---\nname: n\ndescription: d\ntype: feedback\nmodified: 2024-03-04\n---\n")
    expect(fm.type).toBe("feedback")
    expect(fm.modified).toBe("2024-03-04")
  })

  it("lets an explicit metadata.type and metadata.modified win over top-level ones", () => {
    const fm = parseFrontmatter("---\ntype: user\nmodified: 2020-01-01\nmetadata:\n  type: reference\n  modified: 2024-05-06T07:08:09Z\n---\n")
    expect(fm.type).toBe("reference")
    expect(fm.modified).toBe("2024-05-06T07:08:09Z")
  })

  it("keeps dates as strings, exactly as written", () => {
    const fm = parseFrontmatter("---\nname: 2024-01-02\ndescription: 2024-01-02T03:04:05Z\nmodified: 2024-01-02\n---\n")
    expect(fm.name).toBe("2024-01-02")
    expect(fm.description).toBe("2024-01-02T03:04:05Z")
    expect(typeof fm.modified).toBe("string")
    expect(fm.modified).toBe("2024-01-02")
  })

  it("drops an invalid modified so callers fall back to the file mtime", () => {
    for (const bad of ["yesterday", "not a date", "''", "2024-13-45", "12", "1", "true", "[2024]"]) {
      const fm = parseFrontmatter(`---\nname: n\nmodified: ${bad}\n---\n`)
      expect(fm.modified, bad).toBeUndefined()
    }
    for (const good of ["2024-05-06", "2024-05-06T07:08:09Z", "2024-05-06 07:08", "2024-05-06T07:08:09.123+02:00"]) {
      expect(parseFrontmatter(`---\nmodified: ${good}\n---\n`).modified, good).toBe(good)
    }
  })

  it("reports an unknown type and accepts known types in any case", () => {
    expect(parseFrontmatter("---\ntype: idea\n---\n")).toMatchObject({ type: undefined, unknownType: "idea" })
    expect(parseFrontmatter("---\ntype: Project\n---\n")).toMatchObject({ type: "project", unknownType: undefined })
  })

  it("shares no state between calls with the same content", () => {
    const source = "---\nname: same\n---\nbody"
    const a = parseFrontmatter(source)
    const b = parseFrontmatter(source)
    expect(a).toEqual(b)
    expect(parseFrontmatter("---\nname: other\n---\nbody").name).toBe("other")
  })

  it("treats a file without a fence as having no frontmatter", () => {
    expect(parseFrontmatter("# Title\n\ntext")).toMatchObject({ hasFrontmatter: false, problem: undefined })
    expect(parseFrontmatter("")).toMatchObject({ hasFrontmatter: false, problem: undefined })
  })
})
