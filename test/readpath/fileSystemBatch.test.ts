/**
 * The FileSystem's batch forms (statMany, readDirectories, readHeads) on real hostile entries: each entry answers as
 * its one-path form does, a failing path fails only its own entry, and nothing blocks. Then fault injection: a faked
 * one-path operation governs its batch form in `layerWith`, and a faked batch form is what the store sees.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { execFileSync } from "node:child_process"
import { mkdirSync, statSync, symlinkSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { join } from "node:path"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { FsError } from "../../layers/storage/FsError.ts"
import { type FileSystemShape } from "../../layers/storage/fileSystemShape.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { FRONTMATTER_MAX_BYTES } from "../../src/limits.ts"
import { tempDir, writeFileAt } from "../support/tmp.ts"

const real = makeNodeFileSystem()

/** A directory holding one of every awkward kind of entry, each named like a topic. */
const hostileDir = (): {
  readonly dir: string
  readonly names: ReadonlyArray<string>
  readonly ready: Promise<void>
  readonly close: () => Promise<void>
} => {
  const dir = tempDir()
  writeFileAt(join(dir, "small.md"), "---\nname: Small\n---\nbody\n")
  writeFileAt(join(dir, "empty.md"), "")
  writeFileAt(join(dir, "big.md"), Buffer.alloc(FRONTMATTER_MAX_BYTES + 10_000, "y"))
  writeFileAt(join(dir, "binary.md"), Uint8Array.from({ length: 3000 }, (_, i) => (i * 31) % 256))
  execFileSync("mkfifo", [join(dir, "fifo.md")])
  mkdirSync(join(dir, "folder.md"))
  symlinkSync(join(dir, "small.md"), join(dir, "link.md"))
  symlinkSync(join(dir, "nowhere.md"), join(dir, "dangling.md"))
  symlinkSync(join(dir, "loop-b.md"), join(dir, "loop-a.md"))
  symlinkSync(join(dir, "loop-a.md"), join(dir, "loop-b.md"))
  symlinkSync("/dev/null", join(dir, "device.md"))
  // A socket: a listening server's path, closed by the test when done.
  const server: Server = createServer()
  const socketPath = join(dir, "socket.md")
  const listening = new Promise<void>((ok) => server.listen(socketPath, ok))
  return {
    dir,
    names: ["small.md", "empty.md", "big.md", "binary.md", "fifo.md", "folder.md", "link.md", "dangling.md", "loop-a.md", "device.md", "socket.md", "missing.md"],
    ready: listening,
    close: () => listening.then(() => new Promise<void>((ok) => server.close(() => ok())))
  }
}

const withHostile = <A>(f: (dir: string, paths: ReadonlyArray<string>) => Effect.Effect<A, unknown>) =>
  Effect.acquireUseRelease(
    Effect.promise(async () => {
      const h = hostileDir()
      await h.ready
      return h
    }),
    (h) => f(h.dir, h.names.map((n) => join(h.dir, n))),
    (h) => Effect.promise(h.close)
  )

/** One path's answer as plain data: the fields that matter, or the error's op-independent reason. */
const shape = <A>(r: Either.Either<A, FsError>, pick: (a: A) => unknown) =>
  Either.isRight(r) ? { ok: pick(r.right) } : { error: r.left.reason, path: r.left.path }

describe("FileSystem batch forms on real hostile entries", () => {
  it.live("readHeads answers each path as readRegularFile does, in order, and never blocks on the FIFO", () =>
    withHostile((dir, paths) =>
      Effect.gen(function* () {
        const batch = yield* real.readHeads(paths, FRONTMATTER_MAX_BYTES)
        const single = yield* Effect.forEach(paths, (p) => Effect.either(real.readRegularFile(p, FRONTMATTER_MAX_BYTES)))
        const pick = (h: { readonly bytes: Uint8Array; readonly partial: boolean; readonly info: { readonly kind: string; readonly ino: number; readonly size: number } }) => ({
          bytes: Buffer.from(h.bytes).toString("base64"),
          partial: h.partial,
          kind: h.info.kind,
          ino: h.info.ino,
          size: h.info.size
        })
        expect(batch.map((r) => shape(r, pick))).toEqual(single.map((r) => shape(r, pick)))
        const by = new Map(paths.map((p, i) => [p.slice(dir.length + 1), batch[i]!]))
        expect(Buffer.from(Either.getOrThrow(by.get("small.md")!).bytes).toString()).toBe("---\nname: Small\n---\nbody\n")
        expect(Either.getOrThrow(by.get("big.md")!)).toMatchObject({ partial: true })
        expect(Either.getOrThrow(by.get("big.md")!).bytes.length).toBe(FRONTMATTER_MAX_BYTES)
        expect(Either.getOrThrow(by.get("empty.md")!).bytes.length).toBe(0)
        expect(Either.getOrThrow(by.get("link.md")!).info.ino).toBe(statSync(join(dir, "small.md")).ino)
        const reasons = Object.fromEntries([...by].filter(([, r]) => Either.isLeft(r)).map(([n, r]) => [n, Either.isLeft(r) ? r.left.reason : ""]))
        expect(reasons).toMatchObject({
          "fifo.md": "NotAFile",
          "folder.md": "IsDirectory",
          "dangling.md": "NotFound",
          "loop-a.md": "TooManyLinks",
          "device.md": "NotAFile",
          "missing.md": "NotFound"
        })
        // A socket cannot be opened at all (ENXIO): it fails, whatever the reason is called.
        expect(Either.isLeft(by.get("socket.md")!)).toBe(true)
      })
    ))

  it.live("statMany answers each path as stat does, with the inode change time", () =>
    withHostile((_dir, paths) =>
      Effect.gen(function* () {
        const batch = yield* real.statMany(paths)
        const single = yield* Effect.forEach(paths, (p) => Effect.either(real.stat(p)))
        expect(batch.map((r) => shape(r, (i) => i))).toEqual(single.map((r) => shape(r, (i) => i)))
        const small = Either.getOrThrow(batch[0]!)
        expect(small.ctimeMs).toBe(statSync(paths[0]!).ctimeMs)
        expect(batch.filter(Either.isLeft).map((r) => r.left.reason).sort()).toEqual(["NotFound", "NotFound", "TooManyLinks"])
      })
    ))

  it.live("readDirectories answers each path as readDirectory does; a file or a missing path fails only its entry", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      writeFileAt(join(dir, "a", "one.md"), "1")
      writeFileAt(join(dir, "a", "sub", "two.md"), "2")
      writeFileAt(join(dir, "b", "three.md"), "3")
      const paths = [join(dir, "a"), join(dir, "a", "one.md"), join(dir, "missing"), join(dir, "b")]
      const batch = yield* real.readDirectories(paths)
      const single = yield* Effect.forEach(paths, (p) => Effect.either(real.readDirectory(p)))
      const sorted = (entries: ReadonlyArray<{ readonly name: string; readonly kind: string }>) => [...entries].sort((x, y) => x.name.localeCompare(y.name))
      expect(batch.map((r) => shape(r, sorted))).toEqual(single.map((r) => shape(r, sorted)))
      expect(shape(batch[0]!, sorted)).toEqual({ ok: [{ name: "one.md", kind: "file" }, { name: "sub", kind: "directory" }] })
      expect(batch.map((r) => (Either.isLeft(r) ? r.left.reason : "ok"))).toEqual(["ok", "NotADirectory", "NotFound", "ok"])
    }))

  it.live("an empty batch is empty", () =>
    Effect.gen(function* () {
      expect(yield* real.readHeads([], 10)).toEqual([])
      expect(yield* real.statMany([])).toEqual([])
      expect(yield* real.readDirectories([])).toEqual([])
    }))
})

describe("FileSystem.layerWith and the batch forms", () => {
  const denied = (op: string, path: string) => new FsError({ op, path, reason: "PermissionDenied", detail: "EACCES" })
  const through = (overrides: Partial<FileSystemShape>) => Effect.provide(FileSystem, FileSystem.layerWith(overrides))

  it.live("a faked one-path operation governs its batch form, path by path", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      writeFileAt(join(dir, "a.md"), "A")
      writeFileAt(join(dir, "b.md"), "B")
      const [a, b] = [join(dir, "a.md"), join(dir, "b.md")]
      const seen: Array<string> = []
      const fs = yield* through({
        readRegularFile: (path, max) => (seen.push(`read ${path}`), path === b ? Effect.fail(denied("open", path)) : real.readRegularFile(path, max)),
        stat: (path) => (seen.push(`stat ${path}`), path === a ? Effect.fail(denied("stat", path)) : real.stat(path)),
        readDirectory: (path) => (seen.push(`readdir ${path}`), Effect.fail(denied("readdir", path)))
      })
      const heads = yield* fs.readHeads([a, b], 100)
      expect(Buffer.from(Either.getOrThrow(heads[0]!).bytes).toString()).toBe("A")
      expect(heads[1]).toEqual(Either.left(denied("open", b)))
      const stats = yield* fs.statMany([a, b])
      expect(stats[0]).toEqual(Either.left(denied("stat", a)))
      expect(Either.getOrThrow(stats[1]!).size).toBe(1)
      const listings = yield* fs.readDirectories([dir])
      expect(listings[0]).toEqual(Either.left(denied("readdir", dir)))
      expect(seen).toEqual([`read ${a}`, `read ${b}`, `stat ${a}`, `stat ${b}`, `readdir ${dir}`])
    }))

  it.live("untouched operations keep the real batch forms; a faked batch form wins over its one-path form", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      writeFileAt(join(dir, "a.md"), "A")
      const a = join(dir, "a.md")
      const untouched = yield* through({ writeFile: () => Effect.fail(denied("write", "x")) })
      expect(Buffer.from(Either.getOrThrow((yield* untouched.readHeads([a], 10))[0]!).bytes).toString()).toBe("A")
      const fakedBatch = yield* through({
        readRegularFile: () => Effect.die("the one-path reader must not be used"),
        readHeads: (paths) => Effect.succeed(paths.map((p) => Either.left(denied("open", p))))
      })
      expect(yield* fakedBatch.readHeads([a], 10)).toEqual([Either.left(denied("open", a))])
    }))
})
