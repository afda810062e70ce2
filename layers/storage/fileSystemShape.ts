/**
 * The FileSystem service's interface: the narrow set of file operations the product needs and the values they
 * return. Types only; the real implementation is in nodeFileSystem.ts, the Tag in FileSystem.ts.
 */
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type { FsError } from "./FsError.ts"

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
  /**
   * Watches one directory (not its subfolders) without keeping the process alive: `onEvent` gets the name of each
   * entry added, removed, replaced or written (undefined when the platform does not say), `onError` the end of the
   * watch. Gives the function that stops it, or undefined when the directory cannot be watched.
   */
  readonly watchDirectory: (
    path: string,
    onEvent: (name: string | undefined) => void,
    onError: () => void
  ) => Effect.Effect<(() => void) | undefined>
}
