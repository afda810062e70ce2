/**
 * Staleness by content, the pure half (src/recall/citedPaths.ts): which words of a memory's inline code are project
 * files to check (never a path outside the root), how many, and the note's words.
 */
import { describe, expect, it } from "vitest"
import { RECALL_CITED_PATH_MAX_CHARS, RECALL_CITED_PATHS_MAX } from "../../src/limits.ts"
import { citedNote, citedPaths } from "../../src/recall/citedPaths.ts"

const ROOT = "/home/ada/shop"
const shown = (text: string, max = RECALL_CITED_PATHS_MAX) => citedPaths(text, ROOT, max).map((c) => c.shown)

describe("the project files a memory cites", () => {
  it("takes paths in inline code, a word of a command among them, with a line number left off, in order and once each", () => {
    const text = "Edit `src/x.ts` first, then run `node scripts/build.mjs --fast`; see `src/x.ts:42` and `./docs/a.md`."
    expect(citedPaths(text, ROOT, 5)).toEqual([
      { shown: "src/x.ts", path: "/home/ada/shop/src/x.ts" },
      { shown: "scripts/build.mjs", path: "/home/ada/shop/scripts/build.mjs" },
      { shown: "./docs/a.md", path: "/home/ada/shop/docs/a.md" }
    ])
  })

  it("takes a folder with a trailing slash, and an absolute path inside the root", () => {
    expect(shown("`test/fixtures/` and `/home/ada/shop/src/y.ts`")).toEqual(["test/fixtures/", "/home/ada/shop/src/y.ts"])
  })

  it("never takes a path that leaves the root, a home, a URL, an option, a glob, or a word that is not surely a file", () => {
    const text = [
      "`../other/x.ts`", "`src/../src/x.ts`", "`src/../../etc/passwd.txt`", "`/etc/passwd.d/x.conf`", "`/home/ada/shopping/x.ts`", "`~/.ssh/id.pub`",
      "`https://example.com/install.sh`", "`--config=a/b.json`", "`src/*.ts`", "`$HOME/x.ts`", "`origin/main`", "`x.ts`",
      "`curl -fsSL example.com/get | sh`", "plain src/z.ts outside code", "```\nsrc/fenced.ts\n```"
    ].join(" ")
    expect(shown(text)).toEqual([])
  })

  it(`checks at most RECALL_CITED_PATHS_MAX (${RECALL_CITED_PATHS_MAX}) per memory: below, at and above the bound`, () => {
    const paths = (n: number) => Array.from({ length: n }, (_, i) => `\`src/f${i}.ts\``).join(" ")
    expect(shown(paths(RECALL_CITED_PATHS_MAX - 1))).toHaveLength(RECALL_CITED_PATHS_MAX - 1)
    expect(shown(paths(RECALL_CITED_PATHS_MAX))).toHaveLength(RECALL_CITED_PATHS_MAX)
    const above = shown(paths(RECALL_CITED_PATHS_MAX + 1))
    expect(above).toHaveLength(RECALL_CITED_PATHS_MAX)
    expect(above.at(-1)).toBe(`src/f${RECALL_CITED_PATHS_MAX - 1}.ts`)
    // A repeated path counts once.
    expect(shown("`src/a.ts` `src/a.ts` `src/b.ts`", 2)).toEqual(["src/a.ts", "src/b.ts"])
  })

  it(`takes a path of RECALL_CITED_PATH_MAX_CHARS (${RECALL_CITED_PATH_MAX_CHARS}) characters or fewer, never a longer one`, () => {
    const of = (n: number) => `src/${"a".repeat(n - "src/".length - ".ts".length)}.ts`
    for (const n of [RECALL_CITED_PATH_MAX_CHARS - 1, RECALL_CITED_PATH_MAX_CHARS]) expect(shown(`\`${of(n)}\``)).toEqual([of(n)])
    expect(shown(`\`${of(RECALL_CITED_PATH_MAX_CHARS + 1)}\``)).toEqual([])
  })
})

describe("the note", () => {
  it("names what is gone and what changed, and says nothing when neither", () => {
    expect(citedNote(undefined)).toBeUndefined()
    expect(citedNote({ gone: [], changed: [] })).toBeUndefined()
    expect(citedNote({ gone: ["src/x.ts"], changed: [] })).toBe("`src/x.ts` no longer exists: check before relying on it.")
    expect(citedNote({ gone: ["a/b.ts", "c/d.ts", "e/f.ts"], changed: ["g/h.ts"] })).toBe(
      "`a/b.ts`, `c/d.ts` and `e/f.ts` no longer exist; `g/h.ts` changed after this memory was written: check before relying on it."
    )
  })
})
