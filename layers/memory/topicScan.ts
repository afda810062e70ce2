/**
 * The scan of one memory directory: a bounded walk of its folders (depth, folder count and skipped names from
 * src/limits.ts), then the headers of its topic files, at most the 200 newest, parsed from a window of 30 lines and
 * 65,536 bytes and kept in a cache while a file's identity, size and times are unchanged. It never fails: what it
 * cannot read is reported as skipped, and an unreadable root is an empty scan. It reads topic headers only, never a
 * body, and writes nothing.
 */
import * as Effect from "effect/Effect"
import { join, sep } from "node:path"
import type { CatalogTopic } from "../../src/memory/catalog.ts"
import { parseFrontmatter, type MemoryType } from "../../src/memory/frontmatter.ts"
import {
  FRONTMATTER_MAX_BYTES,
  FRONTMATTER_MAX_LINES,
  SCAN_CONCURRENCY,
  SCAN_MAX_DEPTH,
  SCAN_MAX_DIRECTORIES,
  SCAN_MAX_TOPICS,
  SKIPPED_DIRECTORIES
} from "../../src/limits.ts"
import { INDEX_FILE } from "../../src/storage/layout.ts"
import type { Each, FileInfo, FileSystemShape, HeadRead } from "../storage/fileSystemShape.ts"
import type { FsError } from "../storage/FsError.ts"
import { decode, describeReason } from "./readText.ts"

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

/** The scan over `fs`, with its own header cache: made once per MemoryStore. */
export const makeTopicScan = (fs: FileSystemShape): ((memoryDir: string) => Effect.Effect<ScanResult>) => {
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

  // Runs on every request: untraced, since a traced function (a span and a captured call-site stack) costs tens of
  // microseconds per call.
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

  return scanTopics
}
