/**
 * The writer's errors: why a write, edit, delete or restore of a memory file did not happen. Each one means the file is
 * unchanged (a publish that cannot say so fails as PublishFailed, from layers/storage/PublishFailed.ts). The messages
 * are written for the model that asked for the change: they say what to do next.
 *
 * Also the small constructors the writer's parts share, so every part words a refusal the same way. Nothing here
 * touches the file system.
 */
import * as Data from "effect/Data"
import { type ContainmentRule, pathChanged, type Violation } from "../../src/storage/containment.ts"
import { describeEditFailure, type EditFailure } from "../../src/writes/readBaseline.ts"
import type { FsError } from "../storage/FsError.ts"
import { PublishFailed } from "../storage/PublishFailed.ts"

export class WriteRejected extends Data.TaggedError("WriteRejected")<{
  readonly rule: ContainmentRule
  readonly path: string
  readonly message: string
}> {}

export class BaselineMissing extends Data.TaggedError("BaselineMissing")<{
  readonly path: string
}> {
  override get message(): string {
    return `${this.path} already exists and was not read in this task. Read it first (the whole file, or a page ` +
      "with offset and limit; a read cut short by the default window does not count), then write again."
  }
}

export class StaleBaseline extends Data.TaggedError("StaleBaseline")<{
  readonly path: string
  readonly reason: "modified" | "created"
}> {
  override get message(): string {
    return this.reason === "created"
      ? `${this.path} was created by someone else while this write was in progress. Read it, then decide what to write.`
      : `${this.path} changed since it was read in this task. Read it again, then retry the change.`
  }
}

/**
 * A write of text that would replace bytes of the file that are not valid UTF-8: the model was shown them as U+FFFD
 * and cannot give them back, so the write would lose them.
 */
export class UndecodableBytes extends Data.TaggedError("UndecodableBytes")<{
  readonly path: string
  /** The 1-based line of the first such byte the write would replace. */
  readonly line: number
}> {
  override get message(): string {
    return `${this.path} holds bytes that are not valid UTF-8 on line ${this.line} (shown to you as the replacement character U+FFFD), in the part ` +
      `this write replaces; writing it would lose them. Nothing was written. Use edit to change only the text around ` +
      `them, leaving line ${this.line} as it is.`
  }
}

export class EditFailed extends Data.TaggedError("EditFailed")<{
  readonly path: string
  readonly reason: EditFailure
  readonly index: number
  readonly message: string
}> {}

export class FileMissing extends Data.TaggedError("FileMissing")<{
  readonly path: string
  readonly op: "edit" | "delete"
}> {
  override get message(): string {
    return this.op === "edit"
      ? `${this.path} does not exist. Use write to create it.`
      : `${this.path} does not exist. Use rm -f to ignore missing files.`
  }
}

/** Raised by the caller's `check` (trust revoked, a newer generation, the task's lock lost). */
export class TaskInvalid extends Data.TaggedError("TaskInvalid")<{
  readonly reason: string
}> {
  override get message(): string {
    return `This background task may no longer change memory: ${this.reason}. Stop.`
  }
}

export type WriteError = WriteRejected | BaselineMissing | StaleBaseline | TaskInvalid | PublishFailed | UndecodableBytes
export type EditError = WriteError | EditFailed | FileMissing
export type RemoveError = WriteRejected | FileMissing | TaskInvalid | PublishFailed

/** A containment violation of the path the caller gave (`shown`), as the refusal the caller sees. */
export const reject = (shown: string) => (v: Violation) => new WriteRejected({ rule: v.rule, path: shown, message: v.message })

/** A file-system step that failed: nothing was published. */
export const ioFailed = (path: string, op: string) => (e: FsError) => new PublishFailed({ path, op, cause: e })

/** Something on the path (`what`) is no longer what was checked. */
export const changed = (shown: string, what: string) => reject(shown)(pathChanged(shown, what))

/** The file's bytes are not the ones the caller's check saw. */
export const stale = (shown: string) => new StaleBaseline({ path: shown, reason: "modified" })

export const editFailed = (path: string, reason: EditFailure, index: number, total: number): EditFailed =>
  new EditFailed({ path, reason, index, message: describeEditFailure(path, reason, index, total) })
