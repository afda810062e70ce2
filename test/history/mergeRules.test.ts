/**
 * The pure rules of a sync: what each file gets from three trees, MEMORY.md merged by line, and the project's key
 * from its origin remote.
 */
import { describe, expect, it } from "vitest"
import { mergeIndex, mergeIndexBytes } from "../../src/history/indexMerge.ts"
import { branchOfKey, keyOfRemoteUrl, sanitizeKey } from "../../src/history/syncKey.ts"
import { isConflictFile, planMerge } from "../../src/history/treeMerge.ts"

const tree = (o: Record<string, string>) => new Map(Object.entries(o))

describe("planMerge", () => {
  it("takes a change made on one side only, deletions included, and leaves ours alone", () => {
    const base = tree({ "a.md": "1", "b.md": "1", "c.md": "1" })
    const ours = tree({ "a.md": "2", "b.md": "1", "c.md": "1" })
    const theirs = tree({ "a.md": "1", "b.md": "3", "d.md": "4" })
    expect(planMerge(base, ours, theirs, "beta")).toEqual([
      { _tag: "Take", path: "b.md", blob: "3" },
      { _tag: "Delete", path: "c.md" },
      { _tag: "Take", path: "d.md", blob: "4" }
    ])
  })

  it("keeps both versions of a topic changed on both sides, theirs beside ours, numbered when the name is taken", () => {
    const base = tree({ "t.md": "1" })
    const ours = tree({ "t.md": "2", "t.conflict-beta.md": "x" })
    const theirs = tree({ "t.md": "3", "t.conflict-beta.md": "x" })
    expect(planMerge(base, ours, theirs, "beta")).toEqual([{ _tag: "Conflict", path: "t.md", conflictPath: "t.conflict-beta-2.md", blob: "3" }])
    expect(isConflictFile("t.conflict-beta-2.md")).toBe(true)
    expect(isConflictFile("t.md")).toBe(false)
  })

  it("keeps a topic deleted on one side and changed on the other, changed", () => {
    const base = tree({ "t.md": "1" })
    expect(planMerge(base, tree({}), tree({ "t.md": "3" }), "b")).toEqual([{ _tag: "Take", path: "t.md", blob: "3" }])
    expect(planMerge(base, tree({ "t.md": "2" }), tree({}), "b")).toEqual([])
  })

  it("merges MEMORY.md changed on both by line, never as a conflict file", () => {
    const plan = planMerge(tree({ "MEMORY.md": "1" }), tree({ "MEMORY.md": "2" }), tree({ "MEMORY.md": "3" }), "b")
    expect(plan).toEqual([{ _tag: "MergeIndex", path: "MEMORY.md", base: "1", ours: "2", theirs: "3" }])
  })
})

describe("mergeIndex", () => {
  it("over bytes, keeps every line's bytes: CRLF, a BOM and invalid UTF-8 come out as they went in", () => {
    const bytes = (...parts: ReadonlyArray<string | ReadonlyArray<number>>) =>
      new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...Buffer.from(p, "latin1")] : [...p])))
    const bom = [0xef, 0xbb, 0xbf]
    const base = bytes(bom, "- [A](a.md) - caf", [0xe9], "\r\n")
    const ours = bytes(bom, "- [A](a.md) - caf", [0xe9], "\r\n", "- [B](b.md) - ", [0xff, 0xfe], "\r\n")
    const theirs = bytes(bom, "- [A](a.md) - caf", [0xe9], "\r\n", "- [C](c.md) - na", [0xc3, 0xaf], "ve\n")
    expect([...mergeIndexBytes(base, ours, theirs)]).toEqual([
      ...bytes(bom, "- [A](a.md) - caf", [0xe9], "\r\n", "- [B](b.md) - ", [0xff, 0xfe], "\r\n", "- [C](c.md) - na", [0xc3, 0xaf], "ve\n")
    ])
  })

  const line = (f: string, hook = f) => `- [${f}](${f}.md) - ${hook}`
  it("keeps every line either side added, ours first, one line per linked file", () => {
    const base = `${line("a")}\n`
    const ours = `${line("a")}\n${line("b")}\n`
    const theirs = `${line("a")}\n${line("c")}\n${line("b", "their hook")}\n`
    expect(mergeIndex(base, ours, theirs)).toBe(`${line("a")}\n${line("b")}\n${line("c")}\n`)
  })
  it("drops a line either side removed", () => {
    const base = `${line("a")}\n${line("b")}\n`
    expect(mergeIndex(base, `${line("a")}\n`, `${line("a")}\n${line("b")}\n${line("c")}\n`)).toBe(`${line("a")}\n${line("c")}\n`)
    expect(mergeIndex(base, `${line("a")}\n${line("b")}\n${line("d")}\n`, `${line("b")}\n`)).toBe(`${line("b")}\n${line("d")}\n`)
  })
})

describe("the project's key", () => {
  it("is the origin remote without scheme, user, port, .git or case of the host", () => {
    for (const url of ["git@GitHub.com:me/app.git", "https://github.com/me/app", "ssh://git@github.com:22/me/app.git", "https://user@github.com/me/app.git/"]) {
      expect(keyOfRemoteUrl(url), url).toBe("github.com/me/app")
    }
    expect(keyOfRemoteUrl("/srv/git/app.git")).toBe("srv/git/app")
    expect(keyOfRemoteUrl("")).toBeUndefined()
  })
  it("is safe as a branch name", () => {
    expect(sanitizeKey("../my proj/.hidden/x.lock")).toBe("my-proj/hidden/x-lock")
    expect(branchOfKey("shop")).toBe("pm/shop")
  })
})
