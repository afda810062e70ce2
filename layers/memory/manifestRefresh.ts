/**
 * One refresh of a memory directory's manifest, from what changed since the last one. Each folder the last walk
 * listed is stat-ed. With watches (a long-lived process), the names their events gave are stat-ed and only those
 * topics read, added or dropped, so a changed folder costs in proportion to the change. Without a watch it can
 * trust, a folder that moved (or changed within SCAN_RACY_MS of its stat) makes the tree be walked again and that
 * folder's files stat-ed. Besides, SCAN_RECHECK_PER_REFRESH unchanged files are stat-ed in turn (edits in place
 * where no watch runs, files behind symlinks), and `thorough` stats every one, as does the first refresh of a manifest
 * kept by an earlier process, which also lists every folder again. Never fails: an unreadable root gives no manifest.
 */
import * as Effect from "effect/Effect"
import { FRONTMATTER_MAX_BYTES, SCAN_RECHECK_PER_REFRESH, SKIPPED_DIRECTORIES } from "../../src/limits.ts"
import { INDEX_FILE } from "../../src/storage/layout.ts"
import type { Each, FileInfo, FileSystemShape } from "../storage/fileSystemShape.ts"
import {
  changed,
  changingMany,
  dropEntry,
  type Entry,
  failEntry,
  type Folder,
  type FolderWatch,
  freshManifest,
  isRacy,
  type Manifest,
  sameFile,
  stopWatches,
  storeEntry
} from "./manifestState.ts"
import { describeReason } from "./readText.ts"
import { type Candidate, entryPath, walkMemoryDir } from "./topicScan.ts"

export interface RefreshOptions {
  /** The wall clock the racy check compares folder times with. */
  readonly now: () => number
  /** Watch each folder (a process that refreshes often): changes are then found by name. */
  readonly watch: boolean
}

/**
 * Lets the events of changes already made reach their watches: they wait in the kernel for the event loop's poll,
 * and two turns of the loop hold one whole poll whatever phase this runs in.
 */
const eventsDelivered = Effect.promise(() => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve))))

const startWatch = (fs: FileSystemShape, path: string) =>
  Effect.gen(function* () {
    let stopped = false
    let stop: (() => void) | undefined
    const watch: FolderWatch = {
      pending: new Set(),
      unknown: false,
      broken: false,
      stop: () => {
        stopped = true
        stop?.()
      }
    }
    stop = yield* fs.watchDirectory(path, (name) => (name === undefined ? (watch.unknown = true) : watch.pending.add(name)), () => (watch.broken = true))
    if (stop === undefined || stopped) return undefined
    return watch
  })

const watching = (f: Folder): boolean => f.watch !== undefined && f.trusted && !f.watch.broken && !f.watch.unknown

/** Stats `entries`, then reads those that changed and `toRead`; what cannot be stat-ed or read is reported. */
const checkAndRead = (fs: FileSystemShape, m: Manifest, entries: ReadonlyArray<Entry>, toRead: Map<string, Candidate>, nowMs: number) =>
  Effect.gen(function* () {
    if (entries.length > 0) {
      const stats = yield* fs.statMany(entries.map((e) => e.candidate.path))
      entries.forEach((entry, i) => {
        const r = stats[i]!
        if (r._tag === "Left") failEntry(m, entry.candidate, describeReason(r.left.reason))
        else if (!sameFile(entry.info, r.right)) toRead.set(entry.candidate.path, entry.candidate)
      })
    }
    if (toRead.size === 0) return
    const candidates = [...toRead.values()]
    const reads = yield* fs.readHeads(candidates.map((c) => c.path), FRONTMATTER_MAX_BYTES)
    candidates.forEach((c, i) => {
      const r = reads[i]!
      if (r._tag === "Right") storeEntry(m, c, r.right, nowMs)
      else failEntry(m, c, describeReason(r.left.reason))
    })
  })

export { checkAndRead }

export const refreshManifest = (
  fs: FileSystemShape,
  options: RefreshOptions,
  previous: Manifest | undefined,
  memoryDir: string,
  thorough: boolean
): Effect.Effect<Manifest | undefined> =>
  Effect.gen(function* () {
    const startedMs = options.now()
    // A manifest kept by an earlier process: its folders are listed again, and since it knows no folder, every topic
    // it holds is stat-ed.
    const fromCache = previous?.fromCache === true
    if (fromCache) previous!.fromCache = false
    let walk = previous === undefined || fromCache
    // Folders whose stat moved since the last refresh, with the new stat (undefined: gone).
    const moved = new Map<string, FileInfo | undefined>()
    const named: Array<{ readonly candidate: Candidate; readonly stat: Each<FileInfo> }> = []
    if (previous !== undefined) {
      const m = previous
      const paths = [...m.folders.keys()]
      const stats = yield* fs.statMany(paths)
      paths.forEach((path, i) => {
        const folder = m.folders.get(path)!
        const stat = stats[i]!
        if (stat._tag === "Left") moved.set(path, undefined)
        else if (!sameFile(folder.info, stat.right)) moved.set(path, stat.right)
        else if (folder.racy && !watching(folder)) walk = true
      })
      if (options.watch && moved.size > 0) yield* eventsDelivered
      for (const [path, info] of moved) {
        const folder = m.folders.get(path)!
        const sameDir = info !== undefined && info.dev === folder.info.dev && info.ino === folder.info.ino
        if (!(watching(folder) && sameDir && folder.watch!.pending.size > 0)) walk = true
      }
      // The names the watches gave, each stat-ed: a folder among them (new, gone or changed) needs a walk.
      const names: Array<{ readonly path: string; readonly filename: string; readonly folder: string; readonly name: string }> = []
      for (const [path, folder] of m.folders) {
        const watch = folder.watch
        if (watch === undefined || watch.pending.size === 0) continue
        for (const name of watch.pending) {
          if (name !== INDEX_FILE) names.push({ path: entryPath(memoryDir, path, folder.rel, name), filename: folder.rel + name, folder: path, name })
        }
        watch.pending.clear()
      }
      const namedStats = names.length === 0 ? [] : yield* fs.statMany(names.map((n) => n.path))
      names.forEach((n, i) => {
        const stat = namedStats[i]!
        if (stat._tag === "Right" && stat.right.kind === "directory") {
          if (!SKIPPED_DIRECTORIES.has(n.name)) walk = true
        } else if (stat._tag === "Left" && m.folders.has(n.path)) walk = true
        else if (n.name.endsWith(".md")) {
          if (stat._tag === "Right" && stat.right.kind !== "file") walk = true
          else named.push({ candidate: { path: n.path, filename: n.filename, folder: n.folder }, stat })
        }
      })
    }
    const toStat: Array<Entry> = []
    const toRead = new Map<string, Candidate>()
    let m: Manifest
    if (walk) {
      const walked = yield* walkMemoryDir(fs, memoryDir).pipe(Effect.option)
      if (walked._tag === "None") {
        if (previous !== undefined) stopWatches(previous)
        return undefined
      }
      m = previous ?? freshManifest()
      changingMany(m)
      const manifest = m
      const { files, skipped, folders } = walked.value
      const before = m.folders
      const next = new Map<string, Folder>()
      const unwatched: Array<string> = []
      for (const [path, walkedFolder] of folders) {
        const old = before.get(path)
        const sameDir = old !== undefined && old.info.dev === walkedFolder.info.dev && old.info.ino === walkedFolder.info.ino
        const kept = sameDir && old.watch !== undefined && !old.watch.broken ? old.watch : undefined
        if (old?.watch !== undefined && old.watch !== kept) old.watch.stop()
        // A watch that ran before this listing's stat saw every change since: the listing covers the rest.
        if (kept !== undefined) kept.unknown = false
        next.set(path, { info: walkedFolder.info, rel: walkedFolder.rel, racy: isRacy(walkedFolder.info, startedMs), watch: kept, trusted: kept !== undefined })
        if (options.watch && kept === undefined) unwatched.push(path)
      }
      for (const [path, old] of before) if (!folders.has(path)) old.watch?.stop()
      m.folders = next
      m.walkSkipped = skipped
      const listed = new Set<string>()
      for (const c of files) {
        listed.add(c.path)
        const entry = m.entries.get(c.path)
        if (entry === undefined || entry.candidate.filename !== c.filename) toRead.set(c.path, c)
        else if (thorough || moved.has(c.folder) || !before.has(c.folder)) toStat.push(entry)
      }
      for (const path of [...m.entries.keys()]) if (!listed.has(path)) dropEntry(m, path)
      for (const path of [...m.failed.keys()]) if (!listed.has(path)) m.failed.delete(path)
      // Edits in place the events named in folders that did not move.
      for (const { candidate, stat } of named) {
        const entry = m.entries.get(candidate.path)
        if (entry !== undefined && stat._tag === "Right" && !sameFile(entry.info, stat.right)) toRead.set(candidate.path, candidate)
      }
      // Watches for the folders that have none. One started after the listing is trusted only if the folder did not
      // change meanwhile (its stat is the same and not racy); otherwise the next walk makes it trusted.
      if (unwatched.length > 0) {
        const watches = yield* Effect.forEach(unwatched, (path) => startWatch(fs, path))
        const again = yield* fs.statMany(unwatched)
        unwatched.forEach((path, i) => {
          const watch = watches[i]
          const folder = manifest.folders.get(path)!
          const stat = again[i]!
          if (watch === undefined) return
          const trusted = stat._tag === "Right" && sameFile(stat.right, folder.info) && !folder.racy
          manifest.folders.set(path, { ...folder, watch, trusted })
        })
      }
    } else {
      m = previous!
      // The events name every change: new, changed and removed topics; each moved folder takes its new stat.
      for (const { candidate, stat } of named) {
        const entry = m.entries.get(candidate.path)
        if (stat._tag === "Left") {
          dropEntry(m, candidate.path)
          if (m.failed.delete(candidate.path)) changed(m)
        } else if (entry === undefined || !sameFile(entry.info, stat.right)) toRead.set(candidate.path, candidate)
      }
      for (const [path, info] of moved) {
        const folder = m.folders.get(path)!
        m.folders.set(path, { ...folder, info: info!, racy: isRacy(info!, startedMs) })
      }
    }
    const manifest = m
    if (!walk || toStat.length === 0) {
      if (thorough) toStat.push(...manifest.entries.values())
      else {
        // An edit in place where no watch runs leaves the folder alone: a few files are checked in turn each time.
        if (manifest.rotation === undefined) manifest.rotation = [...manifest.entries.keys()]
        const rotation = manifest.rotation
        const count = Math.min(SCAN_RECHECK_PER_REFRESH, rotation.length)
        for (let k = 0; k < count; k++) {
          const entry = manifest.entries.get(rotation[(manifest.cursor + k) % rotation.length]!)
          if (entry !== undefined && !toRead.has(entry.candidate.path)) toStat.push(entry)
        }
        manifest.cursor = rotation.length === 0 ? 0 : (manifest.cursor + count) % rotation.length
      }
    }
    yield* checkAndRead(fs, manifest, toStat, toRead, startedMs)
    return manifest
  })
