/**
 * MemoryStore: the read path over one memory directory. Public entries (`readIndex`, `scanTopics`) never fail:
 * memory problems must not block a user's prompt. The lower-level `readIndexFile` and `backfillIndex` keep their
 * typed errors for callers that want them.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { dirname, join, relative, sep } from "node:path"
import { catalogOf, type CatalogTopic } from "../src/catalog.ts"
import { parseFrontmatter, type MemoryType } from "../src/frontmatter.ts"
import {
  FRONTMATTER_MAX_BYTES,
  FRONTMATTER_MAX_LINES,
  RECALL_MAX_BYTES,
  SCAN_CONCURRENCY,
  SCAN_MAX_DEPTH,
  SCAN_MAX_DIRECTORIES,
  SCAN_MAX_TOPICS,
  SKIPPED_DIRECTORIES
} from "../src/limits.ts"
import { indexLinkTargets, lintIndex, lintTopic, type LintProblem, unindexedTopics } from "../src/lint.ts"
import { buildBackfillIndex, trimIndex, type IndexWindow } from "../src/memoryIndex.ts"
import { recallWindow, type RecallWindow } from "../src/recallWindow.ts"
import { INDEX_FILE } from "../src/storage.ts"
import { publishFile } from "./AtomicPublish.ts"
import { FileSystem, type FileInfo, type FsError, type FsReason } from "./FileSystem.ts"

export class IndexReadError extends Schema.TaggedError<IndexReadError>()("IndexReadError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `cannot read ${this.path}: ${this.reason}`
  }
}

export class BackfillError extends Schema.TaggedError<BackfillError>()("BackfillError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `cannot create ${this.path}: ${this.reason}`
  }
}

export class TopicReadError extends Schema.TaggedError<TopicReadError>()("TopicReadError", {
  filename: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `cannot read ${this.filename}: ${this.reason}`
  }
}

export interface Topic extends CatalogTopic {
  /** Path relative to the memory directory, `/`-separated. */
  readonly filename: string
  readonly path: string
  readonly name: string | undefined
  readonly description: string | undefined
  readonly type: MemoryType | undefined
  /** File mtime, the sort key. */
  readonly fileMtimeMs: number
  /** `modified` from the header when valid, else the file mtime: what the catalog shows. */
  readonly mtimeMs: number
  readonly headerProblem: string | undefined
}

export interface SkippedEntry {
  readonly filename: string
  readonly reason: string
}

export interface ScanResult {
  readonly topics: ReadonlyArray<Topic>
  readonly skipped: ReadonlyArray<SkippedEntry>
}

export interface IndexSummary extends IndexWindow {
  readonly exists: boolean
  readonly backfilled: boolean
}

export interface RecallRead {
  readonly filename: string
  readonly path: string
  readonly window: RecallWindow
  readonly mtimeMs: number
}

export interface FileLint {
  readonly file: string
  readonly problems: ReadonlyArray<LintProblem>
}

export interface MemoryStoreShape {
  /** Trimmed index text ("" on any failure), backfilling a missing index from the topics. */
  readonly readIndex: (memoryDir: string) => Effect.Effect<IndexSummary>
  /** The index as it is, for inspection: never backfilled, never created. */
  readonly peekIndex: (memoryDir: string) => Effect.Effect<IndexSummary>
  readonly readIndexFile: (memoryDir: string) => Effect.Effect<string, IndexReadError>
  /** Creates MEMORY.md from the topics unless it exists; returns what is on disk afterwards. */
  readonly backfillIndex: (memoryDir: string, topics: ReadonlyArray<Topic>) => Effect.Effect<string, BackfillError>
  readonly scanTopics: (memoryDir: string) => Effect.Effect<ScanResult>
  readonly catalog: (topics: ReadonlyArray<Topic>) => string
  readonly readForRecall: (memoryDir: string, filename: string) => Effect.Effect<RecallRead, TopicReadError>
  /** Lints the given topic files (relative or absolute), or all topics and the index when none are given. */
  readonly lint: (memoryDir: string, files?: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<FileLint>>
}

const describeReason = (reason: FsReason): string =>
  ({
    NotFound: "missing or a dangling symlink",
    PermissionDenied: "permission denied",
    AlreadyExists: "already exists",
    NotAFile: "not a regular file",
    IsDirectory: "a directory",
    NotADirectory: "a path segment is not a directory",
    TooManyLinks: "symlink loop",
    Busy: "busy",
    Unknown: "unreadable"
  })[reason]

const decode = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")

/** The header window: the first 30 lines within 65,536 bytes. */
const headerText = (bytes: Uint8Array): string => {
  let end = Math.min(bytes.length, FRONTMATTER_MAX_BYTES)
  let lines = 0
  for (let i = 0; i < end; i++) {
    if (bytes[i] === 0x0a && ++lines === FRONTMATTER_MAX_LINES) {
      end = i + 1
      break
    }
  }
  return decode(bytes.subarray(0, end))
}

const toPosix = (p: string): string => (sep === "/" ? p : p.split(sep).join("/"))

/** Index reads are capped: the window is 25,000 units, and leading blank space beyond 1 MiB is not a real index. */
const INDEX_READ_CAP = 1 << 20
const LINT_READ_CAP = 1 << 20

export const makeMemoryStore = Effect.gen(function* () {
  const fs = yield* FileSystem

  const readIndexFile = Effect.fn("MemoryStore.readIndexFile")(function* (memoryDir: string) {
    const path = join(memoryDir, INDEX_FILE)
    const read = yield* fs
      .readRegularFile(path, INDEX_READ_CAP)
      .pipe(Effect.mapError((e) => new IndexReadError({ path, reason: describeReason(e.reason) })))
    return decode(read.bytes)
  })

  /** Walks the directory tree; directory-level failures below the root are reported, the root's fail the walk. */
  const listCandidates = (memoryDir: string) =>
    Effect.gen(function* () {
      const files: Array<string> = []
      const skipped: Array<SkippedEntry> = []
      const seenDirs = new Set<string>()
      const walk = (dir: string, depth: number): Effect.Effect<void, FsError> =>
        Effect.gen(function* () {
          const isRoot = depth === 0
          const id = yield* fs.stat(dir).pipe(Effect.map((s) => `${s.dev}:${s.ino}`))
          if (seenDirs.has(id)) return
          if (depth > SCAN_MAX_DEPTH || seenDirs.size >= SCAN_MAX_DIRECTORIES) {
            const why = depth > SCAN_MAX_DEPTH ? `more than ${SCAN_MAX_DEPTH} folders deep` : `beyond the first ${SCAN_MAX_DIRECTORIES} folders`
            skipped.push({ filename: `${toPosix(relative(memoryDir, dir))}/`, reason: `not scanned: ${why}` })
            return
          }
          seenDirs.add(id)
          const entries = yield* fs.readDirectory(dir).pipe(
            Effect.catchAll((e) => {
              if (isRoot) return Effect.fail(e)
              skipped.push({ filename: toPosix(relative(memoryDir, dir)) + "/", reason: describeReason(e.reason) })
              return Effect.succeed([])
            })
          )
          for (const entry of entries) {
            const path = join(dir, entry.name)
            let kind = entry.kind
            if (kind === "symlink") {
              // Symlinks are followed; a dangling one is reported when it looks like a topic.
              const target = yield* fs.stat(path).pipe(Effect.option)
              if (target._tag === "None") {
                if (entry.name.endsWith(".md")) skipped.push({ filename: toPosix(relative(memoryDir, path)), reason: "missing or a dangling symlink" })
                continue
              }
              kind = target.value.kind
            }
            if (kind === "directory") {
              if (SKIPPED_DIRECTORIES.has(entry.name)) continue
              if (entry.name.endsWith(".md")) {
                skipped.push({ filename: toPosix(relative(memoryDir, path)), reason: "a directory" })
              }
              yield* walk(path, depth + 1)
            } else if (entry.name.endsWith(".md") && entry.name !== INDEX_FILE) {
              if (kind === "file") files.push(path)
              else skipped.push({ filename: toPosix(relative(memoryDir, path)), reason: `not a regular file (${kind})` })
            }
          }
        })
      yield* walk(memoryDir, 0)
      return { files, skipped }
    })

  /**
   * Parsed headers by path, valid while the file's identity, size and mtime are unchanged. The extension scans on
   * every request; parsing YAML is most of a scan's cost, and most files do not change between requests.
   */
  const headerCache = new Map<string, { readonly key: string; readonly topic: Topic }>()
  const HEADER_CACHE_MAX = 4 * SCAN_MAX_TOPICS * 4

  /** The header of one file whose stat is known: from the cache when unchanged, else read and parsed. */
  const readHeader = (memoryDir: string, path: string, info: FileInfo) =>
    Effect.gen(function* () {
      const filename = toPosix(relative(memoryDir, path))
      const key = `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${filename}`
      const cached = headerCache.get(path)
      if (cached !== undefined && cached.key === key && info.kind === "file") return cached.topic
      const read = yield* fs.readRegularFile(path, FRONTMATTER_MAX_BYTES)
      const fm = parseFrontmatter(headerText(read.bytes))
      const topic: Topic = {
        filename,
        path,
        name: fm.name,
        description: fm.description,
        type: fm.type,
        fileMtimeMs: read.info.mtimeMs,
        mtimeMs: fm.modified === undefined ? read.info.mtimeMs : Date.parse(fm.modified),
        headerProblem: fm.problem
      }
      if (headerCache.size >= HEADER_CACHE_MAX) headerCache.clear()
      // Keyed by what was read: a file replaced between the stat and the read is simply parsed again next time.
      headerCache.set(path, { key: `${read.info.dev}:${read.info.ino}:${read.info.size}:${read.info.mtimeMs}:${filename}`, topic })
      return topic
    }).pipe(Effect.either)

  const byNewest = <T extends { readonly mtimeMs: number; readonly filename: string }>(a: T, b: T): number =>
    b.mtimeMs - a.mtimeMs || (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0)

  const scanTopics = Effect.fn("MemoryStore.scanTopics")(function* (memoryDir: string) {
    const listed = yield* listCandidates(memoryDir).pipe(Effect.option)
    if (listed._tag === "None") return { topics: [], skipped: [] } satisfies ScanResult
    const { files, skipped } = listed.value
    const skip = (path: string, reason: string) => skipped.push({ filename: toPosix(relative(memoryDir, path)), reason })
    // Stat everything (cheap), then read headers newest first only until 200 topics are found: with 1,000 files
    // the 800 oldest are never opened or parsed.
    const stats = yield* Effect.forEach(files, (path) => fs.stat(path).pipe(Effect.either), { concurrency: SCAN_CONCURRENCY })
    const candidates: Array<{ readonly path: string; readonly info: FileInfo; readonly mtimeMs: number; readonly filename: string }> = []
    stats.forEach((r, i) => {
      const path = files[i]!
      if (r._tag === "Left") skip(path, describeReason(r.left.reason))
      else candidates.push({ path, info: r.right, mtimeMs: r.right.mtimeMs, filename: toPosix(relative(memoryDir, path)) })
    })
    candidates.sort(byNewest)
    const topics: Array<Topic> = []
    let next = 0
    while (topics.length < SCAN_MAX_TOPICS && next < candidates.length) {
      const batch = candidates.slice(next, next + Math.max(SCAN_CONCURRENCY, SCAN_MAX_TOPICS - topics.length))
      next += batch.length
      const results = yield* Effect.forEach(batch, (c) => readHeader(memoryDir, c.path, c.info), { concurrency: SCAN_CONCURRENCY })
      results.forEach((r, i) => {
        if (r._tag === "Right") topics.push(r.right)
        else skip(batch[i]!.path, describeReason(r.left.reason))
      })
    }
    topics.sort((x, y) => byNewest({ mtimeMs: x.fileMtimeMs, filename: x.filename }, { mtimeMs: y.fileMtimeMs, filename: y.filename }))
    const older = [...topics.slice(SCAN_MAX_TOPICS).map((t) => t.filename), ...candidates.slice(next).map((c) => c.filename)]
    for (const filename of older) skipped.push({ filename, reason: `older than the ${SCAN_MAX_TOPICS} newest topics` })
    skipped.sort((x, y) => (x.filename < y.filename ? -1 : x.filename > y.filename ? 1 : 0))
    return { topics: topics.slice(0, SCAN_MAX_TOPICS), skipped } satisfies ScanResult
  })

  /** Publishes the backfilled index unless one exists; `created` says whether this call's file is the one on disk. */
  const publishIndex = (memoryDir: string, topics: ReadonlyArray<Topic>) =>
    Effect.gen(function* () {
      const path = join(memoryDir, INDEX_FILE)
      const content = buildBackfillIndex(topics.map((t) => ({ filename: t.filename, title: t.name ?? t.filename.replace(/\.md$/, ""), description: t.description })))
      if (content === "") return { content: "", created: false }
      const fail = (e: FsError) => new BackfillError({ path, reason: describeReason(e.reason) })
      // Published whole and only if absent (AtomicPublish "create"): the index appears complete or not at all, and a
      // racing writer's index is never replaced.
      const outcome = yield* publishFile(fs, { dir: memoryDir, name: INDEX_FILE, content, mode: "create", durable: true }).pipe(
        Effect.mapError(fail)
      )
      if (outcome._tag === "Published") return { content, created: true }
      const existing = yield* readIndexFile(memoryDir).pipe(Effect.mapError((e) => new BackfillError({ path, reason: e.reason })))
      return { content: existing, created: false }
    })

  const backfillIndex = Effect.fn("MemoryStore.backfillIndex")(function* (memoryDir: string, topics: ReadonlyArray<Topic>) {
    return (yield* publishIndex(memoryDir, topics)).content
  })

  const readIndex = Effect.fn("MemoryStore.readIndex")(function* (memoryDir: string) {
    const existing = yield* readIndexFile(memoryDir).pipe(Effect.either)
    if (existing._tag === "Right") return { ...trimIndex(existing.right), exists: true, backfilled: false }
    const missing = existing.left.reason === describeReason("NotFound")
    const isLink = yield* fs.lstat(join(memoryDir, INDEX_FILE)).pipe(Effect.option)
    if (missing && isLink._tag === "Some" && isLink.value.kind !== "symlink") {
      // Another process published the index between our read and the lstat: read what it wrote.
      const again = yield* readIndexFile(memoryDir).pipe(Effect.option)
      if (again._tag === "Some") return { ...trimIndex(again.value), exists: true, backfilled: false }
    }
    // Only a truly absent index is backfilled: a dangling symlink or a directory named MEMORY.md is left alone.
    if (!missing || isLink._tag === "Some") return { ...trimIndex(""), exists: isLink._tag === "Some", backfilled: false }
    const { topics } = yield* scanTopics(memoryDir)
    const { content, created } = yield* publishIndex(memoryDir, topics).pipe(
      Effect.orElseSucceed(() => ({ content: "", created: false }))
    )
    return { ...trimIndex(content), exists: content !== "", backfilled: created }
  })

  const peekIndex = (memoryDir: string) =>
    readIndexFile(memoryDir).pipe(
      Effect.map((text): IndexSummary => ({ ...trimIndex(text), exists: true, backfilled: false })),
      Effect.orElseSucceed((): IndexSummary => ({ ...trimIndex(""), exists: false, backfilled: false }))
    )

  const readForRecall = Effect.fn("MemoryStore.readForRecall")(function* (memoryDir: string, filename: string) {
    const path = join(memoryDir, filename)
    const read = yield* fs
      .readRegularFile(path, RECALL_MAX_BYTES + 1)
      .pipe(Effect.mapError((e) => new TopicReadError({ filename, reason: describeReason(e.reason) })))
    return { filename, path, window: recallWindow(read.bytes, read.partial), mtimeMs: read.info.mtimeMs } satisfies RecallRead
  })

  const lintOne = (memoryDir: string, file: string) => {
    const path = file.startsWith("/") ? file : join(memoryDir, file)
    const filename = toPosix(relative(memoryDir, path))
    const siblings = fs.readDirectory(dirname(path)).pipe(
      Effect.map((entries) => entries.map((e) => e.name)),
      Effect.orElseSucceed(() => undefined)
    )
    return Effect.zip(fs.readRegularFile(path, LINT_READ_CAP), siblings).pipe(
      Effect.map(([r, names]): FileLint => ({
        file: filename,
        problems: lintTopic({ filename, content: decode(r.bytes), sizeBytes: r.info.size, ...(names !== undefined ? { siblings: names } : {}) })
      })),
      Effect.catchAll((e) =>
        Effect.succeed<FileLint>({
          file: filename,
          problems: [{ code: "file-unreadable", message: `${filename} cannot be read: ${describeReason(e.reason)}.` }]
        })
      )
    )
  }

  /** The index's problems, with its links checked against the topics; undefined when there is no index at all. */
  const lintIndexFile = (memoryDir: string, known: ReadonlySet<string>) =>
    readIndexFile(memoryDir).pipe(
      Effect.map((content): FileLint | undefined => {
        const missing = indexLinkTargets(content)
          .filter((t) => !/^[a-z]+:/i.test(t) && !t.startsWith("#"))
          .map((t) => safeDecodeURI(t).replace(/^\.\//, ""))
          .filter((t) => !known.has(t))
          .map((t) => ({ code: "index-link-missing" as const, message: `MEMORY.md links to ${t}, which is not a readable topic file.` }))
        return { file: INDEX_FILE, problems: [...lintIndex(content), ...missing, ...unindexedTopics(content, [...known])] }
      }),
      Effect.catchAll((e) =>
        Effect.succeed<FileLint | undefined>(
          e.reason === describeReason("NotFound")
            ? undefined
            : { file: INDEX_FILE, problems: [{ code: "file-unreadable", message: `MEMORY.md cannot be read: ${e.reason}.` }] }
        )
      )
    )

  const knownTopics = (memoryDir: string) =>
    scanTopics(memoryDir).pipe(Effect.map(({ topics }) => new Set(topics.map((t) => t.filename))))

  const lint = Effect.fn("MemoryStore.lint")(function* (memoryDir: string, files?: ReadonlyArray<string>) {
    if (files !== undefined && files.length > 0) {
      return yield* Effect.forEach(
        files,
        (f) =>
          f === INDEX_FILE || f === join(memoryDir, INDEX_FILE)
            ? Effect.flatMap(knownTopics(memoryDir), (known) => lintIndexFile(memoryDir, known)).pipe(
                Effect.map((r): FileLint => r ?? { file: INDEX_FILE, problems: [{ code: "file-unreadable", message: "MEMORY.md does not exist." }] })
              )
            : lintOne(memoryDir, f),
        { concurrency: SCAN_CONCURRENCY }
      )
    }
    const { topics } = yield* scanTopics(memoryDir)
    const topicLints = yield* Effect.forEach(topics, (t) => lintOne(memoryDir, t.path), { concurrency: SCAN_CONCURRENCY })
    const indexLint = yield* lintIndexFile(memoryDir, new Set(topics.map((t) => t.filename)))
    return indexLint === undefined ? topicLints : [indexLint, ...topicLints]
  })

  return {
    readIndex,
    peekIndex,
    readIndexFile,
    backfillIndex,
    scanTopics,
    catalog: catalogOf,
    readForRecall,
    lint
  } satisfies MemoryStoreShape
})

const safeDecodeURI = (s: string): string => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

export class MemoryStore extends Context.Tag("pm/MemoryStore")<MemoryStore, MemoryStoreShape>() {
  static readonly layer: Layer.Layer<MemoryStore, never, FileSystem> = Layer.effect(MemoryStore, makeMemoryStore)
}
