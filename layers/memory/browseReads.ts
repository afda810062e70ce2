/**
 * The reading half of MemoryBrowse: list (a page of every topic, and how many there are), show and search the topics
 * of one memory directory, and their names for completions. Every topic is reachable, however many there are. A missing or unreadable directory is MemoryDirUnreadable (an error of the command, not an empty
 * memory); a name that denotes no topic is TopicRefused. Reads go through MemoryStore and FileSystem and never
 * create anything: the index is read as it is, never backfilled. The checks and the name resolution here are the
 * ones forget and remember run before they change memory.
 */
import type * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { MEMORY_REWRITE_MAX_BYTES, SCAN_MAX_TOPICS } from "../../src/limits.ts"
import { isBinaryContent } from "../../src/memory/binaryText.ts"
import type { MemoryType } from "../../src/memory/frontmatter.ts"
import { indexLinkedFiles, type NameResolution, resolveTopicName } from "../../src/memory/topicNames.ts"
import { searchDocuments } from "../../src/memory/topicSearch.ts"
import { ageInDays, stalenessNote } from "../../src/memory/staleness.ts"
import { INDEX_FILE } from "../../src/storage/layout.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { FsReason } from "../storage/FsError.ts"
import type { MemoryStore } from "./MemoryStore.ts"
import type { JournalShape } from "../writes/Journal.ts"
import { type TopicSource, topicSource } from "./topicSource.ts"
import type { Topic } from "./topicScan.ts"

/** Largest topic file `show` and `search` read whole. */
const READ_MAX_BYTES = 4 * 1024 * 1024

/** The memory directory is missing or cannot be read: an error of the command, not an empty memory. */
export class MemoryDirUnreadable extends Data.TaggedError("MemoryDirUnreadable")<{
  readonly path: string
  readonly reason: FsReason
}> {
  override get message(): string {
    return this.reason === "NotFound"
      ? `memory directory ${this.path} does not exist`
      : this.reason === "NotADirectory" || this.reason === "NotAFile"
      ? `memory directory ${this.path} is not a directory`
      : `memory directory ${this.path} cannot be read (${this.reason})`
  }
}

/** A name given to show or forget that denotes no topic (or one outside memory). */
export class TopicRefused extends Data.TaggedError("TopicRefused")<{
  readonly name: string
  readonly problem: "outside-memory" | "index" | "unknown"
  readonly reason: string
}> {
  override get message(): string {
    return this.reason
  }
}

export interface ListedTopic {
  readonly filename: string
  readonly name: string | null
  readonly type: MemoryType | null
  readonly description: string | null
  readonly mtime: string
  readonly ageDays: number
  readonly linked: boolean
  readonly headerProblem: string | null
}

/** Which topics a listing holds: `limit` (0 for all; SCAN_MAX_TOPICS when not given) from the `offset`-th newest. */
export interface ListPage {
  readonly offset?: number
  readonly limit?: number
}

export interface Listing {
  readonly memoryDir: string
  readonly indexExists: boolean
  /** Every topic of the folder, of which the page holds `topics`, starting at the `offset`-th newest (0 is the newest). */
  readonly total: number
  readonly offset: number
  readonly topics: ReadonlyArray<ListedTopic>
  readonly skipped: ReadonlyArray<{ readonly filename: string; readonly reason: string }>
}

export interface ShownTopic extends ListedTopic {
  readonly path: string
  readonly stale: boolean
  readonly staleness: string | null
  /** The text; empty for a file that is not text (`binary`). */
  readonly content: string
  readonly truncated: boolean
  /** Not text (NUL bytes, not UTF-8, control characters): its content is not shown. */
  readonly binary: boolean
  /** The file's size in bytes. */
  readonly sizeBytes: number
  /** Where its content came from, as journaled (null: not recorded, or not looked up). */
  readonly source: TopicSource | null
}

const decoder = new TextDecoder()

/** Fails unless `memoryDir` is a directory that can be listed. */
export const checkDir = (fs: FileSystemShape, memoryDir: string): Effect.Effect<void, MemoryDirUnreadable> =>
  fs.stat(memoryDir).pipe(
    Effect.mapError((e) => new MemoryDirUnreadable({ path: memoryDir, reason: e.reason })),
    Effect.flatMap((info) =>
      info.kind === "directory"
        ? fs.readDirectory(memoryDir).pipe(
          Effect.asVoid,
          Effect.mapError((e) => new MemoryDirUnreadable({ path: memoryDir, reason: e.reason }))
        )
        : Effect.fail(new MemoryDirUnreadable({ path: memoryDir, reason: "NotADirectory" }))
    )
  )

/**
 * The index's text as it is on disk ("" when missing), for which topics it links; never backfilled here. Read up to
 * MEMORY_REWRITE_MAX_BYTES, as forget and remember read it; it is never written from (they read it as bytes).
 */
export const rawIndex = (fs: FileSystemShape, memoryDir: string) =>
  fs.readRegularFile(join(memoryDir, INDEX_FILE), MEMORY_REWRITE_MAX_BYTES).pipe(
    Effect.map((r) => ({ exists: true, text: decoder.decode(r.bytes) })),
    Effect.orElseSucceed(() => ({ exists: false, text: "" }))
  )

/** The scanned topic `name` denotes, or TopicRefused. */
export const resolveName = (name: string, topics: ReadonlyArray<Topic>) => {
  const r: NameResolution = resolveTopicName(name, topics)
  return r._tag === "Found"
    ? Effect.succeed(topics.find((t) => t.filename === r.filename)!)
    : Effect.fail(new TopicRefused({ name: r.name, problem: r.problem, reason: r.reason }))
}

const describe = (t: Topic, linked: ReadonlySet<string>, nowMs: number): ListedTopic => ({
  filename: t.filename,
  name: t.name ?? null,
  type: t.type ?? null,
  description: t.description ?? null,
  mtime: new Date(t.fileMtimeMs).toISOString(),
  ageDays: ageInDays(t.fileMtimeMs, nowMs),
  linked: linked.has(t.filename),
  headerProblem: t.headerProblem ?? null
})

export const makeBrowseReads = (fs: FileSystemShape, store: Context.Tag.Service<MemoryStore>, journal?: JournalShape) => {
  const list = Effect.fn("MemoryBrowse.list")(function*(memoryDir: string, nowMs: number = Date.now(), page: ListPage = {}) {
    yield* checkDir(fs, memoryDir)
    const index = yield* rawIndex(fs, memoryDir)
    const linked = indexLinkedFiles(index.text)
    // A person's command: every topic is checked by a stat, so an edit made in place a moment ago shows.
    const { topics, skipped } = yield* store.scanTopics(memoryDir, { thorough: true })
    const offset = Math.max(0, Math.floor(page.offset ?? 0))
    const limit = page.limit ?? SCAN_MAX_TOPICS
    const shown = topics.slice(offset, limit <= 0 ? undefined : offset + limit)
    return {
      memoryDir,
      indexExists: index.exists,
      total: topics.length,
      offset,
      topics: shown.map((t) => describe(t, linked, nowMs)),
      skipped
    } satisfies Listing
  })

  const show = Effect.fn("MemoryBrowse.show")(function*(memoryDir: string, name: string, nowMs: number = Date.now(), rootDir?: string) {
    yield* checkDir(fs, memoryDir)
    const { topics } = yield* store.scanTopics(memoryDir, { thorough: true })
    const topic = yield* resolveName(name, topics)
    const read = yield* fs.readRegularFile(topic.path, READ_MAX_BYTES).pipe(
      Effect.mapError(() => new TopicRefused({ name, problem: "unknown", reason: `${topic.filename} cannot be read` }))
    )
    const linked = indexLinkedFiles((yield* rawIndex(fs, memoryDir)).text)
    const note = stalenessNote(topic.fileMtimeMs, nowMs)
    const binary = isBinaryContent(read.bytes)
    const source = journal === undefined || rootDir === undefined || read.partial ? null : yield* topicSource(journal, rootDir, topic.filename, read.bytes)
    return {
      ...describe(topic, linked, nowMs),
      path: topic.path,
      stale: note !== undefined,
      staleness: note ?? null,
      content: binary ? "" : decoder.decode(read.bytes),
      truncated: read.partial,
      binary,
      sizeBytes: read.info.size,
      source
    } satisfies ShownTopic
  })

  const search = Effect.fn("MemoryBrowse.search")(function*(memoryDir: string, query: string) {
    yield* checkDir(fs, memoryDir)
    const { topics } = yield* store.scanTopics(memoryDir, { thorough: true })
    // One batch of plain reads (each checked as readRegularFile checks it): a fiber and a thread-pool round trip per
    // topic cost more than reading a small file.
    const reads = yield* fs.readHeads(topics.map((t) => t.path), READ_MAX_BYTES)
    const documents = topics.map((t, i) => {
      const r = reads[i]!
      return { filename: t.filename, name: t.name, description: t.description, content: r._tag === "Right" ? decoder.decode(r.right.bytes) : "" }
    })
    return searchDocuments(query, documents)
  })

  const names = (memoryDir: string) =>
    store.scanTopics(memoryDir).pipe(Effect.map((r) => r.topics.map((t) => t.filename)))

  return { list, show, search, names }
}
