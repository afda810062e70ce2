/**
 * The scan opens and parses each topic once and again only when it changed; it reads, stats and lists through the
 * FileSystem's batch forms, and their faults are reported like the one-path ones. (The manifest's refresh rules are
 * in manifest.test.ts.)
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, renameSync, statSync, symlinkSync, utimesSync } from "node:fs"
import { join } from "node:path"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { FsError } from "../../layers/storage/FsError.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { MemoryStore } from "../../layers/memory/MemoryStore.ts"
import { tempDir, writeFileAt, writeTopics } from "../support/tmp.ts"

const mkfifo = (path: string): void => {
  execFileSync("mkfifo", [path])
}

const counting = () => {
  const real = makeNodeFileSystem()
  const opened: Array<string> = []
  const layer = MemoryStore.layer.pipe(
    Layer.provide(
      FileSystem.layerWith({
        readRegularFile: (path, max) => {
          opened.push(path)
          return real.readRegularFile(path, max)
        }
      })
    )
  )
  return { opened, layer }
}

describe("scan cost", () => {
  it.effect("of 1,000 topics every header is read once, and a second scan reads none", () => {
    const dir = tempDir()
    const written = writeTopics(dir, 1000)
    const { opened, layer } = counting()
    return Effect.gen(function* () {
      const store = yield* MemoryStore
      const first = yield* store.scanTopics(dir)
      expect(first.topics).toHaveLength(1000)
      expect(first.topics[0]!.filename).toBe(written[999]!.filename)
      expect(first.topics[999]!.filename).toBe(written[0]!.filename)
      expect(first.skipped).toEqual([])
      expect(opened).toHaveLength(1000)
      expect(new Set(opened)).toEqual(new Set(written.map((w) => join(dir, w.filename))))
      opened.length = 0
      const second = yield* store.scanTopics(dir)
      expect(second.topics.map((t) => t.filename)).toEqual(first.topics.map((t) => t.filename))
      expect(opened).toHaveLength(0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a file replaced (as every writer of memory publishes) is read again, the others come from the manifest", () => {
    const dir = tempDir()
    const written = writeTopics(dir, 205)
    const { opened, layer } = counting()
    return Effect.gen(function* () {
      const store = yield* MemoryStore
      yield* store.scanTopics(dir)
      opened.length = 0
      const changed = join(dir, written[204]!.filename)
      writeFileAt(join(dir, "next.tmp"), "---\nname: Changed\ndescription: now different\n---\n", Date.now())
      renameSync(join(dir, "next.tmp"), changed)
      const again = yield* store.scanTopics(dir)
      expect(opened).toEqual([changed])
      expect(again.topics[0]!.description).toBe("now different")
    }).pipe(Effect.provide(layer))
  })

  it.effect("an unreadable file is reported and every other topic kept", () => {
    const dir = tempDir()
    const written = writeTopics(dir, 205)
    const broken = join(dir, written[204]!.filename)
    const real = makeNodeFileSystem()
    const layer = MemoryStore.layer.pipe(
      Layer.provide(
        FileSystem.layerWith({
          readRegularFile: (path, max) =>
            path === broken ? Effect.fail(new FsError({ op: "open", path, reason: "PermissionDenied", detail: "EACCES" })) : real.readRegularFile(path, max)
        })
      )
    )
    return Effect.gen(function* () {
      const result = yield* (yield* MemoryStore).scanTopics(dir)
      expect(result.topics.map((t) => t.filename)).toEqual(written.slice(0, 204).map((w) => w.filename).reverse())
      expect(result.skipped).toEqual([{ filename: written[204]!.filename, reason: "permission denied" }])
    }).pipe(Effect.provide(layer))
  })
})

describe("scan bounds", () => {
  it.effect("folders deeper than 16 levels are reported, not walked; 16 levels are walked", () => {
    const dir = tempDir()
    let deep = dir
    for (let level = 1; level <= 17; level++) {
      deep = join(deep, `d${level}`)
      writeFileAt(join(deep, `at-${level}.md`), "---\nname: x\ndescription: y\n---\n")
    }
    return Effect.gen(function* () {
      const { topics, skipped } = yield* (yield* MemoryStore).scanTopics(dir)
      const found = new Set(topics.map((t) => t.filename.split("/").at(-1)))
      expect(found.has("at-16.md")).toBe(true)
      expect(found.has("at-17.md")).toBe(false)
      expect(skipped.filter((s) => s.reason.includes("more than 16 folders deep"))).toHaveLength(1)
    }).pipe(Effect.provide(MemoryStore.layer.pipe(Layer.provide(FileSystem.layer))))
  })

  it.effect("at most 1,000 folders are walked; the rest are reported", () => {
    const dir = tempDir()
    for (let i = 0; i < 1_005; i++) mkdirSync(join(dir, `f${i}`))
    return Effect.gen(function* () {
      const { skipped } = yield* (yield* MemoryStore).scanTopics(dir)
      // The root counts as the first folder.
      expect(skipped.filter((s) => s.reason.includes("beyond the first 1000 folders"))).toHaveLength(6)
    }).pipe(Effect.provide(MemoryStore.layer.pipe(Layer.provide(FileSystem.layer))))
  })
})

/** A layer that records every path the scan reads and stats through the batch forms of the real file system. */
const recording = () => {
  const real = makeNodeFileSystem()
  const read: Array<string> = []
  const stated: Array<string> = []
  const layer = MemoryStore.layer.pipe(
    Layer.provide(
      FileSystem.layerWith({
        readHeads: (paths, max) => {
          read.push(...paths)
          return real.readHeads(paths, max)
        },
        statMany: (paths) => {
          stated.push(...paths)
          return real.statMany(paths)
        }
      })
    )
  )
  return { read, stated, layer }
}

describe("scan batches", () => {
  it.effect("with 200 or fewer files each is read once without a stat first; a second scan stats each and reads none", () => {
    const dir = tempDir()
    const written = writeTopics(dir, 20)
    mkfifo(join(dir, "fifo.md"))
    mkdirSync(join(dir, "folder.md"))
    symlinkSync(join(dir, "nowhere.md"), join(dir, "dangling.md"))
    const { read, stated, layer } = recording()
    return Effect.gen(function* () {
      const store = yield* MemoryStore
      const first = yield* store.scanTopics(dir)
      expect(first.topics.map((t) => t.filename)).toEqual(written.map((w) => w.filename).reverse())
      expect(first.skipped).toEqual([
        { filename: "dangling.md", reason: "missing or a dangling symlink" },
        { filename: "fifo.md", reason: "not a regular file (fifo)" },
        { filename: "folder.md", reason: "a directory" }
      ])
      const paths = written.map((w) => join(dir, w.filename))
      expect(new Set(read)).toEqual(new Set(paths))
      expect(read).toHaveLength(20)
      // Only the root, the symlink and the folder are stat'ed by the walk; no topic is.
      expect(stated.filter((p) => p.endsWith(".md") && paths.includes(p))).toEqual([])
      read.length = 0
      stated.length = 0
      const second = yield* store.scanTopics(dir)
      expect(second).toEqual(first)
      expect(read).toEqual([])
      expect(new Set(stated.filter((p) => paths.includes(p)))).toEqual(new Set(paths))
    }).pipe(Effect.provide(layer))
  })

  it.effect("a topic rewritten to the same size with its mtime set back is read again (the inode change time moved)", () => {
    const dir = tempDir()
    const written = writeTopics(dir, 5)
    const target = join(dir, written[2]!.filename)
    const { read, layer } = recording()
    return Effect.gen(function* () {
      const store = yield* MemoryStore
      // Whole seconds, so setting the mtime back is exact.
      const seconds = Math.floor(written[2]!.mtimeMs / 1000)
      utimesSync(target, seconds, seconds)
      yield* store.scanTopics(dir)
      const before = statSync(target)
      const original = readFileSync(target, "utf8")
      const rewritten = original.replace("Topic 2", "Topic X")
      expect(Buffer.byteLength(rewritten)).toBe(before.size)
      writeFileAt(target, rewritten)
      utimesSync(target, seconds, seconds)
      expect(statSync(target).mtimeMs).toBe(before.mtimeMs)
      read.length = 0
      const again = yield* store.scanTopics(dir)
      expect(read).toEqual([target])
      expect(again.topics.find((t) => t.filename === written[2]!.filename)?.name).toBe("Topic X")
    }).pipe(Effect.provide(layer))
  })

  it.effect("a batch read that fails for one file is reported and every other topic kept", () => {
    const dir = tempDir()
    const written = writeTopics(dir, 205)
    const broken = join(dir, written[204]!.filename)
    const real = makeNodeFileSystem()
    const layer = MemoryStore.layer.pipe(
      Layer.provide(
        FileSystem.layerWith({
          readRegularFile: () => Effect.die("the scan reads through the batch form"),
          readHeads: (paths, max) =>
            Effect.map(real.readHeads(paths, max), (reads) =>
              reads.map((r, i) => (paths[i] === broken ? Either.left(new FsError({ op: "open", path: broken, reason: "PermissionDenied", detail: "EACCES" })) : r))
            )
        })
      )
    )
    return Effect.gen(function* () {
      const result = yield* (yield* MemoryStore).scanTopics(dir)
      expect(result.topics.map((t) => t.filename)).toEqual(written.slice(0, 204).map((w) => w.filename).reverse())
      expect(result.skipped).toEqual([{ filename: written[204]!.filename, reason: "permission denied" }])
    }).pipe(Effect.provide(layer))
  })

  for (const count of [5, 205]) {
    it.effect(`a topic whose batch stat fails is reported and the others kept (${count} topics)`, () => {
      const dir = tempDir()
      const written = writeTopics(dir, count)
      const broken = join(dir, written[count - 1]!.filename)
      const real = makeNodeFileSystem()
      const failing = FileSystem.layerWith({
        statMany: (paths) =>
          Effect.map(real.statMany(paths), (stats) =>
            stats.map((r, i) => (paths[i] === broken ? Either.left(new FsError({ op: "stat", path: broken, reason: "Busy", detail: "EIO" })) : r))
          )
      })
      return Effect.gen(function* () {
        const store = yield* MemoryStore
        // The first scan reads each file (the read brings its own stat); a thorough one checks each by a stat.
        yield* store.scanTopics(dir)
        const result = yield* store.scanTopics(dir, { thorough: true })
        expect(result.topics.map((t) => t.filename)).toEqual(written.slice(0, count - 1).map((w) => w.filename).reverse())
        expect(result.skipped).toContainEqual({ filename: written[count - 1]!.filename, reason: "busy" })
      }).pipe(Effect.provide(MemoryStore.layer.pipe(Layer.provide(failing))))
    })
  }

  it.effect("a subfolder that cannot be stat'ed after the listing is reported; the rest of the scan stands", () => {
    const dir = tempDir()
    writeTopics(dir, 3)
    writeTopics(join(dir, "gone"), 2, { prefix: "inner" })
    writeTopics(join(dir, "kept"), 1, { prefix: "kept" })
    const real = makeNodeFileSystem()
    const layer = MemoryStore.layer.pipe(
      Layer.provide(
        FileSystem.layerWith({
          stat: (path) => (path === join(dir, "gone") ? Effect.fail(new FsError({ op: "stat", path, reason: "NotFound", detail: "ENOENT" })) : real.stat(path))
        })
      )
    )
    return Effect.gen(function* () {
      const result = yield* (yield* MemoryStore).scanTopics(dir)
      expect(result.topics.map((t) => t.filename).sort()).toEqual(["kept/kept-n0000.md", "topic-n0000.md", "topic-n0001.md", "topic-n0002.md"])
      expect(result.skipped).toEqual([{ filename: "gone/", reason: "missing or a dangling symlink" }])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a batch listing that fails for a subfolder is reported; one that fails for the root gives an empty scan", () => {
    const dir = tempDir()
    writeTopics(dir, 2)
    writeTopics(join(dir, "locked"), 2, { prefix: "inner" })
    const real = makeNodeFileSystem()
    const denyingListing = (deny: string) =>
      MemoryStore.layer.pipe(
        Layer.provide(
          FileSystem.layerWith({
            readDirectory: () => Effect.die("the walk lists through the batch form"),
            readDirectories: (paths) =>
              Effect.map(real.readDirectories(paths), (lists) =>
                lists.map((r, i) => (paths[i] === deny ? Either.left(new FsError({ op: "readdir", path: deny, reason: "PermissionDenied", detail: "EACCES" })) : r))
              )
          })
        )
      )
    return Effect.gen(function* () {
      const sub = yield* Effect.flatMap(MemoryStore, (s) => s.scanTopics(dir)).pipe(Effect.provide(denyingListing(join(dir, "locked"))))
      expect(sub.topics.map((t) => t.filename)).toEqual(["topic-n0001.md", "topic-n0000.md"])
      expect(sub.skipped).toEqual([{ filename: "locked/", reason: "permission denied" }])
      const root = yield* Effect.flatMap(MemoryStore, (s) => s.scanTopics(dir)).pipe(Effect.provide(denyingListing(dir)))
      expect(root).toEqual({ topics: [], skipped: [] })
    })
  })
})
