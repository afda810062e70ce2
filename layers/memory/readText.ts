/**
 * How the read path turns what the FileSystem returned into text: file bytes into UTF-8 strings, and a failure's
 * reason into the words a skipped entry, an error or a lint problem shows. Pure; reads nothing itself.
 */
import type { FsReason } from "../storage/FsError.ts"

/** The words for a file system failure, as scans, lint and the read errors report them. */
export const describeReason = (reason: FsReason): string =>
  ({
    NotFound: "missing or a dangling symlink",
    PermissionDenied: "permission denied",
    AlreadyExists: "already exists",
    NotAFile: "not a regular file",
    IsDirectory: "a directory",
    NotADirectory: "a path segment is not a directory",
    TooManyLinks: "symlink loop",
    Busy: "busy",
    NoSpace: "no space left on the device",
    ReadOnly: "read-only file system",
    QuotaExceeded: "disk quota exceeded",
    TooManyOpenFiles: "too many open files",
    InputOutput: "input/output error",
    Unknown: "unreadable"
  })[reason]

export const decode = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")
