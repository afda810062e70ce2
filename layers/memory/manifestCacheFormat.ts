/**
 * The kept manifest's file format: every topic's header, the stat it was read under and its ranked word counts, as
 * one JSON document naming its format, version and memory directory. `encodeManifestCache` leaves out the topics whose
 * file changed within SCAN_RACY_MS of their reading (a later change in the same clock tick would not move their
 * times), and gives nothing when the text would pass MANIFEST_CACHE_MAX_BYTES. `decodeManifestCache` accepts only
 * its own format and version for the same directory, checks every field's type, and leaves out the topics changed
 * within SCAN_RACY_MS of the writing; anything else gives undefined (the cache is ignored and made again). Pure.
 */
import { MANIFEST_CACHE_MAX_BYTES, SCAN_RACY_MS } from "../../src/limits.ts"
import type { MemoryType } from "../../src/memory/frontmatter.ts"
import type { EntryKind, FileInfo } from "../storage/fileSystemShape.ts"
import type { Candidate, Topic } from "./topicScan.ts"

export const MANIFEST_CACHE_FORMAT = "pi-project-memory topic manifest"
/** Raised when the meaning of any field changes: a cache of another version is ignored. */
export const MANIFEST_CACHE_VERSION = 1

export interface CachedEntry {
  readonly candidate: Candidate
  readonly info: FileInfo
  readonly topic: Topic
  /** The ranked word counts: the length, then each word and its count, separated by spaces. */
  readonly terms: string
  /** When the file was read (its stat taken): the racy check compares the file's times with it. */
  readonly readAtMs: number
}

export interface CachedManifest {
  readonly memoryDir: string
  readonly writtenAtMs: number
  readonly entries: ReadonlyArray<CachedEntry>
}

/** Changed within SCAN_RACY_MS before `atMs`: its times may not move at a change in the same tick. */
export const changedNear = (info: FileInfo, atMs: number): boolean => atMs - Math.max(info.mtimeMs, info.ctimeMs) < SCAN_RACY_MS

/** Word counts as `terms` keeps them. */
export const encodeTerms = (counts: ReadonlyMap<string, number>, length: number): string => {
  const parts: Array<string | number> = [length]
  for (const [term, count] of counts) parts.push(term, count)
  return parts.join(" ")
}

/** `terms` back to word counts; undefined when it is not what encodeTerms gives. */
export const decodeTerms = (terms: string): { readonly counts: Map<string, number>; readonly length: number } | undefined => {
  const parts = terms.split(" ")
  const length = Number(parts[0])
  if (!Number.isInteger(length) || length < 0 || parts.length % 2 !== 1) return undefined
  const counts = new Map<string, number>()
  for (let i = 1; i < parts.length; i += 2) {
    const count = Number(parts[i + 1])
    if (parts[i] === "" || !Number.isInteger(count) || count <= 0) return undefined
    counts.set(parts[i]!, count)
  }
  return { counts, length }
}

const KINDS: ReadonlySet<string> = new Set(["file", "directory", "symlink", "fifo", "socket", "device", "other"])
const TYPES: ReadonlySet<string> = new Set(["user", "feedback", "project", "reference"])

/** One entry as a flat row: paths, the stat, the header, the word counts. */
type Row = [string, string, string, string, number, number, number, number, number, number, string | null, string | null, string | null, number | null, string | null, string]

const rowOf = (e: CachedEntry): Row => [
  e.candidate.path,
  e.candidate.filename,
  e.candidate.folder,
  e.info.kind,
  e.info.size,
  e.info.mtimeMs,
  e.info.ctimeMs,
  e.info.mode,
  e.info.ino,
  e.info.dev,
  e.topic.name ?? null,
  e.topic.description ?? null,
  e.topic.type ?? null,
  Number.isFinite(e.topic.mtimeMs) ? e.topic.mtimeMs : null,
  e.topic.headerProblem ?? null,
  e.terms
]

const isString = (u: unknown): u is string => typeof u === "string"
const isNumber = (u: unknown): u is number => typeof u === "number" && Number.isFinite(u)
const isOptionalString = (u: unknown): u is string | null => u === null || typeof u === "string"

/**
 * A row back to an entry; undefined when any field is not of its type. Indexed reads, not destructuring: this runs
 * once per topic in a process that has just started, where the iterator protocol costs more than the checks.
 */
const entryOf = (row: unknown, writtenAtMs: number): CachedEntry | undefined => {
  if (!Array.isArray(row) || row.length !== 16) return undefined
  const r = row as Array<unknown>
  const path = r[0], filename = r[1], folder = r[2], kind = r[3]
  const size = r[4], mtimeMs = r[5], ctimeMs = r[6], mode = r[7], ino = r[8], dev = r[9]
  const name = r[10], description = r[11], type = r[12], topicMtimeMs = r[13], problem = r[14], terms = r[15]
  if (!isString(path) || !isString(filename) || !isString(folder) || !isString(kind) || !KINDS.has(kind)) return undefined
  if (!isNumber(size) || !isNumber(mtimeMs) || !isNumber(ctimeMs) || !isNumber(mode) || !isNumber(ino) || !isNumber(dev)) return undefined
  if (!isOptionalString(name) || !isOptionalString(description) || !isOptionalString(problem) || !isString(terms)) return undefined
  if (!(type === null || (isString(type) && TYPES.has(type))) || !(isNumber(topicMtimeMs) || topicMtimeMs === null)) return undefined
  const info: FileInfo = { kind: kind as EntryKind, size, mtimeMs, ctimeMs, mode, ino, dev }
  return {
    candidate: { path, filename, folder },
    info,
    topic: {
      filename,
      path,
      name: name ?? undefined,
      description: description ?? undefined,
      type: (type ?? undefined) as MemoryType | undefined,
      fileMtimeMs: mtimeMs,
      mtimeMs: topicMtimeMs ?? Number.NaN,
      headerProblem: problem ?? undefined
    },
    terms,
    readAtMs: writtenAtMs
  }
}

/** The cache's text, without the racy entries; undefined when its UTF-8 bytes would pass `maxBytes`. */
export const encodeManifestCache = (m: CachedManifest, maxBytes = MANIFEST_CACHE_MAX_BYTES): string | undefined => {
  const rows = m.entries.filter((e) => !changedNear(e.info, e.readAtMs)).map(rowOf)
  const text = JSON.stringify({ format: MANIFEST_CACHE_FORMAT, version: MANIFEST_CACHE_VERSION, memoryDir: m.memoryDir, writtenAtMs: m.writtenAtMs, entries: rows })
  return Buffer.byteLength(text) > maxBytes ? undefined : text
}

/** The cache of `memoryDir` in `text`, its racy entries left out; undefined for anything else. */
export const decodeManifestCache = (text: string, memoryDir: string): CachedManifest | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof parsed !== "object" || parsed === null) return undefined
  const o = parsed as Record<string, unknown>
  if (o["format"] !== MANIFEST_CACHE_FORMAT || o["version"] !== MANIFEST_CACHE_VERSION || o["memoryDir"] !== memoryDir) return undefined
  const writtenAtMs = o["writtenAtMs"]
  const rows = o["entries"]
  if (!isNumber(writtenAtMs) || !Array.isArray(rows)) return undefined
  const entries: Array<CachedEntry> = []
  for (const row of rows) {
    const entry = entryOf(row, writtenAtMs)
    if (entry === undefined) return undefined
    if (!changedNear(entry.info, writtenAtMs)) entries.push(entry)
  }
  return { memoryDir, writtenAtMs, entries }
}
