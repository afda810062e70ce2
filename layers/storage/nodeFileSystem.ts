/**
 * The real FileSystem over Node's `fs`: every operation maps a Node error to FsError and nothing else. Opens of
 * files to read never block (O_NONBLOCK) and refuse anything but a regular file, so a FIFO or a device is explicit.
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import { FsError, toFsError } from "./FsError.ts"
import { readDirectoriesSync, readHeadSync, statManySync } from "./fileSystemBatches.ts"
import type { FileSystemShape, HeadRead, WriteOptions } from "./fileSystemShape.ts"
import { direntsOf, infoOf } from "./nodeStats.ts"

const attempt = <A>(op: string, path: string, f: () => Promise<A>): Effect.Effect<A, FsError> =>
  Effect.tryPromise({ try: f, catch: toFsError(op, path) })

const readRegularFile = (path: string, maxBytes = Number.POSITIVE_INFINITY): Effect.Effect<HeadRead, FsError> =>
  Effect.acquireUseRelease(
    attempt("open", path, () => fsp.open(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)),
    (handle) =>
      attempt("read", path, async () => {
        const st = await handle.stat()
        const info = infoOf(st)
        if (info.kind !== "file") {
          throw Object.assign(new Error("not a regular file"), { code: info.kind === "directory" ? "EISDIR" : "ENOTREG" })
        }
        const want = Math.min(st.size, maxBytes)
        const buffer = Buffer.alloc(want)
        let offset = 0
        while (offset < want) {
          const { bytesRead } = await handle.read(buffer, offset, want - offset, offset)
          if (bytesRead === 0) break
          offset += bytesRead
        }
        return { bytes: buffer.subarray(0, offset), info, partial: st.size > offset }
      }).pipe(
        Effect.mapError((e) =>
          e.detail === "ENOTREG" ? new FsError({ op: "read", path, reason: "NotAFile", detail: "not a regular file" }) : e
        )
      ),
    (handle) => Effect.promise(() => handle.close().catch(() => undefined))
  )

const writeFlags = (options: WriteOptions | undefined): string | number => {
  const flag = options?.flag ?? "w"
  if (options?.noFollow !== true) return flag
  const c = fs.constants
  const base = flag === "wx" ? c.O_CREAT | c.O_EXCL : flag === "a" ? c.O_CREAT | c.O_APPEND : c.O_CREAT | c.O_TRUNC
  return c.O_WRONLY | base | c.O_NOFOLLOW
}

const openDirectory = (path: string): Effect.Effect<number, FsError> =>
  attempt("opendir", path, () =>
    new Promise<number>((ok, fail) =>
      fs.open(path, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW, (e, fd) => (e ? fail(e) : ok(fd)))
    ))

const closeDescriptor = (fd: number): Effect.Effect<void> =>
  Effect.async<void>((resume) => fs.close(fd, () => resume(Effect.void)))

const appendLine = (path: string, data: string, options?: { readonly durable?: boolean }): Effect.Effect<number, FsError> =>
  Effect.acquireUseRelease(
    attempt("open", path, () => fsp.open(path, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o600)),
    (handle) =>
      attempt("append", path, async () => {
        const { size } = await handle.stat()
        let text = data
        if (size > 0) {
          const last = Buffer.alloc(1)
          await handle.read(last, 0, 1, size - 1)
          if (last[0] !== 0x0a) text = `\n${data}`
        }
        const bytes = Buffer.from(text, "utf8")
        let written = 0
        while (written < bytes.length) written += (await handle.write(bytes, written, bytes.length - written)).bytesWritten
        if (options?.durable === true) await handle.sync()
        return size + bytes.length
      }),
    (handle) => Effect.promise(() => handle.close().catch(() => undefined))
  )

const syncDirectory = (path: string): Effect.Effect<void, FsError> =>
  Effect.acquireUseRelease(
    attempt("open", path, () => fsp.open(path, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY)),
    (handle) => attempt("fsync", path, () => handle.sync()),
    (handle) => Effect.promise(() => handle.close().catch(() => undefined))
  )

const watchDirectory = (path: string, onEvent: (name: string | undefined) => void, onError: () => void) =>
  Effect.sync((): (() => void) | undefined => {
    try {
      const watcher = fs.watch(path, { persistent: false, encoding: "utf8" }, (_event, name) => onEvent(name ?? undefined))
      watcher.on("error", () => {
        onError()
        watcher.close()
      })
      return () => watcher.close()
    } catch {
      return undefined
    }
  })

export const makeNodeFileSystem = (): FileSystemShape => ({
  readRegularFile,
  stat: (path) => attempt("stat", path, () => fsp.stat(path)).pipe(Effect.map(infoOf)),
  statMany: (paths) => Effect.sync(() => statManySync(paths)),
  readHeads: (paths, maxBytes) => Effect.sync(() => paths.map((path) => readHeadSync(path, maxBytes))),
  lstat: (path) => attempt("lstat", path, () => fsp.lstat(path)).pipe(Effect.map(infoOf)),
  realpath: (path) => attempt("realpath", path, () => fsp.realpath(path)),
  readDirectory: (path) =>
    attempt("readdir", path, () => fsp.readdir(path, { withFileTypes: true })).pipe(
      Effect.map(direntsOf)
    ),
  readDirectories: (paths) => Effect.sync(() => readDirectoriesSync(paths)),
  readLink: (path) => attempt("readlink", path, () => fsp.readlink(path)),
  writeFile: (path, data, options) =>
    attempt("write", path, () =>
      fsp.writeFile(path, data, {
        flag: writeFlags(options),
        ...(options?.mode === undefined ? {} : { mode: options.mode }),
        ...(options?.flush === true ? { flush: true } : {})
      })
    ),
  appendLine,
  rename: (from, to) => attempt("rename", from, () => fsp.rename(from, to)),
  link: (existing, newPath) => attempt("link", newPath, () => fsp.link(existing, newPath)),
  unlink: (path) => attempt("unlink", path, () => fsp.unlink(path)),
  makeDirectory: (path, options) =>
    attempt("mkdir", path, () => fsp.mkdir(path, { recursive: options?.recursive ?? false })).pipe(Effect.asVoid),
  removeDirectory: (path) => attempt("rmdir", path, () => fsp.rmdir(path)),
  setTimes: (path, atimeMs, mtimeMs) => attempt("utimes", path, () => fsp.utimes(path, atimeMs / 1000, mtimeMs / 1000)),
  openDirectory,
  closeDescriptor,
  syncDirectory,
  watchDirectory
})
