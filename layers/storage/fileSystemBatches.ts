/**
 * The FileSystem's batch reads (`statMany`, `readHeads`, `readDirectories`): one entry per path, in order, a failing
 * path failing only its own entry. The real ones run the whole list as plain synchronous system calls; `eachOf`
 * builds a batch from a one-path operation (what a test's fake one-path operation then also governs).
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fs from "node:fs"
import { SCAN_CONCURRENCY } from "../../src/limits.ts"
import { FsError, toFsError } from "./FsError.ts"
import type { DirEntry, Each, EntryKind, FileInfo, HeadRead } from "./fileSystemShape.ts"
import { direntsOf, infoOf } from "./nodeStats.ts"

const notRegular = (path: string, kind: EntryKind): FsError =>
  kind === "directory"
    ? new FsError({ op: "read", path, reason: "IsDirectory", detail: "EISDIR" })
    : new FsError({ op: "read", path, reason: "NotAFile", detail: "not a regular file" })

export const readDirectoriesSync = (paths: ReadonlyArray<string>): ReadonlyArray<Each<ReadonlyArray<DirEntry>>> =>
  paths.map((path) => {
    try {
      return Either.right(direntsOf(fs.readdirSync(path, { withFileTypes: true })))
    } catch (cause) {
      return Either.left(toFsError("readdir", path)(cause))
    }
  })

export const statManySync = (paths: ReadonlyArray<string>): ReadonlyArray<Each<FileInfo>> =>
  paths.map((path) => {
    try {
      return Either.right(infoOf(fs.statSync(path)))
    } catch (cause) {
      return Either.left(toFsError("stat", path)(cause))
    }
  })

/** The synchronous twin of readRegularFile: open (never blocking), fstat, refuse non-files, read at most maxBytes. */
export const readHeadSync = (path: string, maxBytes: number): Each<HeadRead> => {
  let fd: number
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  } catch (cause) {
    return Either.left(toFsError("open", path)(cause))
  }
  try {
    const st = fs.fstatSync(fd)
    const info = infoOf(st)
    if (info.kind !== "file") return Either.left(notRegular(path, info.kind))
    const want = Math.min(st.size, maxBytes)
    const buffer = Buffer.allocUnsafe(want)
    let offset = 0
    while (offset < want) {
      const bytesRead = fs.readSync(fd, buffer, offset, want - offset, offset)
      if (bytesRead === 0) break
      offset += bytesRead
    }
    return Either.right({ bytes: buffer.subarray(0, offset), info, partial: st.size > offset })
  } catch (cause) {
    return Either.left(toFsError("read", path)(cause))
  } finally {
    try {
      fs.closeSync(fd)
    } catch {
      // A failed close of a read-only descriptor loses nothing.
    }
  }
}

/** A batch built from a one-path operation: what a fake one-path operation in a test also governs. */
export const eachOf = <A>(paths: ReadonlyArray<string>, one: (path: string) => Effect.Effect<A, FsError>): Effect.Effect<ReadonlyArray<Each<A>>> =>
  Effect.forEach(paths, (path) => Effect.either(one(path)), { concurrency: SCAN_CONCURRENCY })

