/**
 * The manifest kept between processes (layers/memory/manifestCache.ts): a new manifest over the same kept file reads
 * no topic when nothing changed and gives the same scan and ranking as a cold one; a changed (same size, same mtime),
 * added, removed or renamed topic is always seen; a topic changed within SCAN_RACY_MS of its reading is read again;
 * a corrupt, foreign or other-version file is ignored and made again; the file's size bound holds at, below and above
 * MANIFEST_CACHE_MAX_BYTES. Each "process" is a new manifest over the real file system, with its own clock.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { existsSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { MANIFEST_CACHE_MAX_BYTES, SCAN_RACY_MS } from "../../src/limits.ts"
import { loadManifestCache, saveManifestCache } from "../../layers/memory/manifestCache.ts"
import { type CachedManifest, changedNear, decodeManifestCache, encodeManifestCache } from "../../layers/memory/manifestCacheFormat.ts"
import { makeTopicManifest } from "../../layers/memory/topicManifest.ts"
import { withOverrides } from "../../layers/storage/fileSystemOverrides.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { tempDir, topicText, writeFileAt, writeTopics } from "../support/tmp.ts"

const real = makeNodeFileSystem()

/** One process's manifest: its own clock (ms) and the kept file at `cacheFile`; records the topics it reads. */
const process_ = (cacheFile: string, nowMs: number | { readonly now: number }, watch = false) => {
  const read: Array<string> = []
  const fs = withOverrides(real, {
    readHeads: (paths, max) => {
      read.push(...paths.filter((p) => p.endsWith(".md")))
      return real.readHeads(paths, max)
    }
  })
  const now = typeof nowMs === "number" ? () => nowMs : () => nowMs.now
  return { manifest: makeTopicManifest(fs, { now, watch, cache: () => Effect.succeed(cacheFile) }), read }
}

/** A memory of `count` topics and a place for its kept manifest; `later` is a clock past every file's racy window. */
const setup = (count: number) => {
  const dir = tempDir()
  writeTopics(dir, count)
  const cacheFile = join(tempDir("pm-state-"), "memory-roots", "abc", "topic-manifest.json")
  return { dir, cacheFile, later: Date.now() + 10 * SCAN_RACY_MS }
}

const names = (r: { readonly topics: ReadonlyArray<{ readonly filename: string }> }) => r.topics.map((t) => t.filename)

/** Rewrites a topic in place with the same size and mtime: only its ctime (and content) change. */
const editInPlace = (path: string, from: string, to: string) => {
  const before = statSync(path)
  const text = readFileSync(path, "utf8")
  expect(to.length).toBe(from.length)
  writeFileSync(path, text.replace(from, to))
  utimesSync(path, before.atime, before.mtime)
  expect(statSync(path).size).toBe(before.size)
}

describe("the kept manifest", () => {
  it.effect("a new process reads no topic when nothing changed, and scans and ranks as a cold one does", () =>
    Effect.gen(function* () {
      const { dir, cacheFile, later } = setup(40)
      const first = process_(cacheFile, later)
      const cold = yield* first.manifest.scan(dir)
      expect(first.read).toHaveLength(40)
      expect(existsSync(cacheFile)).toBe(true)
      const coldRank = yield* first.manifest.rank(dir, "topic 7 about", 10)
      const second = process_(cacheFile, later + 1)
      const warm = yield* second.manifest.scan(dir)
      expect(second.read).toHaveLength(0)
      expect(warm).toEqual(cold)
      const warmRank = yield* second.manifest.rank(dir, "topic 7 about", 10)
      expect(warmRank.ranked.map((t) => t.filename)).toEqual(coldRank.ranked.map((t) => t.filename))
      expect(warmRank.scores).toEqual(coldRank.scores)
    }))

  it.effect("a watching process (the extension) starts from the kept manifest too, and keeps what it then reads", () =>
    Effect.gen(function* () {
      const { dir, cacheFile, later } = setup(30)
      yield* process_(cacheFile, later).manifest.scan(dir)
      const pi = process_(cacheFile, later + 1, true)
      try {
        expect(names(yield* pi.manifest.scan(dir))).toHaveLength(30)
        expect(pi.read).toHaveLength(0)
        writeFileAt(join(dir, "new.md"), topicText({ name: "New", description: "Seen by the watch", type: "user" }), later - 60_000)
        rmSync(join(dir, "topic-n0003.md"))
        const after = yield* pi.manifest.scan(dir, true)
        expect(names(after)).toContain("new.md")
        expect(names(after)).not.toContain("topic-n0003.md")
      } finally {
        pi.manifest.close()
      }
      const next = process_(cacheFile, Date.now() + 10 * SCAN_RACY_MS)
      const scan = yield* next.manifest.scan(dir)
      expect(names(scan)).toContain("new.md")
      expect(names(scan)).not.toContain("topic-n0003.md")
    }))

  it.effect("sees a topic changed in place with the same size and mtime", () =>
    Effect.gen(function* () {
      const { dir, cacheFile, later } = setup(5)
      yield* process_(cacheFile, later).manifest.scan(dir)
      const path = join(dir, "topic-n0002.md")
      editInPlace(path, "What topic 2 is about", "WHAT TOPIC 2 IS ABOUT")
      const next = process_(cacheFile, Date.now() + 10 * SCAN_RACY_MS)
      const scan = yield* next.manifest.scan(dir)
      expect(next.read).toEqual([path])
      expect(scan.topics.find((t) => t.filename === "topic-n0002.md")!.description).toBe("WHAT TOPIC 2 IS ABOUT")
      // The ranking takes the new words too.
      const ranked = yield* next.manifest.rank(dir, "TOPIC", 10)
      expect(ranked.ranked.map((t) => t.filename)).toContain("topic-n0002.md")
    }))

  it.effect("sees an added, a removed and a renamed topic", () =>
    Effect.gen(function* () {
      const { dir, cacheFile, later } = setup(5)
      const cold = yield* process_(cacheFile, later).manifest.scan(dir)
      const folderTimes = statSync(dir)
      writeFileAt(join(dir, "added.md"), topicText({ name: "Added", description: "New one", type: "user" }), later - 60_000)
      rmSync(join(dir, "topic-n0000.md"))
      renameSync(join(dir, "topic-n0001.md"), join(dir, "renamed.md"))
      // The folder's times put back: the listing, not the folder's mtime, finds what changed.
      utimesSync(dir, folderTimes.atime, folderTimes.mtime)
      const next = process_(cacheFile, Date.now() + 10 * SCAN_RACY_MS)
      const scan = yield* next.manifest.scan(dir)
      expect(names(scan).sort()).toEqual(["added.md", "renamed.md", "topic-n0002.md", "topic-n0003.md", "topic-n0004.md"])
      expect(next.read.map((p) => p.slice(dir.length + 1)).sort()).toEqual(["added.md", "renamed.md"])
      expect(scan.topics.find((t) => t.filename === "renamed.md")!.description).toBe(cold.topics.find((t) => t.filename === "topic-n0001.md")!.description)
      const ranked = yield* next.manifest.rank(dir, "topic", 10)
      expect(ranked.ranked.map((t) => t.filename)).not.toContain("topic-n0001.md")
    }))

  it.effect(`reads again a topic changed within ${SCAN_RACY_MS} ms of its reading; one changed just before is trusted`, () =>
    Effect.gen(function* () {
      const { dir, cacheFile } = setup(3)
      // The topic changed last (each file's ctime is its writing): the window is counted from its change.
      const times = ["topic-n0000.md", "topic-n0001.md", "topic-n0002.md"].map((f) => {
        const st = statSync(join(dir, f))
        return { path: join(dir, f), at: Math.max(st.mtimeMs, st.ctimeMs) }
      })
      const { path, at: changedAt } = times.reduce((a, b) => (b.at > a.at ? b : a))
      // Read one ms inside the window: kept out of the file, read again by the next process.
      yield* process_(cacheFile, changedAt + SCAN_RACY_MS - 1).manifest.scan(dir)
      const racy = process_(cacheFile, changedAt + 100 * SCAN_RACY_MS)
      yield* racy.manifest.scan(dir)
      expect(racy.read).toContain(path)
      // Read at the window's edge: trusted.
      rmSync(cacheFile)
      yield* process_(cacheFile, changedAt + SCAN_RACY_MS + 1).manifest.scan(dir)
      const settled = process_(cacheFile, changedAt + 100 * SCAN_RACY_MS)
      yield* settled.manifest.scan(dir)
      expect(settled.read).toEqual([])
    }))

  it.effect("a long-lived process keeps out a topic that was racy when it read it, even when it keeps the file later", () =>
    Effect.gen(function* () {
      const { dir, cacheFile } = setup(3)
      const path = join(dir, "topic-n0001.md")
      const changedAt = Math.max(statSync(path).mtimeMs, statSync(path).ctimeMs)
      const clock = { now: changedAt + SCAN_RACY_MS - 1 }
      const long = process_(cacheFile, clock)
      yield* long.manifest.scan(dir)
      // Much later a new topic makes it keep the manifest again, at a time past every racy window.
      clock.now = changedAt + 100 * SCAN_RACY_MS
      writeFileAt(join(dir, "later.md"), topicText({ name: "Later", description: "Later", type: "user" }), changedAt - 60_000)
      yield* long.manifest.scan(dir, true)
      const next = process_(cacheFile, changedAt + 200 * SCAN_RACY_MS)
      yield* next.manifest.scan(dir)
      expect(next.read).toContain(path)
    }))

  it("changedNear: at SCAN_RACY_MS after the change it is settled, one ms before it is not", () => {
    const info = { kind: "file", size: 1, mtimeMs: 1_000, ctimeMs: 500, mode: 0o644, ino: 1, dev: 1 } as const
    expect(changedNear(info, 1_000 + SCAN_RACY_MS - 1)).toBe(true)
    expect(changedNear(info, 1_000 + SCAN_RACY_MS)).toBe(false)
    expect(changedNear({ ...info, ctimeMs: 2_000 }, 1_000 + SCAN_RACY_MS)).toBe(true)
  })

  it("a kept file leaves out, on reading, a topic changed within SCAN_RACY_MS of the file's writing", () => {
    const entry = (mtimeMs: number) => ({
      candidate: { path: `/m/${mtimeMs}.md`, filename: `${mtimeMs}.md`, folder: "/m" },
      info: { kind: "file", size: 1, mtimeMs, ctimeMs: 0, mode: 0o644, ino: mtimeMs, dev: 1 },
      topic: { filename: `${mtimeMs}.md`, path: `/m/${mtimeMs}.md`, name: undefined, description: undefined, type: undefined, fileMtimeMs: mtimeMs, mtimeMs, headerProblem: undefined },
      terms: "0",
      // Read long after: the writer's own check lets both through; the reader's check is the one under test.
      readAtMs: 1_000_000
    }) as const
    const writtenAtMs = 10_000
    const text = encodeManifestCache({ memoryDir: "/m", writtenAtMs, entries: [entry(writtenAtMs - SCAN_RACY_MS), entry(writtenAtMs - SCAN_RACY_MS + 1)] })!
    expect(decodeManifestCache(text, "/m")!.entries.map((e) => e.info.mtimeMs)).toEqual([writtenAtMs - SCAN_RACY_MS])
  })

  for (const [what, spoil] of [
    ["truncated", (t: string) => t.slice(0, t.length / 2)],
    ["of another format", (t: string) => t.replace(/"format":"[^"]*"/, '"format":"some other manifest"')],
    ["of another version", (t: string) => t.replace(/"version":\d+/, '"version":999')],
    ["of another memory directory", (t: string) => t.replace(/"memoryDir":"[^"]*"/, '"memoryDir":"/elsewhere"')],
    ["with a field of the wrong type", (t: string) => t.replace(/"entries":\[\["[^"]*"/, '"entries":[[7')],
    ["with a row of another length", (t: string) => t.replace(/"entries":\[\["/, '"entries":[[7,"')],
    ["not ours at all", () => JSON.stringify({ hello: "world" })]
  ] as const) {
    it.effect(`ignores a kept file ${what}, reads every topic and keeps a good one again`, () =>
      Effect.gen(function* () {
        const { dir, cacheFile, later } = setup(4)
        const cold = yield* process_(cacheFile, later).manifest.scan(dir)
        writeFileSync(cacheFile, spoil(readFileSync(cacheFile, "utf8")))
        const next = process_(cacheFile, later + 1)
        expect(yield* next.manifest.scan(dir)).toEqual(cold)
        expect(next.read).toHaveLength(4)
        const again = process_(cacheFile, later + 2)
        yield* again.manifest.scan(dir)
        expect(again.read).toHaveLength(0)
      }))
  }

  it.effect("a kept topic whose word counts are damaged stays listed and ranked by its other topics' words", () =>
    Effect.gen(function* () {
      const { dir, cacheFile, later } = setup(3)
      const cold = yield* process_(cacheFile, later).manifest.scan(dir)
      writeFileSync(cacheFile, readFileSync(cacheFile, "utf8").replace(/"(\d+ [^"]*)"\]/, '"x y z"]'))
      const next = process_(cacheFile, later + 1)
      expect(yield* next.manifest.scan(dir)).toEqual(cold)
      expect((yield* next.manifest.rank(dir, "topic", 10)).ranked.length).toBeGreaterThanOrEqual(2)
    }))
})

describe(`the kept file's bound, MANIFEST_CACHE_MAX_BYTES (${MANIFEST_CACHE_MAX_BYTES})`, () => {
  const kept = (terms: string): CachedManifest => ({
    memoryDir: "/m",
    writtenAtMs: 10_000_000,
    entries: [{
      candidate: { path: "/m/a.md", filename: "a.md", folder: "/m" },
      info: { kind: "file", size: 1, mtimeMs: 1, ctimeMs: 1, mode: 0o644, ino: 1, dev: 1 },
      topic: { filename: "a.md", path: "/m/a.md", name: "A", description: "a", type: "user", fileMtimeMs: 1, mtimeMs: 1, headerProblem: undefined },
      terms,
      readAtMs: 10_000_000
    }]
  })
  const overhead = encodeManifestCache(kept(""))!.length

  it("is written at the bound and not one byte above it", () => {
    const at = "w".repeat(MANIFEST_CACHE_MAX_BYTES - overhead)
    expect(Buffer.byteLength(encodeManifestCache(kept(at))!)).toBe(MANIFEST_CACHE_MAX_BYTES)
    expect(encodeManifestCache(kept(`${at}w`))).toBeUndefined()
    expect(encodeManifestCache(kept(at.slice(1)))).toBeDefined()
  })

  it.effect("is read at the bound and below, ignored above it", () =>
    Effect.gen(function* () {
      const path = join(tempDir("pm-state-"), "topic-manifest.json")
      const text = encodeManifestCache(kept("1 a 1"))!
      for (const [size, read] of [[MANIFEST_CACHE_MAX_BYTES - 1, true], [MANIFEST_CACHE_MAX_BYTES, true], [MANIFEST_CACHE_MAX_BYTES + 1, false]] as const) {
        writeFileSync(path, text.padEnd(size, " "))
        expect((yield* loadManifestCache(real, path, "/m")) !== undefined).toBe(read)
      }
    }))

  it.effect("a manifest above the bound is not written, and an older kept file is removed", () =>
    Effect.gen(function* () {
      const path = join(tempDir("pm-state-"), "sub", "topic-manifest.json")
      yield* saveManifestCache(real, path, kept("1 a 1"), 10_000)
      expect(existsSync(path)).toBe(true)
      yield* saveManifestCache(real, path, kept(`1 ${"a".repeat(10_000)} 1`), 10_000)
      expect(existsSync(path)).toBe(false)
    }))
})
