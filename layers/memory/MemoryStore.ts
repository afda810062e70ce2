/**
 * MemoryStore: the read path over one memory directory. Public entries (`readIndex`, `scanTopics`) never fail:
 * memory problems must not block a user's prompt. The lower-level `readIndexFile` and `backfillIndex` keep their
 * typed errors for callers that want them. This module holds the service and puts its parts together: the scan
 * (topicScan.ts), MEMORY.md as it is (indexFile.ts) and backfilled (indexBackfill.ts), one topic's recall window
 * (topicRead.ts) and lint (memoryLint.ts). The manifests are kept between processes in the memory root's state
 * folder (manifestCache.ts) when the graph holds a ConfigService.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { catalogOf } from "../../src/memory/catalog.ts"
import * as Option from "effect/Option"
import { ConfigService } from "../project/ConfigService.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { manifestCacheIn, type ManifestCachePlace } from "./manifestCache.ts"
import { type BackfillError, makeIndexBackfill } from "./indexBackfill.ts"
import { type IndexReadError, type IndexSummary, makeIndexFile } from "./indexFile.ts"
import type { FileLint } from "./memoryLint.ts"
import { makeTopicRead, type RecallRead, type TopicReadError } from "./topicRead.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import { makeTopicManifest, type RankedTopics, type TopicManifest } from "./topicManifest.ts"
import type { ScanResult, Topic } from "./topicScan.ts"

export interface MemoryStoreShape {
  /** Trimmed index text ("" on any failure), backfilling a missing index from the topics. */
  readonly readIndex: (memoryDir: string) => Effect.Effect<IndexSummary>
  /** The index as it is, for inspection: never backfilled, never created. */
  readonly peekIndex: (memoryDir: string) => Effect.Effect<IndexSummary>
  readonly readIndexFile: (memoryDir: string) => Effect.Effect<string, IndexReadError>
  /** Creates MEMORY.md from the topics unless it exists; returns what is on disk afterwards. */
  readonly backfillIndex: (memoryDir: string, topics: ReadonlyArray<Topic>) => Effect.Effect<string, BackfillError>
  /**
   * Every topic, newest first, and what was passed over, from the folder's manifest (refreshed from what changed;
   * `thorough` also stats every topic file, for a person's command that must see an edit made in place at once).
   */
  readonly scanTopics: (memoryDir: string, options?: { readonly thorough?: boolean }) => Effect.Effect<ScanResult>
  /** The scan, with the topics that share a word with `text` ranked best first (at most `limit`). */
  readonly rankTopics: (memoryDir: string, text: string, limit: number) => Effect.Effect<RankedTopics>
  readonly catalog: (topics: ReadonlyArray<Topic>) => string
  readonly readForRecall: (memoryDir: string, filename: string) => Effect.Effect<RecallRead, TopicReadError>
  /** Lints the given topic files (relative or absolute), or all topics and the index when none are given. */
  readonly lint: (memoryDir: string, files?: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<FileLint>>
}

const makeStoreOver = (fs: FileSystemShape, manifest: TopicManifest): MemoryStoreShape => {
  const scanTopics = (memoryDir: string, options?: { readonly thorough?: boolean }) => manifest.scan(memoryDir, options?.thorough === true)
  const { readIndexFile, peekIndex } = makeIndexFile(fs)
  const { backfillIndex, readIndex } = makeIndexBackfill(fs, readIndexFile, scanTopics)
  return {
    readIndex,
    peekIndex,
    readIndexFile,
    backfillIndex,
    scanTopics,
    rankTopics: manifest.rank,
    catalog: catalogOf,
    readForRecall: makeTopicRead(fs),
    // Lint's rules (the credential detector among them) load when a lint runs, not with every reader of memory.
    lint: (memoryDir, files) =>
      Effect.flatMap(Effect.promise(() => import("./memoryLint.ts")), (m) => m.makeMemoryLint(fs, readIndexFile, scanTopics)(memoryDir, files))
  } satisfies MemoryStoreShape
}

/**
 * Where the manifests are kept between processes: beside the other state of each memory root, when the graph has a
 * ConfigService to say where that is (every entry's core does; a store built over a FileSystem alone keeps none).
 */
const cachePlace = (fs: FileSystemShape): Effect.Effect<ManifestCachePlace | undefined> =>
  Effect.map(Effect.serviceOption(ConfigService), (config) => (Option.isSome(config) ? manifestCacheIn(fs, config.value.storageRoot) : undefined))

/** The store of a process that reads memory a few times (`pm`, tests): its manifests are checked by stat alone. */
export const makeMemoryStore = Effect.gen(function* () {
  const fs = yield* FileSystem
  return makeStoreOver(fs, makeTopicManifest(fs, { cache: yield* cachePlace(fs) }))
})

/**
 * The store of a long-lived process (the extension): each memory folder is also watched, so a change costs in
 * proportion to what changed; the watches stop with the scope.
 */
export const makeWatchingMemoryStore = Effect.gen(function* () {
  const fs = yield* FileSystem
  const manifest = makeTopicManifest(fs, { watch: true, cache: yield* cachePlace(fs) })
  yield* Effect.addFinalizer(() => Effect.sync(manifest.close))
  return makeStoreOver(fs, manifest)
})

export class MemoryStore extends Context.Tag("pm/MemoryStore")<MemoryStore, MemoryStoreShape>() {
  static readonly layer: Layer.Layer<MemoryStore, never, FileSystem> = Layer.effect(MemoryStore, makeMemoryStore)
}
