/** Read baselines, edit recovery, publishing and lint, on real files in one process. */
import { Effect } from "effect"
import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { TaskInvalid } from "../../layers/writes/writeErrors.ts"
import { applyEdits, baselineAction, judgeWrite, makeBaseline } from "../../src/writes/readBaseline.ts"
import { sandbox, temps, withTask } from "./support.ts"

const TOPIC = "---\nname: a\ndescription: about a\nmetadata:\n  type: project\n---\nalpha beta gamma\n"
const full = { kind: "text", truncated: false } as const

/** Moves a file's mtime `ms` into the future, so the floored mtime is later than any baseline taken now. */
const touchLater = (path: string, ms = 5_000) => {
  const t = (statSync(path).mtimeMs + ms) / 1000
  utimesSync(path, t, t)
}

describe("baseline rules (pure)", () => {
  it("full reads record content, pages record time, truncated and image reads clear", () => {
    expect(baselineAction(full)).toBe("full")
    expect(baselineAction({ kind: "text", offset: 1, limit: 10, truncated: false })).toBe("page")
    expect(baselineAction({ kind: "text", offset: 1, limit: 10, truncated: true })).toBe("clear")
    expect(baselineAction({ kind: "text", truncated: true })).toBe("clear")
    expect(baselineAction({ kind: "image" })).toBe("clear")
  })
  it("judgeWrite compares floored mtimes, and the bytes' hash only when the mtime moved", () => {
    const bytes = (s: string) => new TextEncoder().encode(s)
    const b = makeBaseline(full, 1_000, bytes("x"))!
    expect(judgeWrite(undefined, 1_000, () => bytes("x"))).toBe("missing")
    expect(judgeWrite(b, 1_000.9, () => bytes("changed"))).toBe("ok") // floor(1000.9) = 1000: not later
    expect(judgeWrite(b, 1_001, () => bytes("x"))).toBe("ok")
    expect(judgeWrite(b, 1_001, () => bytes("changed"))).toBe("stale")
    expect(judgeWrite({ mtimeMs: 1_000, sha256: undefined }, 1_001, () => bytes("x"))).toBe("stale")
    expect(judgeWrite({ mtimeMs: 1_000, sha256: undefined }, 999, () => bytes("x"))).toBe("ok")
  })
  it("judgeWrite tells apart files that differ only in bytes that are not UTF-8 (they decode to the same text)", () => {
    const one = Uint8Array.of(0x61, 0xff, 0x0a)
    const other = Uint8Array.of(0x61, 0xfe, 0x0a)
    expect(new TextDecoder().decode(one)).toBe(new TextDecoder().decode(other))
    const b = makeBaseline(full, 1_000, one)!
    expect(judgeWrite(b, 1_001, () => one)).toBe("ok")
    expect(judgeWrite(b, 1_001, () => other)).toBe("stale")
  })
  it("applyEdits: exactly once, no overlap, something changes", () => {
    expect(applyEdits("a b c", [{ oldText: "b", newText: "B" }, { oldText: "c", newText: "C" }]))
      .toEqual({ _tag: "Applied", content: "a B C" })
    expect(applyEdits("a b b", [{ oldText: "b", newText: "B" }])).toMatchObject({ reason: "ambiguous" })
    expect(applyEdits("a b", [{ oldText: "z", newText: "B" }])).toMatchObject({ reason: "not-found" })
    expect(applyEdits("a b", [{ oldText: "", newText: "B" }])).toMatchObject({ reason: "empty" })
    expect(applyEdits("abc", [{ oldText: "ab", newText: "x" }, { oldText: "bc", newText: "y" }]))
      .toMatchObject({ reason: "overlap", index: 1 })
    expect(applyEdits("abc", [{ oldText: "b", newText: "b" }])).toMatchObject({ reason: "no-change" })
    expect(applyEdits("aaa", [{ oldText: "aa", newText: "x" }])).toMatchObject({ reason: "ambiguous" })
  })
})

describe("MemoryWriter baselines", () => {
  it("a new file needs no baseline; an existing one needs a read in this task", async () => {
    using s = sandbox()
    await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) =>
      Effect.gen(function*() {
        const created = yield* t.write("a.md", TOPIC)
        expect(created).toMatchObject({ created: true, recovered: false, findings: [] })
        // Our own write is the baseline for the next change.
        yield* t.write("a.md", TOPIC + "more\n")
      }))
    writeFileSync(join(s.memory, "b.md"), TOPIC)
    const error = await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) => Effect.flip(t.write("b.md", "x")))
    expect(error).toMatchObject({ _tag: "BaselineMissing" })
    expect(error.message).toMatch(/Read it first/)
    // Another task's read does not count.
    await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) => t.recordRead("b.md", full))
    expect(await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) => Effect.flip(t.write("b.md", "x"))))
      .toMatchObject({ _tag: "BaselineMissing" })
  })

  it("truncated and image reads clear the baseline; a later full read restores it", async () => {
    using s = sandbox()
    writeFileSync(join(s.memory, "a.md"), TOPIC)
    await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) =>
      Effect.gen(function*() {
        yield* t.recordRead("a.md", full)
        yield* t.recordRead("a.md", { kind: "text", truncated: true })
        expect(yield* Effect.flip(t.write("a.md", "x"))).toMatchObject({ _tag: "BaselineMissing" })
        yield* t.recordRead("a.md", full)
        yield* t.recordRead("a.md", { kind: "image" })
        expect(yield* Effect.flip(t.write("a.md", "x"))).toMatchObject({ _tag: "BaselineMissing" })
        yield* t.recordRead("a.md", { kind: "text", offset: 1, limit: 5, truncated: false })
        yield* t.write("a.md", TOPIC)
      }))
  })

  it("write: a later mtime with different content asks for a re-read; same content passes", async () => {
    using s = sandbox()
    const file = join(s.memory, "a.md")
    writeFileSync(file, TOPIC)
    await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) =>
      Effect.gen(function*() {
        yield* t.recordRead(file, full)
        touchLater(file) // touched, same content
        yield* t.write(file, TOPIC + "1\n")
        writeFileSync(file, "someone else\n")
        touchLater(file)
        const stale = yield* Effect.flip(t.write(file, TOPIC + "2\n"))
        expect(stale).toMatchObject({ _tag: "StaleBaseline", reason: "modified" })
        expect(stale.message).toMatch(/Read it again/)
        expect(readFileSync(file, "utf8")).toBe("someone else\n")
        yield* t.recordRead(file, full)
        yield* t.write(file, TOPIC + "3\n")
      }))
    expect(readFileSync(file, "utf8")).toBe(TOPIC + "3\n")
  })

  it("write after a page read: any later mtime is stale (a page cannot vouch for the rest)", async () => {
    using s = sandbox()
    const file = join(s.memory, "a.md")
    writeFileSync(file, TOPIC)
    await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) =>
      Effect.gen(function*() {
        yield* t.recordRead(file, { kind: "text", offset: 1, limit: 3, truncated: false })
        touchLater(file)
        expect(yield* Effect.flip(t.write(file, "x"))).toMatchObject({ _tag: "StaleBaseline" })
      }))
  })

  it("the snapshot the read tool saw is what counts", async () => {
    using s = sandbox()
    const file = join(s.memory, "a.md")
    writeFileSync(file, "current\n")
    const mtimeMs = statSync(file).mtimeMs
    await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) =>
      Effect.gen(function*() {
        // The tool saw an older version with an older mtime: the file changed after that read.
        yield* t.recordRead(file, full, { bytes: new TextEncoder().encode("older\n"), mtimeMs: mtimeMs - 10_000 })
        expect(yield* Effect.flip(t.write(file, "x"))).toMatchObject({ _tag: "StaleBaseline" })
      }))
  })

  it("edit recovers when every oldText still matches exactly once, and asks for a re-read otherwise", async () => {
    using s = sandbox()
    const file = join(s.memory, "a.md")
    writeFileSync(file, TOPIC)
    await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) =>
      Effect.gen(function*() {
        yield* t.recordRead(file, full)
        writeFileSync(file, TOPIC + "added by someone\n")
        touchLater(file)
        const recovered = yield* t.edit(file, [{ oldText: "beta", newText: "BETA" }])
        expect(recovered.recovered).toBe(true)
        expect(readFileSync(file, "utf8")).toBe(TOPIC.replace("beta", "BETA") + "added by someone\n")

        writeFileSync(file, "gamma gamma\n")
        touchLater(file, 10_000)
        const stale = yield* Effect.flip(t.edit(file, [{ oldText: "gamma", newText: "G" }]))
        expect(stale).toMatchObject({ _tag: "StaleBaseline" })
        yield* t.recordRead(file, full)
        const ambiguous = yield* Effect.flip(t.edit(file, [{ oldText: "gamma", newText: "G" }]))
        expect(ambiguous).toMatchObject({ _tag: "EditFailed", reason: "ambiguous" })
        expect(ambiguous.message).toMatch(/more than once/)
        const ok = yield* t.edit(file, [{ oldText: "gamma gamma", newText: "g" }])
        expect(ok.recovered).toBe(false)
      }))
  })

  it("edit needs an existing file and a baseline", async () => {
    using s = sandbox()
    writeFileSync(join(s.memory, "a.md"), TOPIC)
    await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) =>
      Effect.gen(function*() {
        expect(yield* Effect.flip(t.edit("nope.md", [{ oldText: "a", newText: "b" }]))).toMatchObject({ _tag: "FileMissing" })
        expect(yield* Effect.flip(t.edit("a.md", [{ oldText: "alpha", newText: "b" }]))).toMatchObject({
          _tag: "BaselineMissing"
        })
      }))
  })

  it("a failing task check stops the publish: nothing changes, no temp file", async () => {
    using s = sandbox()
    writeFileSync(join(s.memory, "a.md"), TOPIC)
    const check = Effect.fail(new TaskInvalid({ reason: "trust revoked" }))
    await withTask({ memoryDir: s.memory, cwd: s.memory, check }, (t) =>
      Effect.gen(function*() {
        yield* t.recordRead("a.md", full)
        expect(yield* Effect.flip(t.write("a.md", "x"))).toMatchObject({ _tag: "TaskInvalid" })
        expect(yield* Effect.flip(t.write("new.md", "x"))).toMatchObject({ _tag: "TaskInvalid" })
        expect(yield* Effect.flip(t.remove(join(s.memory, "a.md")))).toMatchObject({ _tag: "TaskInvalid" })
      }))
    expect(readFileSync(join(s.memory, "a.md"), "utf8")).toBe(TOPIC)
    expect(temps(s.root)).toEqual([])
  })

  it("lint findings come back with the result", async () => {
    using s = sandbox()
    const result = await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) => t.write("plain-2.md", "no frontmatter\n"))
    expect(result.findings.map((f) => f.code)).toEqual(expect.arrayContaining(["frontmatter-missing"]))
    const index = await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) => t.write("MEMORY.md", "not a link\n"))
    expect(index.findings.map((f) => f.code)).toContain("index-line-not-link")
  })

  it("writes to one file queue up in the process; none is lost or torn", async () => {
    using s = sandbox()
    const file = join(s.memory, "a.md")
    const contents = Array.from({ length: 20 }, (_, i) => `${TOPIC}${String(i).repeat(5_000)}\n`)
    const results = await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) =>
      Effect.all(contents.map((c) => t.write(file, c)), { concurrency: "unbounded" }))
    expect(results.filter((r) => r.created)).toHaveLength(1)
    expect(contents).toContain(readFileSync(file, "utf8"))
    expect(temps(s.root)).toEqual([])
  })

  it("new files may create plain subdirectories inside memory", async () => {
    using s = sandbox()
    const result = await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) => t.write("team/notes.md", TOPIC))
    expect(result).toMatchObject({ path: join(s.memory, "team", "notes.md"), created: true })
  })
})

describe("the baseline after a write is the file this write published", () => {
  const external = "---\nname: a\ndescription: someone else\nmetadata:\n  type: project\n---\nexternal\n"
  const mine = "---\nname: a\ndescription: mine\nmetadata:\n  type: project\n---\nmine\n"

  for (const kind of ["replace", "create"] as const) {
    it(`${kind}: an external write right after publishing is not taken for our own; the next write is stale`, async () => {
      using s = sandbox()
      const target = join(s.memory, "a.md")
      if (kind === "replace") writeFileSync(target, TOPIC)
      let injected = 0
      // Right after our rename (or link), another process rewrites the file, with a later mtime.
      const afterPublish = (to: string) =>
        Effect.sync(() => {
          if (!to.endsWith("/a.md") || injected++ > 0) return
          writeFileSync(to, external)
          touchLater(to)
        })
      const real = (await import("../../layers/storage/nodeFileSystem.ts")).makeNodeFileSystem()
      const outcome = await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) =>
        Effect.gen(function*() {
          if (kind === "replace") yield* t.recordRead("a.md", full)
          const first = yield* t.write("a.md", mine)
          const second = yield* Effect.either(t.write("a.md", mine + "more\n"))
          return { first, second }
        }), {
        rename: (from, to) => real.rename(from, to).pipe(Effect.zipLeft(afterPublish(to))),
        link: (from, to) => real.link(from, to).pipe(Effect.zipLeft(afterPublish(to)))
      })
      expect(injected).toBeGreaterThan(0)
      expect(outcome.first.created).toBe(kind === "create")
      expect(outcome.second).toMatchObject({ _tag: "Left", left: { _tag: "StaleBaseline", reason: "modified" } })
      expect(readFileSync(target, "utf8")).toBe(external)
      expect(temps(s.root)).toEqual([])
    })
  }

  it("without an external write, a follow-up write needs no new read", async () => {
    using s = sandbox()
    const result = await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) =>
      Effect.gen(function*() {
        yield* t.write("b.md", TOPIC)
        return yield* t.write("b.md", TOPIC + "more\n")
      }))
    expect(result.created).toBe(false)
    expect(readFileSync(join(s.memory, "b.md"), "utf8")).toBe(TOPIC + "more\n")
  })
})
