/** Containment attacks on write, edit and delete: each one rejected with a rule and an actionable message. */
import { Effect } from "effect"
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { MemoryWriter } from "../../layers/writes/MemoryWriter.ts"
import {
  checkFileName,
  checkNameRules,
  checkRawPath,
  NAME_MAX_BYTES,
  PATH_MAX_BYTES,
  segmentsInside
} from "../../src/storage/containment.ts"
import { allNames as allEntries, sandbox, temps, withTask, writerLayer } from "./support.ts"

const TOPIC = "---\nname: x\ndescription: y\nmetadata:\n  type: project\n---\nbody\n"

describe("containment (pure rules)", () => {
  it("path length: at and below the limit pass, above fails", () => {
    const at = "/" + "a".repeat(PATH_MAX_BYTES - 1)
    expect(checkRawPath(at, { requireAbsolute: true })).toBeUndefined()
    expect(checkRawPath(at + "a", { requireAbsolute: true })?.rule).toBe("invalid-path")
    // Multi-byte characters count in bytes.
    expect(checkRawPath("/" + "é".repeat(PATH_MAX_BYTES / 2), { requireAbsolute: true })?.rule).toBe("invalid-path")
  })
  it("name length: 255 bytes pass, 256 fail", () => {
    expect(checkFileName("a".repeat(NAME_MAX_BYTES - 3) + ".md", "x")).toBeUndefined()
    expect(checkFileName("a".repeat(NAME_MAX_BYTES - 2) + ".md", "x")?.rule).toBe("name-too-long")
  })
  it("only a lowercase .md extension with a stem", () => {
    expect(checkFileName("a.md", "a.md")).toBeUndefined()
    for (const bad of ["a.MD", "a.Md", "a.mD", "a.txt", "a", ".md", "md", "a.md.bak", "a.markdown"]) {
      expect(checkFileName(bad, bad)?.rule, bad).toBe("not-markdown")
    }
    expect(checkFileName("A.MD", "A.MD")?.message).toContain("A.md")
  })
  it("segmentsInside", () => {
    expect(segmentsInside("/m", "/m")).toEqual([])
    expect(segmentsInside("/m", "/m/a/b")).toEqual(["a", "b"])
    expect(segmentsInside("/m", "/mx/a")).toBeUndefined()
    expect(segmentsInside("/m", "/")).toBeUndefined()
    expect(segmentsInside("/m", "/m/..a")).toEqual(["..a"])
  })
})

describe("name rules (every segment below the memory directory)", () => {
  const rule = (name: string) => checkNameRules([name], name)?.rule
  const ch = (code: number) => String.fromCodePoint(code)

  it('a leading "-", "+" or "=" is refused; the same characters later in the name are fine', () => {
    for (const first of ["-", "+", "="]) {
      expect(rule(`${first}x.md`), first).toBe("invalid-name")
      expect(rule(`${first}`), first).toBe("invalid-name")
      expect(rule(`a${first}b.md`), first).toBeUndefined()
      expect(rule(`ab.md${first}`), first).toBeUndefined()
    }
    expect(rule("--pre=sh.md")).toBe("invalid-name")
    expect(rule("-oPWNED.md")).toBe("invalid-name")
    // Lookalikes are not options to any program: U+2010 HYPHEN, U+FF0D FULLWIDTH HYPHEN-MINUS.
    expect(rule(`${ch(0x2010)}x.md`)).toBeUndefined()
    expect(rule(`${ch(0xff0d)}x.md`)).toBeUndefined()
  })

  it("control characters: C0 (0x01-0x1F), DEL (0x7F) and C1 (0x80-0x9F) are refused; their neighbours pass", () => {
    for (const code of [0x01, 0x09, 0x0a, 0x0d, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9f]) {
      expect(rule(`a${ch(code)}b.md`), code.toString(16)).toBe("invalid-name")
      expect(checkNameRules([`a${ch(code)}b.md`], "x")?.message, code.toString(16)).toContain("control character")
    }
    expect(rule(`a${ch(0x21)}b.md`)).toBeUndefined() // "!" right after the space
    expect(rule(`a${ch(0x7e)}b.md`)).toBeUndefined() // "~" right before DEL
    expect(rule(`a${ch(0xa1)}b.md`)).toBeUndefined() // "¡" right after NBSP
  })

  it("glob and brace characters and the backslash are refused anywhere", () => {
    for (const c of ["*", "?", "[", "]", "{", "}", "\\"]) {
      expect(rule(`${c}.md`), c).toBe("invalid-name")
      expect(rule(`a${c}b.md`), c).toBe("invalid-name")
      expect(rule(`ab.md${c}`), c).toBe("invalid-name")
    }
    // Not pattern characters without parentheses: kept.
    for (const ok of ["!a.md", "a!.md", "a(b).md", "a@b.md", "a,b.md", "a'b.md", "#a.md", "a%b.md", "a.b.md", "a_b.md"]) {
      expect(rule(ok), ok).toBeUndefined()
    }
  })

  it("whitespace of any kind, invisible and direction-changing characters are refused", () => {
    for (const code of [0x20, 0xa0, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000]) {
      expect(rule(`a${ch(code)}b.md`), code.toString(16)).toBe("invalid-name")
    }
    for (const code of [0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202e, 0x2060, 0x2064, 0x2066, 0x2069, 0xfeff]) {
      expect(rule(`a${ch(code)}b.md`), code.toString(16)).toBe("invalid-name")
    }
    expect(rule(`a${ch(0x2065)}b.md`)).toBeUndefined() // unassigned between the two refused ranges
    expect(rule(`a${ch(0x2010)}b.md`)).toBeUndefined()
    expect(rule("café-日本.md")).toBeUndefined()
  })

  it("every segment is checked, and the message names the segment, the character and a name to use instead", () => {
    expect(checkNameRules(["ok", "-sub", "a.md"], "ok/-sub/a.md")).toMatchObject({ rule: "invalid-name" })
    expect(checkNameRules(["ok", "sub", "a.md"], "ok/sub/a.md")).toBeUndefined()
    const message = checkNameRules(["a\nb.md"], "a\nb.md")!.message
    expect(message).toContain("U+000A")
    expect(message).toContain("deploy-notes.md")
    // The raw control character never reaches the message.
    expect(message).not.toContain("\n")
    expect(checkNameRules(["-x.md"], "-x.md")!.message).toContain('starts with "-"')
  })
})

describe("containment attacks on the writer", () => {
  const attempt = (s: ReturnType<typeof sandbox>, path: string, cwd = s.memory) =>
    withTask({ memoryDir: s.memory, cwd }, (task) => Effect.flip(task.write(path, TOPIC)))

  it("`..` out of the memory directory", async () => {
    using s = sandbox()
    const error = await attempt(s, "../outside/x.md")
    expect(error).toMatchObject({ _tag: "WriteRejected", rule: "outside-memory" })
    expect(error.message).toContain(s.memory)
    expect(existsSync(join(s.outside, "x.md"))).toBe(false)
    expect(await attempt(s, join(s.memory, "sub", "..", "..", "outside", "y.md"))).toMatchObject({ rule: "outside-memory" })
  })

  it("absolute paths outside", async () => {
    using s = sandbox()
    expect(await attempt(s, join(s.outside, "x.md"))).toMatchObject({ rule: "outside-memory" })
    expect(await attempt(s, "/x.md")).toMatchObject({ rule: "outside-memory" })
    // A sibling whose name starts with the memory directory's name is outside too.
    mkdirSync(s.memory + "-evil")
    expect(await attempt(s, join(s.memory + "-evil", "x.md"))).toMatchObject({ rule: "outside-memory" })
  })

  it("relative paths resolve against the cwd, never silently against the memory directory", async () => {
    using s = sandbox()
    const error = await attempt(s, "topic.md", s.project)
    expect(error).toMatchObject({ rule: "outside-memory" })
    expect(error.message).toContain(`working directory ${s.project}`)
    expect(existsSync(join(s.memory, "topic.md"))).toBe(false)
    // From the project, a relative path that does point into memory works.
    const ok = await withTask({ memoryDir: s.memory, cwd: s.project }, (t) => t.write("../memory/topic.md", TOPIC))
    expect(ok.path).toBe(join(s.memory, "topic.md"))
  })

  it("a symlinked parent pointing outside", async () => {
    using s = sandbox()
    symlinkSync(s.outside, join(s.memory, "sub"))
    expect(await attempt(s, join(s.memory, "sub", "x.md"))).toMatchObject({ rule: "outside-memory" })
    expect(existsSync(join(s.outside, "x.md"))).toBe(false)
  })

  it("a symlinked target pointing outside (write, edit)", async () => {
    using s = sandbox()
    writeFileSync(join(s.outside, "secret.md"), "keep")
    symlinkSync(join(s.outside, "secret.md"), join(s.memory, "link.md"))
    expect(await attempt(s, join(s.memory, "link.md"))).toMatchObject({ rule: "outside-memory" })
    const edit = await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) =>
      Effect.flip(t.edit(join(s.memory, "link.md"), [{ oldText: "keep", newText: "lost" }])))
    expect(edit).toMatchObject({ rule: "outside-memory" })
    expect(readFileSync(join(s.outside, "secret.md"), "utf8")).toBe("keep")
  })

  it("links that stay inside are followed (the link's target is written)", async () => {
    using s = sandbox()
    writeFileSync(join(s.memory, "real.md"), "old")
    symlinkSync(join(s.memory, "real.md"), join(s.memory, "alias.md"))
    mkdirSync(join(s.memory, "dir"))
    symlinkSync(join(s.memory, "dir"), join(s.memory, "dirlink"))
    const result = await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) =>
      Effect.gen(function*() {
        yield* t.recordRead("alias.md", { kind: "text", truncated: false })
        const a = yield* t.write("alias.md", TOPIC)
        const b = yield* t.write("dirlink/new.md", TOPIC)
        return [a, b]
      }))
    expect(result[0]!.path).toBe(join(s.memory, "real.md"))
    expect(lstatSync(join(s.memory, "alias.md")).isSymbolicLink()).toBe(true)
    expect(readFileSync(join(s.memory, "real.md"), "utf8")).toBe(TOPIC)
    expect(result[1]!.path).toBe(join(s.memory, "dir", "new.md"))
  })

  it("a link inside memory to a non-.md file or into a dot-directory is rejected", async () => {
    using s = sandbox()
    mkdirSync(join(s.memory, ".git"))
    writeFileSync(join(s.memory, ".git", "config.md"), "x")
    writeFileSync(join(s.memory, "notes.txt"), "x")
    symlinkSync(join(s.memory, ".git", "config.md"), join(s.memory, "a.md"))
    symlinkSync(join(s.memory, "notes.txt"), join(s.memory, "b.md"))
    expect(await attempt(s, "a.md")).toMatchObject({ rule: "protected-directory" })
    expect(await attempt(s, "b.md")).toMatchObject({ rule: "not-markdown" })
  })

  it("broken links are rejected, and mkdir never follows them", async () => {
    using s = sandbox()
    symlinkSync(join(s.outside, "missing.md"), join(s.memory, "dangling.md"))
    symlinkSync(join(s.outside, "nodir"), join(s.memory, "danglingdir"))
    expect(await attempt(s, "dangling.md")).toMatchObject({ rule: "broken-link" })
    expect(await attempt(s, "danglingdir/x.md")).toMatchObject({ rule: "broken-link" })
    expect(existsSync(join(s.outside, "missing.md"))).toBe(false)
    expect(existsSync(join(s.outside, "nodir"))).toBe(false)
  })

  it("uppercase and other extensions", async () => {
    using s = sandbox()
    for (const name of ["x.MD", "x.Md", "x.txt", "x", ".md"]) {
      expect(await attempt(s, name), name).toMatchObject({ _tag: "WriteRejected" })
    }
    expect(await attempt(s, "x.MD")).toMatchObject({ rule: "not-markdown" })
  })

  it("protected dot-directories (D7) and dot-files", async () => {
    using s = sandbox()
    mkdirSync(join(s.memory, ".git"))
    for (const path of [".git/x.md", "sub/.hidden/x.md", ".x.md", ".git/objects/y.md"]) {
      expect(await attempt(s, path), path).toMatchObject({ rule: "protected-directory" })
    }
    expect(existsSync(join(s.memory, "sub"))).toBe(false)
  })

  it("NUL, empty and over-long paths", async () => {
    using s = sandbox()
    expect(await attempt(s, "x\u0000.md")).toMatchObject({ rule: "invalid-path" })
    expect(await attempt(s, "")).toMatchObject({ rule: "invalid-path" })
    expect(await attempt(s, "a".repeat(NAME_MAX_BYTES - 2) + ".md")).toMatchObject({ rule: "name-too-long" })
    expect(await attempt(s, "a/".repeat(PATH_MAX_BYTES / 2) + "x.md")).toMatchObject({ rule: "invalid-path" })
    // At the name limit the write goes through.
    const at = "a".repeat(NAME_MAX_BYTES - 3) + ".md"
    const ok = await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) => t.write(at, TOPIC))
    expect(ok.created).toBe(true)
  })

  it("directories and other non-files", async () => {
    using s = sandbox()
    mkdirSync(join(s.memory, "folder.md"))
    expect(await attempt(s, "folder.md")).toMatchObject({ rule: "not-a-file" })
  })

  it("MEMORY.md may be written but never deleted", async () => {
    using s = sandbox()
    writeFileSync(join(s.memory, "MEMORY.md"), "- [a](a.md) - a\n")
    const remove = (path: string, force = false) =>
      Effect.runPromise(Effect.flip(Effect.flatMap(MemoryWriter, (w) => w.remove(path, { memoryDir: s.memory, force })))
        .pipe(Effect.provide(writerLayer())))
    expect(await remove(join(s.memory, "MEMORY.md"))).toMatchObject({ rule: "index-delete" })
    expect(await remove(join(s.memory, "MEMORY.md"), true)).toMatchObject({ rule: "index-delete" })
    expect(existsSync(join(s.memory, "MEMORY.md"))).toBe(true)
    const written = await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) =>
      Effect.gen(function*() {
        yield* t.recordRead("MEMORY.md", { kind: "text", truncated: false })
        return yield* t.write("MEMORY.md", "- [b](b.md) - b\n")
      }))
    expect(written.created).toBe(false)
  })
})

describe("delete", () => {
  const run = <A, E>(effect: Effect.Effect<A, E, MemoryWriter>) => Effect.runPromise(effect.pipe(Effect.provide(writerLayer())))

  it("removes a regular .md file; missing targets need -f and never create parents", async () => {
    using s = sandbox()
    writeFileSync(join(s.memory, "a.md"), "x")
    const removed = await run(Effect.flatMap(MemoryWriter, (w) => w.remove(join(s.memory, "a.md"), { memoryDir: s.memory })))
    expect(removed).toEqual({ path: join(s.memory, "a.md"), removed: true })
    expect(existsSync(join(s.memory, "a.md"))).toBe(false)

    const missing = await run(Effect.flip(Effect.flatMap(MemoryWriter, (w) =>
      w.remove(join(s.memory, "a.md"), { memoryDir: s.memory }))))
    expect(missing).toMatchObject({ _tag: "FileMissing" })
    const forced = await run(Effect.flatMap(MemoryWriter, (w) =>
      w.remove(join(s.memory, "no", "such", "b.md"), { memoryDir: s.memory, force: true })))
    expect(forced.removed).toBe(false)
    expect(existsSync(join(s.memory, "no"))).toBe(false)
  })

  it("a symlink is removed itself, never its target (even a target outside)", async () => {
    using s = sandbox()
    writeFileSync(join(s.outside, "t.md"), "keep")
    symlinkSync(join(s.outside, "t.md"), join(s.memory, "l.md"))
    await run(Effect.flatMap(MemoryWriter, (w) => w.remove(join(s.memory, "l.md"), { memoryDir: s.memory })))
    expect(existsSync(join(s.memory, "l.md"))).toBe(false)
    expect(readFileSync(join(s.outside, "t.md"), "utf8")).toBe("keep")
  })

  it("the same attacks are rejected for delete", async () => {
    using s = sandbox()
    writeFileSync(join(s.outside, "x.md"), "keep")
    symlinkSync(s.outside, join(s.memory, "sub"))
    mkdirSync(join(s.memory, ".git"))
    writeFileSync(join(s.memory, ".git", "x.md"), "keep")
    writeFileSync(join(s.memory, "UP.MD"), "keep")
    const rejectOf = (path: string) =>
      run(Effect.flip(Effect.flatMap(MemoryWriter, (w) => w.remove(path, { memoryDir: s.memory, force: true }))))
    expect(await rejectOf(join(s.memory, "..", "outside", "x.md"))).toMatchObject({ rule: "outside-memory" })
    expect(await rejectOf(join(s.outside, "x.md"))).toMatchObject({ rule: "outside-memory" })
    expect(await rejectOf(join(s.memory, "sub", "x.md"))).toMatchObject({ rule: "outside-memory" })
    expect(await rejectOf(join(s.memory, ".git", "x.md"))).toMatchObject({ rule: "protected-directory" })
    expect(await rejectOf(join(s.memory, "UP.MD"))).toMatchObject({ rule: "not-markdown" })
    expect(await rejectOf("relative.md")).toMatchObject({ rule: "invalid-path" })
    expect(await rejectOf(join(s.memory, "x\u0000.md"))).toMatchObject({ rule: "invalid-path" })
    expect(readFileSync(join(s.outside, "x.md"), "utf8")).toBe("keep")
    expect(readFileSync(join(s.memory, ".git", "x.md"), "utf8")).toBe("keep")
    expect(temps(s.root)).toEqual([])
  })

  it("a memory directory reached through a symlink alias works the same", async () => {
    using s = sandbox()
    symlinkSync(s.memory, join(s.root, "alias"))
    writeFileSync(join(s.memory, "a.md"), "x")
    const result = await run(Effect.flatMap(MemoryWriter, (w) =>
      w.remove(join(s.root, "alias", "a.md"), { memoryDir: join(s.root, "alias") })))
    expect(result.removed).toBe(true)
  })
})

describe("name rules through the writer", () => {
  it("write, edit and delete refuse bad names, in the file name and in directories; nothing is created", async () => {
    using s = sandbox()
    for (const path of ["-x.md", "+x.md", "=x.md", "a b.md", "a*.md", "a\nb.md", "a\rb.md", "-sub/x.md", "sub dir/x.md", "[a]/x.md"]) {
      const error = await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) => Effect.flip(t.write(path, TOPIC)))
      expect(error, JSON.stringify(path)).toMatchObject({ _tag: "WriteRejected", rule: "invalid-name" })
    }
    expect(allEntries(s.memory)).toEqual([])
    // A file created by someone else under such a name is not the background agent's to change or delete.
    writeFileSync(join(s.memory, "-old.md"), "keep")
    const edit = await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) =>
      Effect.flip(t.edit("-old.md", [{ oldText: "keep", newText: "lost" }])))
    expect(edit).toMatchObject({ rule: "invalid-name" })
    const removed = await Effect.runPromise(
      Effect.flip(Effect.flatMap(MemoryWriter, (w) => w.remove(join(s.memory, "-old.md"), { memoryDir: s.memory })))
        .pipe(Effect.provide(writerLayer()))
    )
    expect(removed).toMatchObject({ rule: "invalid-name" })
    expect(readFileSync(join(s.memory, "-old.md"), "utf8")).toBe("keep")
  })

  it("a link whose real target has a bad name is refused; good names still pass", async () => {
    using s = sandbox()
    writeFileSync(join(s.memory, "-target.md"), "x")
    symlinkSync(join(s.memory, "-target.md"), join(s.memory, "alias.md"))
    const error = await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) => Effect.flip(t.write("alias.md", TOPIC)))
    expect(error).toMatchObject({ rule: "invalid-name" })
    const ok = await withTask({ memoryDir: s.memory, cwd: s.memory }, (t) => t.write("sub_dir/a-b+c=d!.md", TOPIC))
    expect(ok.created).toBe(true)
  })
})
