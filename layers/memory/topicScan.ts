/**
 * The parts of a scan of one memory directory: the bounded walk of its folders (depth, folder count and skipped names
 * from src/limits.ts), which lists every topic file and stats each folder before listing it, and the parse of a
 * topic's header from a window of 30 lines and 65,536 bytes. What the walk cannot list below the root is reported as
 * skipped; an unreadable root fails the walk. The manifest (topicManifest.ts) puts them together and keeps the result.
 */
import * as Effect from "effect/Effect"
import { join, sep } from "node:path"
import type { CatalogTopic } from "../../src/memory/catalog.ts"
import { parseFrontmatter, type MemoryType } from "../../src/memory/frontmatter.ts"
import {
  FRONTMATTER_MAX_BYTES,
  FRONTMATTER_MAX_LINES,
  SCAN_MAX_DEPTH,
  SCAN_MAX_DIRECTORIES,
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
export const headerText = (bytes: Uint8Array): string => {
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

/**
 * A file the walk found: its path as join(memoryDir, ...) gives it, its `/`-separated name below the root, and the
 * path of the folder it was listed in.
 */
export interface Candidate {
  readonly path: string
  readonly filename: string
  readonly folder: string
}

/** A folder the walk listed: its stat from before the listing, and its filename prefix ("" for the root, "a/b/"). */
export interface WalkedFolder {
  readonly info: FileInfo
  readonly rel: string
}

/** What the walk found: the topic files, what it passed over, and each folder it listed. */
export interface Walk {
  readonly files: ReadonlyArray<Candidate>
  readonly skipped: ReadonlyArray<SkippedEntry>
  readonly folders: ReadonlyMap<string, WalkedFolder>
}

/** The path of `name` inside a walked folder, built as the walk builds it (join for the root, `dir + sep` below). */
export const entryPath = (memoryDir: string, folder: string, rel: string, name: string): string =>
  rel === "" ? join(memoryDir, "_").slice(0, -1) + name : folder + sep + name

/**
 * Walks the directory tree; directory-level failures below the root are reported, the root's fail the walk.
 * Per folder: one listing, then one batch stat of its symlinks and subfolders (their targets and identities), each
 * a synchronous batch of the FileSystem: no thread-pool round trip per folder.
 */
export const walkMemoryDir = (fs: FileSystemShape, memoryDir: string): Effect.Effect<Walk, FsError> =>
  Effect.gen(function* () {
    const files: Array<Candidate> = []
    const skipped: Array<SkippedEntry> = []
    const seenDirs = new Set<string>()
    const folders = new Map<string, WalkedFolder>()
    // Paths are built as join(memoryDir, ...) builds them ("" for ".", "/" for "/"), without normalising each one.
    const rootPrefix = join(memoryDir, "_").slice(0, -1)
    /** `rel` is the folder's filename prefix: "" for the root, "a/b/" below it; `id` its device and inode. */
    const walk = (dir: string, rel: string, depth: number, info: FileInfo): Effect.Effect<void, FsError> =>
      Effect.gen(function* () {
        const isRoot = depth === 0
        const id = `${info.dev}:${info.ino}`
        if (seenDirs.has(id)) return
        if (depth > SCAN_MAX_DEPTH || seenDirs.size >= SCAN_MAX_DIRECTORIES) {
          const why = depth > SCAN_MAX_DEPTH ? `more than ${SCAN_MAX_DEPTH} folders deep` : `beyond the first ${SCAN_MAX_DIRECTORIES} folders`
          skipped.push({ filename: rel, reason: `not scanned: ${why}` })
          return
        }
        seenDirs.add(id)
        folders.set(dir, { info, rel })
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
            yield* walk(prefix + name, `${rel}${name}/`, depth + 1, target.right)
          } else if (name.endsWith(".md") && name !== INDEX_FILE) {
            if (kind === "file") files.push({ path: prefix + name, filename: rel + name, folder: dir })
            else skipped.push({ filename: rel + name, reason: `not a regular file (${kind})` })
          }
        }
      })
    const rootInfo = (yield* fs.statMany([memoryDir]))[0]!
    if (rootInfo._tag === "Left") return yield* Effect.fail(rootInfo.left)
    yield* walk(memoryDir, "", 0, rootInfo.right)
    return { files, skipped, folders } satisfies Walk
  })

/** Parses a topic's header from the bytes read from its start. */
export const topicOf = (c: Candidate, read: HeadRead): Topic => {
  const fm = parseFrontmatter(headerText(read.bytes))
  const info = read.info
  return {
    filename: c.filename,
    path: c.path,
    name: fm.name,
    description: fm.description,
    type: fm.type,
    fileMtimeMs: info.mtimeMs,
    mtimeMs: fm.modified === undefined ? info.mtimeMs : Date.parse(fm.modified),
    headerProblem: fm.problem
  }
}

/** Newest first by file mtime, then by filename: the scan's one order. */
export const newestTopicFirst = (x: Topic, y: Topic): number =>
  y.fileMtimeMs - x.fileMtimeMs || (x.filename < y.filename ? -1 : x.filename > y.filename ? 1 : 0)

export const byFilename = (x: SkippedEntry, y: SkippedEntry): number => (x.filename < y.filename ? -1 : x.filename > y.filename ? 1 : 0)
