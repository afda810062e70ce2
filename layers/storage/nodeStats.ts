/** From Node's `Stats` and `Dirent` to the FileSystem's own values: what a stat or a listing reports, nothing else. */
import type * as fs from "node:fs"
import type { DirEntry, EntryKind, FileInfo } from "./fileSystemShape.ts"

export const kindOf = (s: fs.Stats | fs.Dirent): EntryKind =>
  s.isFile()
    ? "file"
    : s.isDirectory()
    ? "directory"
    : s.isSymbolicLink()
    ? "symlink"
    : s.isFIFO()
    ? "fifo"
    : s.isSocket()
    ? "socket"
    : s.isBlockDevice() || s.isCharacterDevice()
    ? "device"
    : "other"

export const infoOf = (s: fs.Stats): FileInfo => ({
  kind: kindOf(s),
  size: s.size,
  mtimeMs: s.mtimeMs,
  ctimeMs: s.ctimeMs,
  mode: s.mode,
  ino: s.ino,
  dev: s.dev
})

export const direntsOf = (entries: ReadonlyArray<fs.Dirent>): ReadonlyArray<DirEntry> => entries.map((d) => ({ name: d.name, kind: kindOf(d) }))
