/**
 * What the manifest of one memory directory holds (every topic's header and its place in the ranking, each folder's
 * stat and watch) and the few changes made to it: a topic stored, dropped or failed, and the views derived from it
 * (the scan's result, topics by file name, the turn of checks), kept up to date one topic at a time and dropped
 * before a walk; and the manifest to and from its kept form (manifestCacheFormat.ts), whose topics join the ranking on
 * its first use. No I/O.
 */
import { isBinaryContent } from "../../src/memory/binaryText.ts"
import { TopicRanking } from "../../src/memory/topicRanking.ts"
import { RANK_BODY_MAX_BYTES, SCAN_RACY_MS } from "../../src/limits.ts"
import type { FileInfo, HeadRead } from "../storage/fileSystemShape.ts"
import { type CachedEntry, type CachedManifest, decodeTerms, encodeTerms } from "./manifestCacheFormat.ts"
import { decode } from "./readText.ts"
import { byFilename, type Candidate, newestTopicFirst, type ScanResult, type SkippedEntry, type Topic, topicOf } from "./topicScan.ts"

export interface Entry {
  readonly candidate: Candidate
  readonly info: FileInfo
  readonly topic: Topic
  /** When the file's stat was taken for this reading (or the kept manifest's writing, for a kept topic). */
  readonly readAtMs: number
}

/** A watch of one folder: the names its events named since the last refresh. */
export interface FolderWatch {
  readonly pending: Set<string>
  /** An event without a name came: only a new listing tells what changed. */
  unknown: boolean
  /** The watch ended (its folder went, or the platform gave up): the folder is listed as if unwatched. */
  broken: boolean
  readonly stop: () => void
}

export interface Folder {
  readonly info: FileInfo
  readonly rel: string
  /** Changed within SCAN_RACY_MS of being stat-ed: a change in the same clock tick would not move its times. */
  readonly racy: boolean
  readonly watch: FolderWatch | undefined
  /** Its watch was running before its stat was taken: every change since is an event. */
  readonly trusted: boolean
}

export interface Manifest {
  folders: Map<string, Folder>
  readonly entries: Map<string, Entry>
  walkSkipped: ReadonlyArray<SkippedEntry>
  /** Files listed but not readable (by path). */
  readonly failed: Map<string, SkippedEntry>
  readonly ranking: TopicRanking
  /** The kept word counts of the kept topics not in `ranking` yet (by file name): they join it on its first use. */
  readonly unranked: Map<string, string>
  /** Made from a kept manifest and not refreshed yet: the first refresh lists every folder and stats every topic. */
  fromCache: boolean
  /** Changed since it was last kept. */
  dirty: boolean
  result: ScanResult | undefined
  /**
   * Derived on demand. Once made, a change of a few topics updates them in place of a rebuild (the topics as a new
   * array, so that a caller holding the old one keeps it whole); a walk drops them.
   */
  sorted: ReadonlyArray<Topic> | undefined
  byFilename: Map<string, Topic> | undefined
  rotation: Array<string> | undefined
  cursor: number
}

export const freshManifest = (): Manifest => ({
  folders: new Map(),
  entries: new Map(),
  walkSkipped: [],
  failed: new Map(),
  ranking: new TopicRanking(),
  unranked: new Map(),
  fromCache: false,
  dirty: false,
  result: undefined,
  sorted: undefined,
  byFilename: undefined,
  rotation: undefined,
  cursor: 0
})

export const sameFile = (a: FileInfo, b: FileInfo): boolean =>
  a.kind === b.kind && a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs

/** A folder whose last change (its mtime) is this recent when it is stat-ed may change again unseen within one tick. */
export const isRacy = (info: FileInfo, statedAtMs: number): boolean => statedAtMs - info.mtimeMs < SCAN_RACY_MS

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

/** The scan's result changed: it is made again when asked for. */
export const changed = (m: Manifest): void => {
  m.result = undefined
}

/** Many topics are about to change (a walk): the derived views are dropped and made again when asked for. */
export const changingMany = (m: Manifest): void => {
  m.result = undefined
  m.sorted = undefined
  m.byFilename = undefined
  m.rotation = undefined
}

/** The first index whose topic does not come before `t` in the scan's order. */
const lowerBound = (topics: ReadonlyArray<Topic>, t: Topic): number => {
  let lo = 0
  let hi = topics.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (newestTopicFirst(topics[mid]!, t) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** `before` leaves the views and `after` joins them (either may be absent). */
const replaceTopic = (m: Manifest, before: Topic | undefined, after: Topic | undefined): void => {
  m.result = undefined
  if (m.sorted !== undefined) {
    const next = m.sorted.slice()
    if (before !== undefined) {
      const at = lowerBound(next, before)
      if (next[at] === before) next.splice(at, 1)
    }
    if (after !== undefined) next.splice(lowerBound(next, after), 0, after)
    m.sorted = next
  }
  if (m.byFilename !== undefined) {
    if (before !== undefined) m.byFilename.delete(before.filename)
    if (after !== undefined) m.byFilename.set(after.filename, after)
  }
  if (m.rotation !== undefined && before === undefined && after !== undefined) m.rotation.push(after.path)
}

export const dropEntry = (m: Manifest, path: string): void => {
  const entry = m.entries.get(path)
  if (entry === undefined) return
  m.entries.delete(path)
  m.ranking.delete(entry.candidate.filename)
  m.unranked.delete(entry.candidate.filename)
  m.dirty = true
  replaceTopic(m, entry.topic, undefined)
}

export const storeEntry = (m: Manifest, c: Candidate, read: HeadRead, readAtMs: number): void => {
  const topic = topicOf(c, read)
  const before = m.entries.get(c.path)
  if (before !== undefined && before.candidate.filename !== c.filename) {
    m.ranking.delete(before.candidate.filename)
    m.unranked.delete(before.candidate.filename)
  }
  m.entries.set(c.path, { candidate: c, info: read.info, topic, readAtMs })
  m.failed.delete(c.path)
  m.unranked.delete(c.filename)
  m.ranking.set(c.filename, rankedText(topic, read.bytes))
  m.dirty = true
  replaceTopic(m, before?.topic, topic)
}

export const failEntry = (m: Manifest, c: Candidate, reason: string): void => {
  dropEntry(m, c.path)
  m.failed.set(c.path, { filename: c.filename, reason })
  changed(m)
}

export const resultOf = (m: Manifest): ScanResult => {
  if (m.result === undefined) {
    if (m.sorted === undefined) m.sorted = [...m.entries.values()].map((e) => e.topic).sort(newestTopicFirst)
    const skipped = [...m.walkSkipped, ...m.failed.values()].sort(byFilename)
    m.result = { topics: m.sorted, skipped }
  }
  return m.result
}

export const topicsByName = (m: Manifest): Map<string, Topic> => {
  if (m.byFilename === undefined) m.byFilename = new Map(resultOf(m).topics.map((t) => [t.filename, t]))
  return m.byFilename
}

export const stopWatches = (m: Manifest): void => {
  for (const folder of m.folders.values()) folder.watch?.stop()
}

/** The ranking with every topic in it: the kept topics' word counts join it here, on its first use. */
export const rankingOf = (m: Manifest): TopicRanking => {
  for (const [key, terms] of m.unranked) {
    const decoded = decodeTerms(terms)
    // A kept topic whose counts do not decode ranks as a topic without words (it stays listed and readable).
    if (decoded === undefined) m.ranking.setCounts(key, new Map(), 0)
    else m.ranking.setCounts(key, decoded.counts, decoded.length)
  }
  m.unranked.clear()
  return m.ranking
}

/** A manifest of the kept topics, to be checked by its first refresh (`fromCache`). */
export const manifestFromCache = (kept: CachedManifest): Manifest => {
  const m = freshManifest()
  for (const e of kept.entries) {
    m.entries.set(e.candidate.path, { candidate: e.candidate, info: e.info, topic: e.topic, readAtMs: e.readAtMs })
    m.unranked.set(e.candidate.filename, e.terms)
  }
  m.fromCache = true
  return m
}

/** The manifest's kept form, written at `nowMs`. */
export const cacheOf = (m: Manifest, memoryDir: string, nowMs: number): CachedManifest => {
  const entries: Array<CachedEntry> = []
  for (const e of m.entries.values()) {
    const key = e.candidate.filename
    let terms = m.unranked.get(key)
    if (terms === undefined) {
      const t = m.ranking.termsOf(key)
      terms = t === undefined ? "0" : encodeTerms(t.counts, t.length)
    }
    entries.push({ candidate: e.candidate, info: e.info, topic: e.topic, terms, readAtMs: e.readAtMs })
  }
  return { memoryDir, writtenAtMs: nowMs, entries }
}
