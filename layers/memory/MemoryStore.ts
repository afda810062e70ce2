/**
 * MemoryStore: the read path over one memory directory. Public entries (`readIndex`, `scanTopics`) never fail:
 * memory problems must not block a user's prompt. The lower-level `readIndexFile` and `backfillIndex` keep their
 * typed errors for callers that want them.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { dirname, join, relative, sep } from "node:path"
import { catalogOf, type CatalogTopic } from "../../src/memory/catalog.ts"
import { parseFrontmatter, type MemoryType } from "../../src/memory/frontmatter.ts"
import {
  FRONTMATTER_MAX_BYTES,
  FRONTMATTER_MAX_LINES,
  RECALL_MAX_BYTES,
  SCAN_CONCURRENCY,
  SCAN_MAX_DEPTH,
  SCAN_MAX_DIRECTORIES,
  SCAN_MAX_TOPICS,
  SKIPPED_DIRECTORIES
} from "../../src/limits.ts"
import { indexLinkTargets, lintIndex, lintTopic, type LintProblem, unindexedTopics } from "../../src/memory/lint.ts"
import { buildBackfillIndex, trimIndex, type IndexWindow } from "../../src/memory/memoryIndex.ts"
import { recallWindow, type RecallWindow } from "../../src/memory/topicWindow.ts"
import { INDEX_FILE } from "../../src/storage/layout.ts"
import { publishFile } from "../storage/AtomicPublish.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { type Each, type FileInfo, type HeadRead } from "../storage/fileSystemShape.ts"
import { type FsError, type FsReason } from "../storage/FsError.ts"

export class IndexReadError extends Data.TaggedError("IndexReadError")<{
  readonly path: string
  readonly reason: string
}> {
  override get message(): string {
    return `cannot read ${this.path}: ${this.reason}`
  }
}

export class BackfillError extends Data.TaggedError("BackfillError")<{
  readonly path: string
  readonly reason: string
}> {
  override get message(): string {
    return `cannot create ${this.path}: ${this.reason}`
  }
}

export class TopicReadError extends Data.TaggedError("TopicReadError")<{
  readonly filename: string
  readonly reason: string
}> {
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
    NoSpace: "no space left on the device",
    ReadOnly: "read-only file system",
    QuotaExceeded: "disk quota exceeded",
    TooManyOpenFiles: "too many open files",
    InputOutput: "input/output error",
    Unknown: "unreadable"
  })[reason]

const decode = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")

/** The header window: the first 30 lines within 65,536 bytes. */
const headerText = (bytes: Uint8Array): string => {
  const limit = Math.min(bytes.length, FRONTMATTER_MAX_BYTES)
  let end = limit
  let from = 0
  for (let lines = 0; lines < FRONTMATTER_MAX_LINES; lines++) {
    const newline = bytes.indexOf(0x0a, from)
    if (newline === -1 || newline >= limit) break
    from = newline + 1
    if (lines === FRONTMATTER_MAX_LINES - 1) end = from
  }
  return decode(bytes.subarray(0, end))
}

const toPosix = (p: string): string => (sep === "/" ? p : p.split(sep).join("/"))

/** A file the walk found: its path as join(memoryDir, ...) gives it, and its `/`-separated name below the root. */
interface Candidate {
  readonly path: string
  readonly filename: string
}

interface CachedHeader {
  readonly dev: number
  readonly ino: number
  readonly size: number
  readonly mtimeMs: number
  readonly ctimeMs: number
  readonly topic: Topic
}

/** Newest first by mtime, then by filename: the scan's one order. */
const newestFirst = (aMtime: number, aName: string, bMtime: number, bName: string): number =>
  bMtime - aMtime || (aName < bName ? -1 : aName > bName ? 1 : 0)

const byFilename = (x: SkippedEntry, y: SkippedEntry): number => (x.filename < y.filename ? -1 : x.filename > y.filename ? 1 : 0)

/** Index reads are capped: the window is 25,000 units, and leading blank space beyond 1 MiB is not a real index. */
const INDEX_READ_CAP = 1 << 20
const LINT_READ_CAP = 1 << 20

export const makeMemoryStore = Effect.gen(function* () {
  const fs = yield* FileSystem

  // readIndexFile, scanTopics and readForRecall run on every request: untraced, since a traced function (a span and
  // a captured call-site stack) costs tens of microseconds per call.
  const readIndexFile = Effect.fnUntraced(function* (memoryDir: string) {
    const path = join(memoryDir, INDEX_FILE)
    // A batch of one: read on every request, so one synchronous effect rather than a round trip per system call.
    const read = (yield* fs.readHeads([path], INDEX_READ_CAP))[0]!
    if (read._tag === "Left") return yield* Effect.fail(new IndexReadError({ path, reason: describeReason(read.left.reason) }))
    return decode(read.right.bytes)
  })

  /**
   * Walks the directory tree; directory-level failures below the root are reported, the root's fail the walk.
   * Per folder: one listing, then one batch stat of its symlinks and subfolders (their targets and identities), each
   * a synchronous batch of the FileSystem: no thread-pool round trip per folder.
   */
  const listCandidates = (memoryDir: string) =>
    Effect.gen(function* () {
      const files: Array<Candidate> = []
      const skipped: Array<SkippedEntry> = []
      const seenDirs = new Set<string>()
      // Paths are built as join(memoryDir, ...) builds them ("" for ".", "/" for "/"), without normalising each one.
      const rootPrefix = join(memoryDir, "_").slice(0, -1)
      /** `rel` is the folder's filename prefix: "" for the root, "a/b/" below it; `id` its device and inode. */
      const walk = (dir: string, rel: string, depth: number, id: string): Effect.Effect<void, FsError> =>
        Effect.gen(function* () {
          const isRoot = depth === 0
          if (seenDirs.has(id)) return
          if (depth > SCAN_MAX_DEPTH || seenDirs.size >= SCAN_MAX_DIRECTORIES) {
            const why = depth > SCAN_MAX_DEPTH ? `more than ${SCAN_MAX_DEPTH} folders deep` : `beyond the first ${SCAN_MAX_DIRECTORIES} folders`
            skipped.push({ filename: rel, reason: `not scanned: ${why}` })
            return
          }
          seenDirs.add(id)
          const listing = (yield* fs.readDirectories([dir]))[0]!
          if (listing._tag === "Left") {
            if (isRoot) return yield* Effect.fail(listing.left)
            skipped.push({ filename: rel, reason: describeReason(listing.left.reason) })
            return
          }
          const entries = listing.right
          const prefix = isRoot ? rootPrefix : dir + sep
          // Symlinks are followed: what they point at decides. Subfolders need their identity (loops, caps).
          const toStat: Array<number> = []
          entries.forEach((entry, i) => {
            if (entry.kind === "symlink" || (entry.kind === "directory" && !SKIPPED_DIRECTORIES.has(entry.name))) toStat.push(i)
          })
          const stats = toStat.length === 0 ? [] : yield* fs.statMany(toStat.map((i) => prefix + entries[i]!.name))
          const statOf = new Map<number, Each<FileInfo>>()
          toStat.forEach((entryIndex, k) => statOf.set(entryIndex, stats[k]!))
          for (let i = 0; i < entries.length; i++) {
            const name = entries[i]!.name
            let kind = entries[i]!.kind
            const target = statOf.get(i)
            if (kind === "symlink") {
              // A dangling symlink is reported when it looks like a topic.
              if (target === undefined || target._tag === "Left") {
                if (name.endsWith(".md")) skipped.push({ filename: rel + name, reason: "missing or a dangling symlink" })
                continue
              }
              kind = target.right.kind
            }
            if (kind === "directory") {
              if (SKIPPED_DIRECTORIES.has(name)) continue
              if (name.endsWith(".md")) skipped.push({ filename: rel + name, reason: "a directory" })
              if (target === undefined || target._tag === "Left") {
                // Gone or unreadable since the listing: reported like a folder that cannot be listed.
                skipped.push({ filename: `${rel}${name}/`, reason: describeReason(target?._tag === "Left" ? target.left.reason : "Unknown") })
                continue
              }
              yield* walk(prefix + name, `${rel}${name}/`, depth + 1, `${target.right.dev}:${target.right.ino}`)
            } else if (name.endsWith(".md") && name !== INDEX_FILE) {
              if (kind === "file") files.push({ path: prefix + name, filename: rel + name })
              else skipped.push({ filename: rel + name, reason: `not a regular file (${kind})` })
            }
          }
        })
      const rootInfo = (yield* fs.statMany([memoryDir]))[0]!
      if (rootInfo._tag === "Left") return yield* Effect.fail(rootInfo.left)
      yield* walk(memoryDir, "", 0, `${rootInfo.right.dev}:${rootInfo.right.ino}`)
      return { files, skipped }
    })

  /**
   * Parsed headers by path, valid while the file's identity, size, mtime and ctime are unchanged. The extension
   * scans on every request; parsing headers is most of a scan's cost, and most files do not change between requests.
   */
  const headerCache = new Map<string, CachedHeader>()
  const HEADER_CACHE_MAX = 4 * SCAN_MAX_TOPICS * 4

  const cachedTopic = (c: Candidate, info: FileInfo): Topic | undefined => {
    const hit = headerCache.get(c.path)
    return hit !== undefined &&
        info.kind === "file" &&
        hit.ino === info.ino &&
        hit.dev === info.dev &&
        hit.size === info.size &&
        hit.mtimeMs === info.mtimeMs &&
        hit.ctimeMs === info.ctimeMs &&
        hit.topic.filename === c.filename
      ? hit.topic
      : undefined
  }

  /** Parses a header just read and caches it, keyed by what was read (a file replaced meanwhile is parsed again). */
  const topicOf = (c: Candidate, read: HeadRead): Topic => {
    const fm = parseFrontmatter(headerText(read.bytes))
    const info = read.info
    const topic: Topic = {
      filename: c.filename,
      path: c.path,
      name: fm.name,
      description: fm.description,
      type: fm.type,
      fileMtimeMs: info.mtimeMs,
      mtimeMs: fm.modified === undefined ? info.mtimeMs : Date.parse(fm.modified),
      headerProblem: fm.problem
    }
    if (headerCache.size >= HEADER_CACHE_MAX) headerCache.clear()
    headerCache.set(c.path, { dev: info.dev, ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, topic })
    return topic
  }

  const scanTopics = Effect.fnUntraced(function* (memoryDir: string) {
    const listed = yield* listCandidates(memoryDir).pipe(Effect.option)
    if (listed._tag === "None") return { topics: [], skipped: [] } satisfies ScanResult
    const { files, skipped } = listed.value
    const topics: Array<Topic> = []
    /** Reads and parses the headers of files not served from the cache, in one batch. */
    const readInto = (toRead: ReadonlyArray<Candidate>) =>
      Effect.map(fs.readHeads(toRead.map((c) => c.path), FRONTMATTER_MAX_BYTES), (reads) => {
        for (let i = 0; i < toRead.length; i++) {
          const r = reads[i]!
          if (r._tag === "Right") topics.push(topicOf(toRead[i]!, r.right))
          else skipped.push({ filename: toRead[i]!.filename, reason: describeReason(r.left.reason) })
        }
      })
    if (files.length <= SCAN_MAX_TOPICS) {
      // Every readable file is kept, so nothing needs sorting before the reads: a cached header is checked by a
      // stat, any other file is read at once (the read brings its own stat).
      const known = files.filter((f) => headerCache.has(f.path))
      const toRead = files.filter((f) => !headerCache.has(f.path))
      const stats = known.length === 0 ? [] : yield* fs.statMany(known.map((f) => f.path))
      for (let i = 0; i < known.length; i++) {
        const r = stats[i]!
        const hit = r._tag === "Right" ? cachedTopic(known[i]!, r.right) : undefined
        if (hit !== undefined) topics.push(hit)
        else if (r._tag === "Right") toRead.push(known[i]!)
        else skipped.push({ filename: known[i]!.filename, reason: describeReason(r.left.reason) })
      }
      if (toRead.length > 0) yield* readInto(toRead)
      topics.sort((x, y) => newestFirst(x.fileMtimeMs, x.filename, y.fileMtimeMs, y.filename))
      skipped.sort(byFilename)
      return { topics, skipped } satisfies ScanResult
    }
    // More files than topics kept: stat everything in one batch (cheap), then read headers newest first only until
    // 200 topics are found, so with 1,000 files the 800 oldest are never opened or parsed.
    const stats = yield* fs.statMany(files.map((f) => f.path))
    const candidates: Array<Candidate & { readonly info: FileInfo }> = []
    for (let i = 0; i < files.length; i++) {
      const r = stats[i]!
      const f = files[i]!
      if (r._tag === "Left") skipped.push({ filename: f.filename, reason: describeReason(r.left.reason) })
      else candidates.push({ path: f.path, filename: f.filename, info: r.right })
    }
    candidates.sort((a, b) => newestFirst(a.info.mtimeMs, a.filename, b.info.mtimeMs, b.filename))
    let next = 0
    while (topics.length < SCAN_MAX_TOPICS && next < candidates.length) {
      const batch = candidates.slice(next, next + Math.max(SCAN_CONCURRENCY, SCAN_MAX_TOPICS - topics.length))
      next += batch.length
      const toRead: Array<Candidate> = []
      for (const c of batch) {
        const hit = cachedTopic(c, c.info)
        if (hit !== undefined) topics.push(hit)
        else toRead.push(c)
      }
      if (toRead.length > 0) yield* readInto(toRead)
    }
    topics.sort((x, y) => newestFirst(x.fileMtimeMs, x.filename, y.fileMtimeMs, y.filename))
    const older = `older than the ${SCAN_MAX_TOPICS} newest topics`
    for (let i = SCAN_MAX_TOPICS; i < topics.length; i++) skipped.push({ filename: topics[i]!.filename, reason: older })
    for (let i = next; i < candidates.length; i++) skipped.push({ filename: candidates[i]!.filename, reason: older })
    skipped.sort(byFilename)
    if (topics.length > SCAN_MAX_TOPICS) topics.length = SCAN_MAX_TOPICS
    return { topics, skipped } satisfies ScanResult
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

  const readForRecall = Effect.fnUntraced(function* (memoryDir: string, filename: string) {
    const path = join(memoryDir, filename)
    // A batch of one: the file is read synchronously in this effect (a recall reads at most five small files).
    const read = yield* fs.readHeads([path], RECALL_MAX_BYTES + 1).pipe(
      Effect.flatMap(([each]) => each!),
      Effect.mapError((e) => new TopicReadError({ filename, reason: describeReason(e.reason) }))
    )
    return { filename, path, window: recallWindow(read.bytes, read.partial), mtimeMs: read.info.mtimeMs } satisfies RecallRead
  })

  /** Lints topic files in one batch: one read each, and one listing per folder for the sibling names. */
  const lintTopics = (memoryDir: string, files: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const paths = files.map((file) => (file.startsWith("/") ? file : join(memoryDir, file)))
      const folders = [...new Set(paths.map((path) => dirname(path)))]
      const reads = yield* fs.readHeads(paths, LINT_READ_CAP)
      const listings = yield* fs.readDirectories(folders)
      const siblingsOf = new Map<string, ReadonlyArray<string>>()
      folders.forEach((folder, i) => {
        const listing = listings[i]!
        if (listing._tag === "Right") siblingsOf.set(folder, listing.right.map((e) => e.name))
      })
      return paths.map((path, i): FileLint => {
        const filename = toPosix(relative(memoryDir, path))
        const read = reads[i]!
        if (read._tag === "Left") {
          return { file: filename, problems: [{ code: "file-unreadable", message: `${filename} cannot be read: ${describeReason(read.left.reason)}.` }] }
        }
        const names = siblingsOf.get(dirname(path))
        return {
          file: filename,
          problems: lintTopic({
            filename,
            content: decode(read.right.bytes),
            bytes: read.right.bytes,
            sizeBytes: read.right.info.size,
            ...(names !== undefined ? { siblings: names } : {})
          })
        }
      })
    })

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
      const isIndex = (f: string) => f === INDEX_FILE || f === join(memoryDir, INDEX_FILE)
      const topicLints = yield* lintTopics(memoryDir, files.filter((f) => !isIndex(f)))
      const indexLint = files.some(isIndex)
        ? yield* Effect.flatMap(knownTopics(memoryDir), (known) => lintIndexFile(memoryDir, known)).pipe(
          Effect.map((r): FileLint => r ?? { file: INDEX_FILE, problems: [{ code: "file-unreadable", message: "MEMORY.md does not exist." }] })
        )
        : undefined
      let next = 0
      return files.map((f) => (isIndex(f) ? indexLint! : topicLints[next++]!))
    }
    const { topics, skipped } = yield* scanTopics(memoryDir)
    const topicLints = yield* lintTopics(memoryDir, topics.map((t) => t.path))
    // What the scan could not read is a problem here too (`pm scan` lists the same files as skipped); topics left
    // out only for being older than the newest ones are not.
    const unreadable = skipped
      .filter((sk) => !sk.reason.startsWith("older than the "))
      .map((sk): FileLint => ({ file: sk.filename, problems: [{ code: "file-unreadable", message: `${sk.filename} cannot be read: ${sk.reason}.` }] }))
    const indexLint = yield* lintIndexFile(memoryDir, new Set(topics.map((t) => t.filename)))
    return indexLint === undefined ? [...topicLints, ...unreadable] : [indexLint, ...topicLints, ...unreadable]
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
