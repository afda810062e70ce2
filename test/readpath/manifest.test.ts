/**
 * The folder's manifest: a refresh of a folder that did not change lists nothing, reads nothing and stats the
 * folder and at most SCAN_RECHECK_PER_REFRESH topics, whatever the number of topics; a folder that moved is listed
 * again and only its own files are stat-ed; an edit in place is seen by the turn of checks (or at once by a thorough
 * scan); a folder changed within SCAN_RACY_MS of its stat is listed again; the best-ranked RANK_RECHECK_TOP topics
 * are stat-ed before they are returned. With watches, a change costs its own names: no listing, no other read.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readdirSync, renameSync, rmSync, utimesSync, watch } from "node:fs"
import { join } from "node:path"
import { RANK_RECHECK_TOP, SCAN_RACY_MS, SCAN_RECHECK_PER_REFRESH } from "../../src/limits.ts"
import { makeTopicManifest } from "../../layers/memory/topicManifest.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { withOverrides } from "../../layers/storage/fileSystemOverrides.ts"
import { tempDir, topicText, writeFileAt, writeTopics } from "../support/tmp.ts"

/** A manifest over the real file system, recording what it lists, stats and reads, with its own clock. */
const recorded = (clock: { now: number }, watch = false) => {
  const real = makeNodeFileSystem()
  const calls = { listed: [] as Array<string>, stated: [] as Array<Array<string>>, read: [] as Array<string> }
  const fs = withOverrides(real, {
    readDirectories: (paths) => {
      calls.listed.push(...paths)
      return real.readDirectories(paths)
    },
    statMany: (paths) => {
      calls.stated.push([...paths])
      return real.statMany(paths)
    },
    readHeads: (paths, max) => {
      calls.read.push(...paths)
      return real.readHeads(paths, max)
    }
  })
  const clear = () => {
    calls.listed.length = 0
    calls.stated.length = 0
    calls.read.length = 0
  }
  return { manifest: makeTopicManifest(fs, { now: () => clock.now, watch }), calls, clear }
}

/** Sets a folder's times back, so that it is not racy for a clock at `nowMs`. */
const settle = (dir: string, nowMs: number) => utimesSync(dir, (nowMs - 60_000) / 1000, (nowMs - 60_000) / 1000)

const topicStats = (stated: ReadonlyArray<ReadonlyArray<string>>) => stated.flat().filter((p) => p.endsWith(".md"))

describe("the manifest of a folder that did not change", () => {
  for (const count of [20, 1_000]) {
    it.effect(`costs the same at ${count} topics: no listing, no read, the folder and at most ${SCAN_RECHECK_PER_REFRESH} topics stat-ed`, () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeTopics(dir, count)
        const clock = { now: Date.now() }
        settle(dir, clock.now)
        const { manifest, calls, clear } = recorded(clock)
        expect((yield* manifest.scan(dir)).topics).toHaveLength(count)
        expect(calls.read).toHaveLength(count)
        clear()
        const again = yield* manifest.scan(dir)
        expect(again.topics).toHaveLength(count)
        expect(calls.listed).toEqual([])
        expect(calls.read).toEqual([])
        expect(calls.stated[0]).toEqual([dir])
        expect(topicStats(calls.stated)).toHaveLength(Math.min(count, SCAN_RECHECK_PER_REFRESH))
      }))
  }
})

describe("an edit in place, which leaves the folder's times alone", () => {
  // Each count is one side of SCAN_RECHECK_PER_REFRESH: every file edited in place after the first scan.
  for (const count of [SCAN_RECHECK_PER_REFRESH - 1, SCAN_RECHECK_PER_REFRESH, SCAN_RECHECK_PER_REFRESH + 1]) {
    it.effect(`is seen by the turn of checks: ${count} edited topics take ${Math.ceil(count / SCAN_RECHECK_PER_REFRESH)} refreshes`, () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const written = writeTopics(dir, count)
        const clock = { now: Date.now() }
        settle(dir, clock.now)
        const { manifest } = recorded(clock)
        yield* manifest.scan(dir)
        // Whole seconds, so the mtime reads back exactly.
        const edited = Math.floor(clock.now / 1000) * 1000 - 1_000
        for (const w of written) utimesSync(join(dir, w.filename), edited / 1000, edited / 1000)
        const seen = (topics: ReadonlyArray<{ readonly fileMtimeMs: number }>) => topics.filter((t) => t.fileMtimeMs === edited).length
        const first = yield* manifest.scan(dir)
        expect(seen(first.topics)).toBe(Math.min(count, SCAN_RECHECK_PER_REFRESH))
        const second = yield* manifest.scan(dir)
        expect(seen(second.topics)).toBe(count)
      }))
  }

  it.effect("is seen at once by a thorough scan, which stats every topic", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const written = writeTopics(dir, 200)
      const clock = { now: Date.now() }
      settle(dir, clock.now)
      const { manifest, calls, clear } = recorded(clock)
      yield* manifest.scan(dir)
      const target = join(dir, written[0]!.filename)
      writeFileAt(target, topicText({ name: "Edited", description: "rewritten in place" }))
      clear()
      const thorough = yield* manifest.scan(dir, true)
      expect(topicStats(calls.stated)).toHaveLength(200)
      expect(calls.read).toEqual([target])
      expect(thorough.topics.find((t) => t.filename === written[0]!.filename)?.description).toBe("rewritten in place")
    }))
})

describe("a folder that moved", () => {
  it.effect("is listed again; a new file is read, the folder's others stat-ed, an unmoved subfolder's left alone", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      writeTopics(dir, 30)
      const inner = writeTopics(join(dir, "sub"), 5, { prefix: "inner" })
      const clock = { now: Date.now() }
      settle(dir, clock.now)
      settle(join(dir, "sub"), clock.now)
      const { manifest, calls, clear } = recorded(clock)
      yield* manifest.scan(dir)
      writeFileAt(join(dir, "added.md"), topicText({ name: "Added", description: "new" }))
      clear()
      const after = yield* manifest.scan(dir)
      expect(after.topics.map((t) => t.filename)).toContain("added.md")
      expect(calls.listed).toContain(dir)
      expect(calls.read).toEqual([join(dir, "added.md")])
      const stated = topicStats(calls.stated)
      expect(stated.filter((p) => p.startsWith(join(dir, "topic-")))).toHaveLength(30)
      for (const w of inner) expect(stated).not.toContain(join(dir, "sub", w.filename))
    }))

  it.effect("a file replaced by a rename with the same times is read again and ranked anew; a removed one is dropped", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const written = writeTopics(dir, 10)
      const clock = { now: Date.now() }
      settle(dir, clock.now)
      const { manifest } = recorded(clock)
      yield* manifest.scan(dir)
      const target = join(dir, written[3]!.filename)
      writeFileAt(join(dir, "swap.tmp"), topicText({ name: "Topic 3", description: "Zeppelins land here", type: "project" }), written[3]!.mtimeMs)
      renameSync(join(dir, "swap.tmp"), target)
      rmSync(join(dir, written[5]!.filename))
      const after = yield* manifest.scan(dir)
      expect(after.topics.find((t) => t.filename === written[3]!.filename)?.description).toBe("Zeppelins land here")
      expect(after.topics.map((t) => t.filename)).not.toContain(written[5]!.filename)
      expect((yield* manifest.rank(dir, "zeppelin", 10)).ranked.map((t) => t.filename)).toEqual([written[3]!.filename])
      expect((yield* manifest.rank(dir, "topic 5", 10)).ranked.map((t) => t.filename)).not.toContain(written[5]!.filename)
    }))
})

describe("a folder changed shortly before its stat (SCAN_RACY_MS)", () => {
  for (const [after, relisted] of [[SCAN_RACY_MS - 1, true], [SCAN_RACY_MS, false], [SCAN_RACY_MS + 1, false]] as const) {
    it.effect(`stat-ed ${after} ms after its change is ${relisted ? "" : "not "}listed again at the next refresh`, () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeTopics(dir, 3)
        const changedMs = Math.floor(Date.now() / 1000) * 1000 - 10_000
        utimesSync(dir, changedMs / 1000, changedMs / 1000)
        const clock = { now: changedMs + after }
        const { manifest, calls, clear } = recorded(clock)
        yield* manifest.scan(dir)
        clear()
        yield* manifest.scan(dir)
        expect(calls.listed.includes(dir)).toBe(relisted)
      }))
  }
})

describe("the best-ranked topics", () => {
  for (const matching of [RANK_RECHECK_TOP - 1, RANK_RECHECK_TOP, RANK_RECHECK_TOP + 1]) {
    it.effect(`are stat-ed before they are returned: ${Math.min(matching, RANK_RECHECK_TOP)} of ${matching} matches`, () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeTopics(dir, 20)
        for (let i = 0; i < matching; i++) writeFileAt(join(dir, `zebra-${i}.md`), topicText({ name: `Zebra ${i}`, description: "stripes" }))
        const clock = { now: Date.now() }
        settle(dir, clock.now)
        const { manifest, calls, clear } = recorded(clock)
        yield* manifest.scan(dir)
        clear()
        const { ranked } = yield* manifest.rank(dir, "zebra stripes", 100)
        expect(ranked).toHaveLength(matching)
        // The refresh's own batch, then the ranking's check of its best topics.
        expect(calls.stated.at(-1)!.every((p) => p.includes("zebra-"))).toBe(true)
        expect(calls.stated.at(-1)).toHaveLength(Math.min(matching, RANK_RECHECK_TOP))
      }))
  }
})

describe("with watches (a long-lived process)", () => {
  /** A folder of `count` topics scanned once by a watching manifest, its folder settled so that the watch is trusted. */
  const watched = (count: number) =>
    Effect.gen(function* () {
      const dir = tempDir()
      const written = writeTopics(dir, count)
      const clock = { now: Date.now() }
      settle(dir, clock.now)
      const recording = recorded(clock, true)
      yield* recording.manifest.scan(dir)
      yield* Effect.addFinalizer(() => Effect.sync(recording.manifest.close))
      recording.clear()
      return { dir, written, ...recording }
    })

  it.scoped("a topic replaced in a folder of 500 costs its own read: no listing, the others left alone", () =>
    Effect.gen(function* () {
      const { dir, written, manifest, calls } = yield* watched(500)
      const target = join(dir, written[250]!.filename)
      writeFileAt(join(dir, "swap.tmp"), topicText({ name: "Swapped", description: "replaced by a rename" }))
      renameSync(join(dir, "swap.tmp"), target)
      const after = yield* manifest.scan(dir)
      expect(after.topics.find((t) => t.filename === written[250]!.filename)?.description).toBe("replaced by a rename")
      expect(calls.listed).toEqual([])
      expect(calls.read).toEqual([target])
      expect(topicStats(calls.stated).length).toBeLessThanOrEqual(SCAN_RECHECK_PER_REFRESH + 1)
    }))

  it.scoped("a topic added or removed is found by name, and a new subfolder by a walk", () =>
    Effect.gen(function* () {
      const { dir, written, manifest, calls, clear } = yield* watched(100)
      writeFileAt(join(dir, "added.md"), topicText({ name: "Added", description: "new" }))
      rmSync(join(dir, written[7]!.filename))
      const after = yield* manifest.scan(dir)
      expect(after.topics.map((t) => t.filename)).toContain("added.md")
      expect(after.topics.map((t) => t.filename)).not.toContain(written[7]!.filename)
      expect(after.topics).toHaveLength(100)
      expect(calls.listed).toEqual([])
      expect(calls.read).toEqual([join(dir, "added.md")])
      clear()
      writeFileAt(join(dir, "deeper", "inner.md"), topicText({ name: "Inner", description: "in a new folder" }))
      const deeper = yield* manifest.scan(dir)
      expect(deeper.topics.map((t) => t.filename)).toContain("deeper/inner.md")
      expect(calls.listed).toContain(dir)
    }))

  it.scoped("an edit in place beyond the turn of checks is seen at the next refresh (and is not without a watch)", () =>
    Effect.gen(function* () {
      const { dir, manifest } = yield* watched(500)
      // The last file listed is the last in the turn of checks: the first refresh's checks do not reach it.
      const last = readdirSync(dir).filter((n) => n.endsWith(".md")).at(-1)!
      const unwatched = recorded({ now: Date.now() })
      yield* unwatched.manifest.scan(dir)
      const edited = Math.floor(Date.now() / 1000) * 1000 - 5_000
      // The refresh comes after the edit's event, as a person's next request does: a watch of the test's own sees it
      // in the same turn of the event loop as the manifest's.
      yield* Effect.async<void>((resume) => {
        const own = watch(dir, { persistent: false }, (_event, name) => {
          if (name !== last) return
          own.close()
          resume(Effect.void)
        })
        utimesSync(join(dir, last), edited / 1000, edited / 1000)
      })
      const mtimeOf = (topics: ReadonlyArray<{ readonly filename: string; readonly fileMtimeMs: number }>) => topics.find((t) => t.filename === last)?.fileMtimeMs
      expect(mtimeOf((yield* manifest.scan(dir)).topics)).toBe(edited)
      expect(mtimeOf((yield* unwatched.manifest.scan(dir)).topics)).not.toBe(edited)
    }))

  it.scoped("kept up to date one change at a time, it scans and ranks as a fresh manifest does", () =>
    Effect.gen(function* () {
      const { dir, written, manifest } = yield* watched(120)
      const now = Date.now()
      for (let round = 0; round < 6; round++) {
        const target = join(dir, written[round * 13]!.filename)
        writeFileAt(join(dir, "swap.tmp"), topicText({ name: `Swapped ${round}`, description: `kiwi round ${round}` }), now - round * 7_000)
        renameSync(join(dir, "swap.tmp"), target)
        writeFileAt(join(dir, `added-${round}.md`), topicText({ name: `Added ${round}`, description: "kiwi added" }), now - 90_000 * round)
        rmSync(join(dir, written[round * 13 + 1]!.filename))
        yield* manifest.rank(dir, "kiwi", 50)
      }
      const fresh = recorded({ now: Date.now() }).manifest
      const view = (r: { readonly topics: ReadonlyArray<{ readonly filename: string; readonly description: string | undefined; readonly fileMtimeMs: number }> }) =>
        r.topics.map((t) => `${t.filename} ${t.description} ${t.fileMtimeMs}`)
      expect(view(yield* manifest.scan(dir))).toEqual(view(yield* fresh.scan(dir)))
      const names = (r: { readonly ranked: ReadonlyArray<{ readonly filename: string }> }) => r.ranked.map((t) => t.filename)
      expect(names(yield* manifest.rank(dir, "kiwi", 50))).toEqual(names(yield* fresh.rank(dir, "kiwi", 50)))
    }))
})
