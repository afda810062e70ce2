/**
 * The strict fast path for plain `key: value` headers must read every header exactly as the YAML engine does
 * (same fields, same problem, same body), and hand everything else to the engine. Headers are generated from a
 * seeded grammar that leans on the edges: indicators, quotes, ` #`, `: `, numbers, booleans, nulls, duplicate keys,
 * nesting, blank lines, controls, fences with trailing text.
 */
import { describe, expect, it } from "vitest"
import { parseFrontmatter, parseFrontmatterWithYaml, takesFastPath } from "../../src/memory/frontmatter.ts"

/** mulberry32: a small seeded generator, so a failure names a reproducible case. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const KEYS = ["name", "description", "type", "modified", "metadata", "title", "x-y", "_k", "null", "true", "2", "Name"]
const PIECES = [
  "deploy notes", "use pnpm", "a", "3 ways", "v1.2.3", "2024-01-01", "2024-01-01T10:00:00Z", "user", "feedback",
  "project", "Reference", "12", "1e3", "0x1F", "0o17", ".5", "+1", "-1", ".inf", ".NaN", "~", "null", "true", "False",
  "yes", "on", "é è ü", "日本語", "emoji 😀", "a: b", "a:b", "a #b", "a#b", "#x", "'q'", "\"q\"", "[x]", "{x}", "x, y",
  "&a", "*a", "!t", "|", ">", "%p", "@at", "`bt`", "? q", "- item", ": c", "trail ", "tab\there", "ctl\u0001", "nbsp\u00a0x",
  "ls\u2028x", "bom\ufeff", "back\\slash", "per%cent", "x:", "a - b", "<<", "=", "q'uote", "d\"q"
]

const pick = <T>(r: () => number, items: ReadonlyArray<T>): T => items[Math.floor(r() * items.length)]!

const PLAIN_KEYS = ["name", "description", "type", "modified", "metadata", "title", "x-y", "_k"]
const PLAIN = ["deploy notes", "use pnpm", "a", "3 ways", "v1.2.3", "2024-01-01", "user", "project", "é", "日本語", "x, y", "a#b"]

let pieces: ReadonlyArray<string> = PIECES
const value = (r: () => number): string => {
  const n = 1 + Math.floor(r() * 3)
  return Array.from({ length: n }, () => pick(r, pieces)).join(r() < 0.7 ? " " : "")
}

const header = (r: () => number): string => {
  // Half the headers draw values only from plain pieces, so the fast path is exercised as much as the fallback.
  const plain = r() < 0.5
  pieces = plain ? PLAIN : PIECES
  const keys = plain ? PLAIN_KEYS : KEYS
  const lines: Array<string> = []
  const count = Math.floor(r() * 6)
  for (let i = 0; i < count; i++) {
    const roll = plain ? r() * 0.8 : r()
    const key = pick(r, keys)
    if (roll < 0.6) lines.push(`${key}: ${value(r)}`)
    else if (roll < 0.75) {
      lines.push(`metadata:`)
      const indent = plain ? "  " : pick(r, ["  ", "  ", "    ", "\t", " "])
      const children = Math.floor(r() * 3)
      for (let j = 0; j < children; j++) lines.push(`${plain || r() < 0.9 ? indent : "   "}${pick(r, keys)}: ${value(r)}`)
    } else if (roll < 0.8) lines.push("")
    else if (roll < 0.85) lines.push(`# comment ${value(r)}`)
    else if (roll < 0.9) lines.push(`  continued ${value(r)}`)
    else if (roll < 0.95) lines.push(`${key}:`)
    else lines.push(`${key}:${value(r)}`)
  }
  const opener = pick(r, ["---", "---", "---", "---  "])
  const closer = pick(r, ["---", "---", "---", "--- ", "----", "---x"])
  const body = pick(r, ["", "Body.\n", "\nBody after a blank line.\n", "text\n---\nmore\n"])
  return `${opener}\n${lines.join("\n")}${lines.length > 0 ? "\n" : ""}${closer}\n${body}`
}

describe("frontmatter fast path", () => {
  it("agrees with the YAML engine on 4,000 generated headers, at least 600 of them read by the fast path", () => {
    const r = prng(20261130)
    let fast = 0
    for (let i = 0; i < 4_000; i++) {
      const source = header(r)
      expect(parseFrontmatter(source), JSON.stringify(source)).toEqual(parseFrontmatterWithYaml(source))
      if (takesFastPath(source)) fast++
    }
    expect(fast).toBeGreaterThanOrEqual(600)
  })

  it("takes the fast path for a plain header and leaves quoted, commented or folded ones to the engine", () => {
    expect(takesFastPath("---\nname: Deploy\ndescription: how we ship\nmetadata:\n  type: project\n---\nBody\n")).toBe(true)
    expect(takesFastPath("---\nname: \"Deploy\"\n---\n")).toBe(false)
    expect(takesFastPath("---\nname: Deploy # note\n---\n")).toBe(false)
    expect(takesFastPath("---\ndescription: >\n  folded\n---\n")).toBe(false)
    expect(takesFastPath("---\nname: 12\n---\n")).toBe(false)
  })

  it("agrees on the headers topic files really have", () => {
    const samples = [
      "---\nname: Deploy notes\ndescription: how we ship to staging\nmetadata:\n  type: project\n---\n\nBody\n",
      "---\nname: testing\ndescription: use vitest, never jest\ntype: feedback\nmodified: 2026-11-01\n---\nBody\n",
      "---\nname: \"quoted\"\ndescription: 'single'\nmetadata:\n  type: user\n---\n",
      "---\nname: a\ndescription: cut #short\n---\n",
      "---\nname: a\ndescription: >\n  folded\n  text\n---\n",
      "---\n---\nonly body\n",
      "---\n\n---\n",
      "---\nname: dup\nname: dup\n---\n"
    ]
    for (const source of samples) expect(parseFrontmatter(source)).toEqual(parseFrontmatterWithYaml(source))
  })
})
