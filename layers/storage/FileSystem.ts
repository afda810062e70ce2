/**
 * FileSystem: the narrow set of file operations the product needs, with one typed error.
 * Our own service rather than @effect/platform's so that fault injection (fail at temp write, rename, cleanup)
 * is one small fake, and so non-blocking opens of FIFOs and devices are explicit.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import { SCAN_CONCURRENCY } from "../../src/limits.ts"

export const FsReason = Schema.Literal(
  "NotFound",
  "PermissionDenied",
  "AlreadyExists",
  "NotAFile",
  "IsDirectory",
  "NotADirectory",
  "TooManyLinks",
  "Busy",
  "NoSpace",
  "ReadOnly",
  "QuotaExceeded",
  "TooManyOpenFiles",
  "InputOutput",
  "Unknown"
)
export type FsReason = typeof FsReason.Type

/** Each reason in words a person understands. */
const REASON_WORDS: Record<FsReason, string> = {
  NotFound: "no such file or directory",
  PermissionDenied: "permission denied",
  AlreadyExists: "already exists",
  NotAFile: "not a regular file",
  IsDirectory: "is a directory",
  NotADirectory: "a path segment is not a directory",
  TooManyLinks: "too many symbolic links (a loop, or a link where none is allowed)",
  Busy: "busy; try again",
  NoSpace: "no space left on the device",
  ReadOnly: "the file system is read-only",
  QuotaExceeded: "the disk quota is exceeded",
  TooManyOpenFiles: "too many open files",
  InputOutput: "an input/output error (a failing disk or a lost network mount)",
  Unknown: "failed"
}

/** "no space left on the device (ENOSPC)": the reason in words, with the system's code when there is one. */
export const fsReasonText = (reason: FsReason, detail: string): string => {
  const code = /^E[A-Z0-9]+$/.test(detail) ? detail : /^(E[A-Z0-9]+)\b/.exec(detail)?.[1]
  const words = REASON_WORDS[reason]
  if (code !== undefined) return `${words} (${code})`
  return detail === "" ? words : `${words} (${detail})`
}

export class FsError extends Data.TaggedError("FsError")<{
  readonly op: string
  readonly path: string
  readonly reason: FsReason
  readonly detail: string
}> {
  override get message(): string {
    return `${this.op} ${this.path}: ${fsReasonText(this.reason, this.detail)}`
  }
}

export type EntryKind = "file" | "directory" | "symlink" | "fifo" | "socket" | "device" | "other"

export interface FileInfo {
  readonly kind: EntryKind
  readonly size: number
  readonly mtimeMs: number
  /** Inode change time: moves on any write, even one that sets the mtime back. */
  readonly ctimeMs: number
  readonly mode: number
  readonly ino: number
  readonly dev: number
}

export interface DirEntry {
  readonly name: string
  readonly kind: EntryKind
}

export interface HeadRead {
  readonly bytes: Uint8Array
  readonly info: FileInfo
  /** True when the file holds more than was read. */
  readonly partial: boolean
}

/** One path's outcome in a batch: a failing path fails only its own entry. */
export type Each<A> = Either.Either<A, FsError>

export interface WriteOptions {
  /** "w" replaces, "wx" creates exclusively and fails with AlreadyExists. */
  readonly flag?: "w" | "wx" | "a"
  readonly mode?: number
  /** O_NOFOLLOW: a symlink as the last component fails (TooManyLinks) instead of being written through. */
  readonly noFollow?: boolean
  /** fsync the data before closing, so a later rename never publishes a file whose bytes are not on disk. */
  readonly flush?: boolean
}

export interface FileSystemShape {
  /** Opens without blocking (O_NONBLOCK), refuses anything but a regular file, reads at most maxBytes. Follows links. */
  readonly readRegularFile: (path: string, maxBytes?: number) => Effect.Effect<HeadRead, FsError>
  readonly stat: (path: string) => Effect.Effect<FileInfo, FsError>
  /**
   * `stat` of many paths, one entry per path in order. The real one runs the whole list as plain synchronous system
   * calls in one effect: for small local files a stat costs microseconds, a fiber and a thread-pool round trip per
   * file cost far more.
   */
  readonly statMany: (paths: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Each<FileInfo>>>
  /**
   * `readRegularFile(path, maxBytes)` of many paths, one entry per path in order, run like `statMany`. Each file is
   * opened without blocking and checked with fstat after the open, so a FIFO or device never blocks the batch.
   */
  readonly readHeads: (paths: ReadonlyArray<string>, maxBytes: number) => Effect.Effect<ReadonlyArray<Each<HeadRead>>>
  readonly lstat: (path: string) => Effect.Effect<FileInfo, FsError>
  readonly realpath: (path: string) => Effect.Effect<string, FsError>
  readonly readDirectory: (path: string) => Effect.Effect<ReadonlyArray<DirEntry>, FsError>
  /** `readDirectory` of many paths, one entry per path in order, run like `statMany`. */
  readonly readDirectories: (paths: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Each<ReadonlyArray<DirEntry>>>>
  readonly readLink: (path: string) => Effect.Effect<string, FsError>
  readonly writeFile: (path: string, data: string | Uint8Array, options?: WriteOptions) => Effect.Effect<void, FsError>
  /**
   * Appends `data` with one write (O_APPEND, created when missing), first adding a newline when the file ends without
   * one (a line cut short by a crash); fsynced when `durable`. Returns the file's size after. Reads only the last
   * byte, whatever the file's length.
   */
  readonly appendLine: (path: string, data: string, options?: { readonly durable?: boolean }) => Effect.Effect<number, FsError>
  readonly rename: (from: string, to: string) => Effect.Effect<void, FsError>
  /** Hard link: publishes a complete file under a new name only if that name is free (AlreadyExists otherwise). */
  readonly link: (existing: string, newPath: string) => Effect.Effect<void, FsError>
  /** Removes a file or a symlink itself (never its target). */
  readonly unlink: (path: string) => Effect.Effect<void, FsError>
  readonly makeDirectory: (path: string, options?: { readonly recursive?: boolean }) => Effect.Effect<void, FsError>
  /** rmdir: removes an empty directory only. */
  readonly removeDirectory: (path: string) => Effect.Effect<void, FsError>
  readonly setTimes: (path: string, atimeMs: number, mtimeMs: number) => Effect.Effect<void, FsError>
  /**
   * Opens a directory without following a symlink as its last component (O_DIRECTORY | O_NOFOLLOW) and returns the
   * descriptor. On Linux `/proc/self/fd/<fd>/name` then names `name` inside that very directory, wherever it has
   * moved: the writer's stand-in for openat (see docs/concurrency.md).
   */
  readonly openDirectory: (path: string) => Effect.Effect<number, FsError>
  readonly closeDescriptor: (fd: number) => Effect.Effect<void>
  /** fsync a directory, so a rename or link in it survives a power loss. */
  readonly syncDirectory: (path: string) => Effect.Effect<void, FsError>
}

const reasonOf = (code: string | undefined): FsReason => {
  switch (code) {
    case "ENOENT":
      return "NotFound"
    case "EACCES":
    case "EPERM":
      return "PermissionDenied"
    case "EEXIST":
      return "AlreadyExists"
    case "EISDIR":
      return "IsDirectory"
    case "ENOTDIR":
      return "NotADirectory"
    case "ELOOP":
      return "TooManyLinks"
    case "EBUSY":
    case "EAGAIN":
      return "Busy"
    case "EMFILE":
    case "ENFILE":
      return "TooManyOpenFiles"
    case "ENOSPC":
      return "NoSpace"
    case "EROFS":
      return "ReadOnly"
    case "EDQUOT":
      return "QuotaExceeded"
    case "EIO":
      return "InputOutput"
    default:
      return "Unknown"
  }
}

export const toFsError = (op: string, path: string) => (cause: unknown): FsError => {
  const e = cause as NodeJS.ErrnoException | undefined
  return new FsError({ op, path, reason: reasonOf(e?.code), detail: e?.code ?? String(cause) })
}

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

const infoOf = (s: fs.Stats): FileInfo => ({
  kind: kindOf(s),
  size: s.size,
  mtimeMs: s.mtimeMs,
  ctimeMs: s.ctimeMs,
  mode: s.mode,
  ino: s.ino,
  dev: s.dev
})

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

const notRegular = (path: string, kind: EntryKind): FsError =>
  kind === "directory"
    ? new FsError({ op: "read", path, reason: "IsDirectory", detail: "EISDIR" })
    : new FsError({ op: "read", path, reason: "NotAFile", detail: "not a regular file" })

const direntsOf = (entries: ReadonlyArray<fs.Dirent>): ReadonlyArray<DirEntry> => entries.map((d) => ({ name: d.name, kind: kindOf(d) }))

const readDirectoriesSync = (paths: ReadonlyArray<string>): ReadonlyArray<Each<ReadonlyArray<DirEntry>>> =>
  paths.map((path) => {
    try {
      return Either.right(direntsOf(fs.readdirSync(path, { withFileTypes: true })))
    } catch (cause) {
      return Either.left(toFsError("readdir", path)(cause))
    }
  })

const statManySync = (paths: ReadonlyArray<string>): ReadonlyArray<Each<FileInfo>> =>
  paths.map((path) => {
    try {
      return Either.right(infoOf(fs.statSync(path)))
    } catch (cause) {
      return Either.left(toFsError("stat", path)(cause))
    }
  })

/** The synchronous twin of readRegularFile: open (never blocking), fstat, refuse non-files, read at most maxBytes. */
const readHeadSync = (path: string, maxBytes: number): Each<HeadRead> => {
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
const eachOf = <A>(paths: ReadonlyArray<string>, one: (path: string) => Effect.Effect<A, FsError>): Effect.Effect<ReadonlyArray<Each<A>>> =>
  Effect.forEach(paths, (path) => Effect.either(one(path)), { concurrency: SCAN_CONCURRENCY })

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
  syncDirectory
})

/**
 * `real` with `overrides` in place. A replaced `stat`, `readDirectory` or `readRegularFile` also governs its batch form
 * (run path by path through it, at most 16 at once) unless the batch form is replaced too, so one fake covers every
 * way the code reaches that operation.
 */
export const withOverrides = (real: FileSystemShape, overrides: Partial<FileSystemShape>): FileSystemShape => {
  const merged: FileSystemShape = { ...real, ...overrides }
  return {
    ...merged,
    statMany: overrides.statMany ?? (overrides.stat === undefined ? real.statMany : (paths) => eachOf(paths, merged.stat)),
    readDirectories:
      overrides.readDirectories ?? (overrides.readDirectory === undefined ? real.readDirectories : (paths) => eachOf(paths, merged.readDirectory)),
    readHeads:
      overrides.readHeads ??
      (overrides.readRegularFile === undefined ? real.readHeads : (paths, maxBytes) => eachOf(paths, (path) => merged.readRegularFile(path, maxBytes)))
  }
}

export class FileSystem extends Context.Tag("pm/FileSystem")<FileSystem, FileSystemShape>() {
  static readonly layer: Layer.Layer<FileSystem> = Layer.sync(FileSystem, makeNodeFileSystem)
  /** The real file system with some operations replaced: for fault injection in tests (see withOverrides). */
  static readonly layerWith = (overrides: Partial<FileSystemShape>): Layer.Layer<FileSystem> =>
    Layer.sync(FileSystem, () => withOverrides(makeNodeFileSystem(), overrides))
}
