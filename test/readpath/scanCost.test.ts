/** The scan opens and parses only what it keeps: the newest 200, plus whatever it had to skip on the way. */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { FileSystem, FsError, makeNodeFileSystem } from "../../layers/FileSystem.ts"
import { MemoryStore } from "../../layers/MemoryStore.ts"
import { tempDir, writeFileAt, writeTopics } from "../support/tmp.ts"

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
  it.effect("of 1,000 topics only the 200 newest headers are read, and a second scan reads none", () => {
    const dir = tempDir()
    const written = writeTopics(dir, 1000)
    const { opened, layer } = counting()
    return Effect.gen(function* () {
      const store = yield* MemoryStore
      const first = yield* store.scanTopics(dir)
      expect(first.topics).toHaveLength(200)
      expect(first.topics[0]!.filename).toBe(written[999]!.filename)
      expect(first.skipped.filter((s) => s.reason.startsWith("older than"))).toHaveLength(800)
      expect(opened).toHaveLength(200)
      expect(new Set(opened)).toEqual(new Set(written.slice(800).map((w) => join(dir, w.filename))))
      opened.length = 0
      const second = yield* store.scanTopics(dir)
      expect(second.topics.map((t) => t.filename)).toEqual(first.topics.map((t) => t.filename))
      expect(opened).toHaveLength(0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a changed file is read again, the others come from the cache", () => {
    const dir = tempDir()
    const written = writeTopics(dir, 205)
    const { opened, layer } = counting()
    return Effect.gen(function* () {
      const store = yield* MemoryStore
      yield* store.scanTopics(dir)
      opened.length = 0
      const changed = join(dir, written[204]!.filename)
      writeFileAt(changed, "---\nname: Changed\ndescription: now different\n---\n", Date.now())
      const again = yield* store.scanTopics(dir)
      expect(opened).toEqual([changed])
      expect(again.topics[0]!.description).toBe("now different")
    }).pipe(Effect.provide(layer))
  })

  it.effect("an unreadable file among the newest makes room for the next older one", () => {
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
      expect(result.topics).toHaveLength(200)
      expect(result.topics.map((t) => t.filename)).toEqual(written.slice(4, 204).map((w) => w.filename).reverse())
      expect(result.skipped).toContainEqual({ filename: written[204]!.filename, reason: "permission denied" })
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
