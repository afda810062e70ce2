/**
 * The manifest of a memory directory: every topic's header and its place in the ranking, kept per process and
 * refreshed from what changed, so a request in a folder that did not change costs the same at 20 and 5,000 topics.
 *
 * A refresh stats each folder the last walk listed. A folder whose identity or times moved (an entry was added,
 * removed or replaced) is walked again, and the files it lists are stat-ed, read when new or changed, and dropped
 * when gone; the topics of folders that did not move are kept as they are. Besides, each refresh stats
 * SCAN_RECHECK_PER_REFRESH unchanged files in turn (an edit in place leaves the folder's times alone), reads again
 * any file or lists again any folder whose last change came within SCAN_RACY_MS of its read (the file system's clock
 * is coarse: a second change within one tick would not move its time), and `thorough` stats every file. Headers come
 * from a window of 30 lines and 65,536 bytes; the ranking indexes the file name, `name`, description and the body
 * within RANK_BODY_MAX_BYTES, once per change of the file. It never fails: what cannot be read is reported as
 * skipped, and an unreadable root is an empty scan. It reads and never writes.
 */
import * as Effect from "effect/Effect"
import { isBinaryContent } from "../../src/memory/binaryText.ts"
import { TopicRanking } from "../../src/memory/topicRanking.ts"
import { FRONTMATTER_MAX_BYTES, RANK_BODY_MAX_BYTES, RANK_RECHECK_TOP, SCAN_RACY_MS, SCAN_RECHECK_PER_REFRESH } from "../../src/limits.ts"
import type { FileInfo, FileSystemShape, HeadRead } from "../storage/fileSystemShape.ts"
import { decode, describeReason } from "./readText.ts"
import { byFilename, type Candidate, newestTopicFirst, type ScanResult, type SkippedEntry, type Topic, topicOf, walkMemoryDir } from "./topicScan.ts"

interface Entry {
  readonly candidate: Candidate
  readonly info: FileInfo
  readonly topic: Topic
}

interface Folder {
  readonly info: FileInfo
  /** Changed within SCAN_RACY_MS of being listed: listed again at the next refresh. */
  readonly racy: boolean
}

interface Manifest {
  folders: ReadonlyMap<string, Folder>
  readonly entries: Map<string, Entry>
  walkSkipped: ReadonlyArray<SkippedEntry>
  /** Files listed but not readable (by path). */
  readonly failed: Map<string, SkippedEntry>
  readonly ranking: TopicRanking
  /** Derived on demand and dropped on any change. */
  result: ScanResult | undefined
  byFilename: Map<string, Topic> | undefined
  rotation: Array<string> | undefined
  cursor: number
}

/** A topic ranked against a text. */
export interface RankedTopics extends ScanResult {
  /** The topics that share a word with the text, best first (ties: newest first). */
  readonly ranked: ReadonlyArray<Topic>
}

/** How many memory directories one process keeps a manifest of; the least recently used one is dropped. */
const MANIFESTS_KEPT = 8

const sameFile = (a: FileInfo, b: FileInfo): boolean =>
  a.kind === b.kind && a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs

/** A folder whose last change (its mtime) is this recent when it is stat-ed may change again unseen within one tick. */
const isRacy = (info: FileInfo, statedAtMs: number): boolean => statedAtMs - info.mtimeMs < SCAN_RACY_MS

/** The text the ranking indexes: the title, the description and the body after the header, within the byte window. */
const rankedText = (topic: Topic, bytes: Uint8Array) => {
  const window = bytes.subarray(0, RANK_BODY_MAX_BYTES)
  const text = isBinaryContent(window) ? "" : decode(window)
  const header = /^\uFEFF?---[^\n]*\n[\s\S]*?\n---[ \t]*\r?(?:\n|$)/.exec(text)
  return {
    title: `${topic.filename} ${topic.name ?? ""}`,
    description: topic.description ?? "",
    body: header === null ? text : text.slice(header[0].length)
  }
}

/** `now`: the wall clock the racy check compares the folders' times with (a test's own clock in tests). */
export const makeTopicManifest = (fs: FileSystemShape, now: () => number = Date.now) => {
  const manifests = new Map<string, Manifest>()

  const fresh = (): Manifest => ({
    folders: new Map(),
    entries: new Map(),
    walkSkipped: [],
    failed: new Map(),
    ranking: new TopicRanking(),
    result: undefined,
    byFilename: undefined,
    rotation: undefined,
    cursor: 0
  })

  const changed = (m: Manifest) => {
    m.result = undefined
    m.byFilename = undefined
    m.rotation = undefined
  }

  const drop = (m: Manifest, path: string) => {
    const entry = m.entries.get(path)
    if (entry === undefined) return
    m.entries.delete(path)
    m.ranking.delete(entry.candidate.filename)
    changed(m)
  }

  const store = (m: Manifest, c: Candidate, read: HeadRead) => {
    const topic = topicOf(c, read)
    m.entries.set(c.path, { candidate: c, info: read.info, topic })
    m.failed.delete(c.path)
    m.ranking.set(c.filename, rankedText(topic, read.bytes))
    changed(m)
  }

  const fail = (m: Manifest, c: Candidate, reason: string) => {
    drop(m, c.path)
    m.failed.set(c.path, { filename: c.filename, reason })
    changed(m)
  }

  const resultOf = (m: Manifest): ScanResult => {
    if (m.result === undefined) {
      const topics = [...m.entries.values()].map((e) => e.topic).sort(newestTopicFirst)
      const skipped = [...m.walkSkipped, ...m.failed.values()].sort(byFilename)
      m.result = { topics, skipped }
    }
    return m.result
  }

  /** Stats `entries` and reads again those that changed (or drops them): what a refresh does for a few files. */
  const recheck = (m: Manifest, entries: ReadonlyArray<Entry>) =>
    Effect.gen(function* () {
      if (entries.length === 0) return
      const stats = yield* fs.statMany(entries.map((e) => e.candidate.path))
      const toRead: Array<Candidate> = []
      entries.forEach((entry, i) => {
        const r = stats[i]!
        if (r._tag === "Left") fail(m, entry.candidate, describeReason(r.left.reason))
        else if (!sameFile(entry.info, r.right)) toRead.push(entry.candidate)
      })
      if (toRead.length === 0) return
      const reads = yield* fs.readHeads(toRead.map((c) => c.path), FRONTMATTER_MAX_BYTES)
      toRead.forEach((c, i) => {
        const r = reads[i]!
        if (r._tag === "Right") store(m, c, r.right)
        else fail(m, c, describeReason(r.left.reason))
      })
    })

  // Runs on every request: untraced (a span per call costs tens of microseconds).
  const refresh = Effect.fnUntraced(function* (memoryDir: string, thorough: boolean) {
    let m = manifests.get(memoryDir)
    const startedMs = now()
    // The folders that moved since the last walk (every folder when there is no manifest yet), and those listed too
    // soon after their last change to be trusted: both are listed again, and the files of a moved one stat-ed.
    const moved = new Set<string>()
    let relist = m === undefined
    if (m !== undefined) {
      const paths = [...m.folders.keys()]
      const stats = yield* fs.statMany(paths)
      paths.forEach((path, i) => {
        const before = m!.folders.get(path)!
        const stat = stats[i]!
        if (stat._tag === "Left" || !sameFile(before.info, stat.right)) moved.add(path)
        else if (before.racy) relist = true
      })
      if (moved.size > 0) relist = true
    }
    const toStat: Array<Entry> = []
    const toRead: Array<Candidate> = []
    if (relist) {
      const walked = yield* walkMemoryDir(fs, memoryDir).pipe(Effect.option)
      if (walked._tag === "None") {
        manifests.delete(memoryDir)
        return undefined
      }
      if (m === undefined) m = fresh()
      const { files, skipped, folders } = walked.value
      const before = m.folders
      const folderMoved = (path: string) => moved.has(path) || !before.has(path)
      m.folders = new Map([...folders].map(([path, info]) => [path, { info, racy: isRacy(info, startedMs) }]))
      m.walkSkipped = skipped
      const listed = new Set<string>()
      for (const c of files) {
        listed.add(c.path)
        const entry = m.entries.get(c.path)
        if (entry === undefined || entry.candidate.filename !== c.filename) toRead.push(c)
        else if (thorough || folderMoved(c.folder)) toStat.push(entry)
      }
      for (const path of [...m.entries.keys()]) if (!listed.has(path)) drop(m, path)
      for (const path of [...m.failed.keys()]) if (!listed.has(path)) m.failed.delete(path)
      changed(m)
    }
    const manifest: Manifest = m!
    if (!relist || toStat.length === 0) {
      if (thorough) toStat.push(...manifest.entries.values())
      else {
        // An edit in place leaves the folder alone: a few unchanged files are checked in turn on every refresh.
        if (manifest.rotation === undefined) manifest.rotation = [...manifest.entries.keys()]
        const rotation = manifest.rotation
        const count = Math.min(SCAN_RECHECK_PER_REFRESH, rotation.length)
        for (let k = 0; k < count; k++) {
          const entry = manifest.entries.get(rotation[(manifest.cursor + k) % rotation.length]!)
          if (entry !== undefined) toStat.push(entry)
        }
        manifest.cursor = rotation.length === 0 ? 0 : (manifest.cursor + count) % rotation.length
      }
    }
    yield* recheck(manifest, toStat)
    if (toRead.length > 0) {
      const reads = yield* fs.readHeads(toRead.map((c) => c.path), FRONTMATTER_MAX_BYTES)
      toRead.forEach((c, i) => {
        const r = reads[i]!
        if (r._tag === "Right") store(manifest, c, r.right)
        else fail(manifest, c, describeReason(r.left.reason))
      })
    }
    manifests.delete(memoryDir)
    manifests.set(memoryDir, manifest)
    if (manifests.size > MANIFESTS_KEPT) manifests.delete(manifests.keys().next().value!)
    return manifest
  })

  const empty: ScanResult = { topics: [], skipped: [] }

  /** Every topic of the folder, newest first, and what was passed over. */
  const scan = (memoryDir: string, thorough = false): Effect.Effect<ScanResult> =>
    Effect.map(refresh(memoryDir, thorough), (m) => (m === undefined ? empty : resultOf(m)))

  const byName = (m: Manifest): Map<string, Topic> => {
    if (m.byFilename === undefined) m.byFilename = new Map(resultOf(m).topics.map((t) => [t.filename, t]))
    return m.byFilename
  }

  /**
   * The scan, and the topics sharing a word with `text`, best first, at most `limit`. The first RANK_RECHECK_TOP of
   * them, the likeliest to be shown and chosen, are checked by a stat first, so their headers and times are current.
   */
  const rank = (memoryDir: string, text: string, limit: number): Effect.Effect<RankedTopics> =>
    Effect.gen(function* () {
      const m = yield* refresh(memoryDir, false)
      if (m === undefined) return { ...empty, ranked: [] }
      const before = byName(m)
      const hits = m.ranking.rank(text, limit, (a, b) => newestTopicFirst(before.get(a)!, before.get(b)!))
      const top = hits.slice(0, RANK_RECHECK_TOP).map((h) => m.entries.get(before.get(h.key)!.path)!)
      yield* recheck(m, top)
      const by = byName(m)
      const ranked: Array<Topic> = []
      for (const h of hits) {
        const topic = by.get(h.key)
        if (topic !== undefined) ranked.push(topic)
      }
      return { ...resultOf(m), ranked }
    })

  return { scan, rank }
}
