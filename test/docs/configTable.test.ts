/**
 * docs/configuration.md against the code: its `config.json` table lists exactly the keys the decoders take, its
 * lint table exactly the lint codes, and its doctor paragraph every code `pm doctor` can report.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { configKeys } from "../../src/project/configKeys.ts"
import { LINT_CODES } from "../../src/memory/lint.ts"

const root = join(import.meta.dirname, "..", "..")
const doc = readFileSync(join(root, "docs", "configuration.md"), "utf8")

/** The first cell (a backticked name) of each row of the table under `heading`. */
const firstColumn = (heading: string): ReadonlyArray<string> => {
  const at = doc.indexOf(`\n${heading}\n`)
  expect(at, heading).toBeGreaterThanOrEqual(0)
  const rest = doc.slice(at + heading.length + 2)
  const next = rest.search(/\n#{2,3} /)
  const section = next < 0 ? rest : rest.slice(0, next)
  return section
    .split("\n")
    .filter((l) => l.startsWith("| `"))
    .map((l) => /^\| `([^`]+)`/.exec(l)![1]!)
}

describe("docs/configuration.md", () => {
  it("the config.json table lists every key the decoders take, and no other, each once", () => {
    const documented = firstColumn("## `config.json`")
    expect(new Set(documented).size).toBe(documented.length)
    expect([...documented].sort()).toEqual([...configKeys()].sort())
  })

  it("the lint table lists every lint code", () => {
    expect([...firstColumn("## Lint codes")].sort()).toEqual([...LINT_CODES].sort())
  })

  it("the doctor paragraph names every code pm doctor reports", () => {
    const cli = readdirSync(join(root, "cli")).filter((f) => f.endsWith(".ts")).map((f) => readFileSync(join(root, "cli", f), "utf8")).join("\n")
    const codes = new Set([...cli.matchAll(/code: "([a-z-]+)"/g)].map((m) => m[1]!))
    for (const c of ["model-unknown", "model-unchecked"]) codes.add(c)
    const paragraph = doc.slice(doc.indexOf("## `pm doctor` codes"))
    for (const code of codes) expect(paragraph, code).toContain(`\`${code}\``)
  })
})
