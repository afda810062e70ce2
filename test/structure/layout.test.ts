/**
 * The shape of the source tree, as docs/architecture.md states it: imports point one way (cli/ and extension/ ->
 * layers/ -> src/), src/ does no I/O through a service, and no file reaches itself through its imports, static or
 * dynamic, type-only or not (a circle makes the load order and the reading order depend on who is imported first).
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const TOPS = ["src", "layers", "cli", "extension"] as const

const walk = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? walk(path) : name.endsWith(".ts") ? [path] : []
  })

const sources = TOPS.flatMap((top) => walk(join(repoRoot, top))).map((path) => relative(repoRoot, path))

/** Every relative module a file names: `import … from`, `export … from`, `import "…"` and `import("…")`. */
const importsOf = (file: string): Array<string> => {
  const text = readFileSync(join(repoRoot, file), "utf8")
  const found = new Set<string>()
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm))
    found.add(relative(repoRoot, resolve(join(repoRoot, dirname(file)), match[1]!)))
  return [...found]
}

const graph = new Map(sources.map((file) => [file, importsOf(file)]))
const topOf = (file: string): string => file.split("/")[0]!

describe("the source tree", () => {
  it("reads every source file and finds what each imports", () => {
    expect(sources.length).toBeGreaterThan(100)
    for (const [file, imports] of graph) for (const target of imports) expect(graph.has(target), `${file} imports ${target}, which is not a source file`).toBe(true)
  })

  it("every source file holds one idea: at most 350 lines, opening with a comment that states its contract", () => {
    const long = sources.filter((file) => readFileSync(join(repoRoot, file), "utf8").split("\n").length > 351)
    expect(long).toEqual([])
    const silent = sources.filter((file) => !/^(\/\*\*|\/\/)/.test(readFileSync(join(repoRoot, file), "utf8")))
    expect(silent).toEqual([])
  })

  it("imports point one way: cli/ and extension/ -> layers/ -> src/", () => {
    const allowed: Record<string, ReadonlyArray<string>> = {
      src: ["src"],
      layers: ["layers", "src"],
      cli: ["cli", "layers", "src"],
      extension: ["extension", "layers", "src"]
    }
    const wrong = [...graph].flatMap(([file, imports]) => imports.filter((target) => !allowed[topOf(file)]!.includes(topOf(target))).map((target) => `${file} -> ${target}`))
    expect(wrong).toEqual([])
  })

  it("no file reaches itself through its imports", () => {
    const circles: Array<string> = []
    const state = new Map<string, "open" | "done">()
    const path: Array<string> = []
    const visit = (file: string): void => {
      state.set(file, "open")
      path.push(file)
      for (const target of graph.get(file) ?? []) {
        if (state.get(target) === "open") circles.push([...path.slice(path.indexOf(target)), target].join(" -> "))
        else if (!state.has(target)) visit(target)
      }
      path.pop()
      state.set(file, "done")
    }
    for (const file of graph.keys()) if (!state.has(file)) visit(file)
    expect(circles).toEqual([])
  })

  it("no circle crosses a folder: the feature folders of src/ and of layers/ depend on each other one way", () => {
    const folderOf = (file: string): string | undefined => {
      const parts = file.split("/")
      return (parts[0] === "src" || parts[0] === "layers") && parts.length > 2 ? `${parts[0]}/${parts[1]}` : undefined
    }
    const edges = new Map<string, Set<string>>()
    for (const [file, imports] of graph) {
      const from = folderOf(file)
      if (from === undefined) continue
      for (const target of imports) {
        const to = folderOf(target)
        if (to !== undefined && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to))
      }
    }
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      [...(edges.get(from) ?? [])].some((next) => next === to || (!seen.has(next) && (seen.add(next), reaches(next, to, seen))))
    const both = [...edges].flatMap(([from, tos]) => [...tos].filter((to) => reaches(to, from)).map((to) => `${from} <-> ${to}`))
    expect(both).toEqual([])
  })
})
