/** AtomicPublish on its own: replace, create-only, last checks, durability, no-hard-link fallback, cleanup. */
import { Effect } from "effect"
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { publishFile } from "../../layers/storage/AtomicPublish.ts"
import { FsError } from "../../layers/storage/FsError.ts"
import { type FileSystemShape } from "../../layers/storage/fileSystemShape.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { sandbox } from "./support.ts"

const real = makeNodeFileSystem()
const withCalls = (overrides: Partial<FileSystemShape> = {}) => {
  const calls: Array<string> = []
  const fs: FileSystemShape = {
    ...real,
    ...overrides,
    writeFile: (p, d, o) => Effect.sync(() => calls.push(`writeFile ${o?.flag} noFollow=${o?.noFollow} flush=${o?.flush}`))
      .pipe(Effect.zipRight((overrides.writeFile ?? real.writeFile)(p, d, o))),
    syncDirectory: (p) => Effect.sync(() => calls.push("syncDirectory")).pipe(Effect.zipRight(real.syncDirectory(p)))
  }
  return { fs, calls }
}

describe("publishFile", () => {
  it("replace: the target holds the content, it is the staged inode, and no temp file remains", async () => {
    using s = sandbox()
    writeFileSync(join(s.memory, "a.md"), "old")
    const { fs, calls } = withCalls()
    const outcome = await Effect.runPromise(publishFile(fs, { dir: s.memory, name: "a.md", content: "new", mode: "replace" }))
    expect(readFileSync(join(s.memory, "a.md"), "utf8")).toBe("new")
    expect(outcome._tag === "Published" && outcome.info.ino).toBe(statSync(join(s.memory, "a.md")).ino)
    expect(readdirSync(s.memory)).toEqual(["a.md"])
    expect(calls).toEqual(["writeFile wx noFollow=true flush=false"])
  })

  it("durable: the temp file is flushed and the directory synced", async () => {
    using s = sandbox()
    const { fs, calls } = withCalls()
    await Effect.runPromise(publishFile(fs, { dir: s.memory, name: "a.md", content: "x", mode: "create", durable: true }))
    expect(calls).toEqual(["writeFile wx noFollow=true flush=true", "syncDirectory"])
  })

  it("create: a name already taken is reported and left as it was; no temp file remains", async () => {
    using s = sandbox()
    writeFileSync(join(s.memory, "a.md"), "theirs")
    const outcome = await Effect.runPromise(publishFile(real, { dir: s.memory, name: "a.md", content: "mine", mode: "create" }))
    expect(outcome).toEqual({ _tag: "Taken" })
    expect(readFileSync(join(s.memory, "a.md"), "utf8")).toBe("theirs")
    expect(readdirSync(s.memory)).toEqual(["a.md"])
  })

  it("a failing last check publishes nothing and removes the temp file", async () => {
    using s = sandbox()
    writeFileSync(join(s.memory, "a.md"), "old")
    const error = await Effect.runPromise(Effect.flip(publishFile(real, {
      dir: s.memory,
      name: "a.md",
      content: "new",
      mode: "replace",
      beforePublish: (staged) => {
        expect(existsSync(staged.temp)).toBe(true)
        return Effect.fail("stop" as const)
      }
    })))
    expect(error).toBe("stop")
    expect(readFileSync(join(s.memory, "a.md"), "utf8")).toBe("old")
    expect(readdirSync(s.memory)).toEqual(["a.md"])
  })

  it("without hard links (EPERM, ENOTSUP) it creates the target exclusively; another link failure is an error", async () => {
    using s = sandbox()
    for (const detail of ["EPERM", "ENOTSUP"]) {
      const noLinks = { link: (_: string, p: string) => Effect.fail(new FsError({ op: "link", path: p, reason: "PermissionDenied", detail })) }
      const outcome = await Effect.runPromise(publishFile({ ...real, ...noLinks }, { dir: s.memory, name: `${detail}.md`, content: "x", mode: "create" }))
      expect(outcome._tag).toBe("Published")
      expect(readFileSync(join(s.memory, `${detail}.md`), "utf8")).toBe("x")
      // Still never clobbers.
      const again = await Effect.runPromise(publishFile({ ...real, ...noLinks }, { dir: s.memory, name: `${detail}.md`, content: "y", mode: "create" }))
      expect(again).toEqual({ _tag: "Taken" })
    }
    const broken = { link: (_: string, p: string) => Effect.fail(new FsError({ op: "link", path: p, reason: "Busy", detail: "EIO" })) }
    const error = await Effect.runPromise(Effect.flip(publishFile({ ...real, ...broken }, { dir: s.memory, name: "b.md", content: "x", mode: "create" })))
    expect(error).toMatchObject({ _tag: "FsError", op: "create", reason: "Busy" })
    expect(readdirSync(s.memory).sort()).toEqual(["ENOTSUP.md", "EPERM.md"])
  })
})
