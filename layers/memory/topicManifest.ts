/**
 * The manifests of the memory directories one process reads: every topic's header and its place in the ranking, kept
 * per directory and refreshed from what changed (manifestRefresh.ts), so a request in a folder that did not change
 * costs the same at 20 and 5,000 topics. `scan` gives every topic, newest first, and what was passed over; `rank`
 * also the topics that share a word with a text, best first, the first RANK_RECHECK_TOP of them stat-ed (and read
 * again when changed) so the likeliest picks are current. Headers come from a window of 30 lines and 65,536 bytes;
 * the ranking indexes the file name, `name`, description and the body within RANK_BODY_MAX_BYTES, once per change of
 * the file. Given a place to keep it (manifestCache.ts), a directory's first refresh in a process starts from the
 * manifest an earlier process kept, checked topic by topic, and a refresh that changed it keeps it again: its only
 * write, outside the memory folder. It never fails (what cannot be read is reported as skipped; an unreadable root is
 * an empty scan). `close` stops the watches (a process that watches: the extension).
 */
import * as Effect from "effect/Effect"
import { RANK_RECHECK_TOP } from "../../src/limits.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import { loadManifestCache, type ManifestCachePlace, saveManifestCache } from "./manifestCache.ts"
import { checkAndRead, refreshManifest, type RefreshOptions } from "./manifestRefresh.ts"
import { cacheOf, type Manifest, manifestFromCache, rankingOf, resultOf, stopWatches, topicsByName } from "./manifestState.ts"
import { type Candidate, newestTopicFirst, type ScanResult, type Topic } from "./topicScan.ts"

/** A scan with the topics ranked against a text. */
export interface RankedTopics extends ScanResult {
  /** The topics that share a word with the text, best first (ties: newest first). */
  readonly ranked: ReadonlyArray<Topic>
  /** The score of each of `ranked` (BM25, src/memory/topicRanking.ts), in the same order. */
  readonly scores: ReadonlyArray<number>
}

export interface TopicManifest {
  readonly scan: (memoryDir: string, thorough?: boolean) => Effect.Effect<ScanResult>
  readonly rank: (memoryDir: string, text: string, limit: number) => Effect.Effect<RankedTopics>
  readonly close: () => void
}

/** How many memory directories one process keeps a manifest of; the least recently used one is dropped. */
const MANIFESTS_KEPT = 8

const empty: ScanResult = { topics: [], skipped: [] }

export interface ManifestOptions extends RefreshOptions {
  /** Where each directory's manifest is kept between processes; none kept when absent. */
  readonly cache: ManifestCachePlace | undefined
}

export const makeTopicManifest = (fs: FileSystemShape, options: Partial<ManifestOptions> = {}): TopicManifest => {
  const settings: RefreshOptions = { now: options.now ?? Date.now, watch: options.watch ?? false }
  const place = options.cache
  const manifests = new Map<string, Manifest>()
  const cachePaths = new Map<string, string | undefined>()

  const cachePathOf = (memoryDir: string) =>
    place === undefined || cachePaths.has(memoryDir)
      ? Effect.succeed(cachePaths.get(memoryDir))
      : Effect.tap(place(memoryDir), (path) => Effect.sync(() => cachePaths.set(memoryDir, path)))

  // Runs on every request: untraced (a span per call costs tens of microseconds).
  const refresh = Effect.fnUntraced(function* (memoryDir: string, thorough: boolean) {
    let previous = manifests.get(memoryDir)
    const cachePath = place === undefined ? undefined : yield* cachePathOf(memoryDir)
    if (previous === undefined && cachePath !== undefined) {
      const kept = yield* loadManifestCache(fs, cachePath, memoryDir)
      if (kept !== undefined) previous = manifestFromCache(kept)
    }
    const m = yield* refreshManifest(fs, settings, previous, memoryDir, thorough)
    manifests.delete(memoryDir)
    if (m === undefined) return undefined
    if (m.dirty && cachePath !== undefined && m.entries.size > 0) yield* saveManifestCache(fs, cachePath, cacheOf(m, memoryDir, settings.now()))
    m.dirty = false
    manifests.set(memoryDir, m)
    if (manifests.size > MANIFESTS_KEPT) {
      const oldest = manifests.keys().next().value!
      stopWatches(manifests.get(oldest)!)
      manifests.delete(oldest)
    }
    return m
  })

  const scan = (memoryDir: string, thorough = false): Effect.Effect<ScanResult> =>
    Effect.map(refresh(memoryDir, thorough), (m) => (m === undefined ? empty : resultOf(m)))

  const rank = (memoryDir: string, text: string, limit: number): Effect.Effect<RankedTopics> =>
    Effect.gen(function* () {
      const m = yield* refresh(memoryDir, false)
      if (m === undefined) return { ...empty, ranked: [], scores: [] }
      const before = topicsByName(m)
      const hits = rankingOf(m).rank(text, limit, (a, b) => newestTopicFirst(before.get(a)!, before.get(b)!))
      const top = hits.slice(0, RANK_RECHECK_TOP).map((h) => m.entries.get(before.get(h.key)!.path)!)
      yield* checkAndRead(fs, m, top, new Map<string, Candidate>(), settings.now())
      const by = topicsByName(m)
      const ranked: Array<Topic> = []
      const scores: Array<number> = []
      for (const h of hits) {
        const topic = by.get(h.key)
        if (topic !== undefined) {
          ranked.push(topic)
          scores.push(h.score)
        }
      }
      return { ...resultOf(m), ranked, scores }
    })

  const close = () => {
    for (const m of manifests.values()) stopWatches(m)
    manifests.clear()
  }

  return { scan, rank, close }
}
