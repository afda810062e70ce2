/**
 * FsError: the one error of the FileSystem service, with a `reason` a caller can branch on and a message a person
 * can read. Also the mapping from a Node errno code to that reason. Holds no file operation itself.
 */
import * as Data from "effect/Data"
import * as Schema from "effect/Schema"

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
