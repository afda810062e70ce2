/**
 * The change journal's errors. A journal that cannot be written fails the change it was asked to record (the writer
 * turns these into PublishFailed: nothing is published unjournaled); reading and undo report them as they are.
 */
import * as Data from "effect/Data"
import { type FsError, type FsReason, fsReasonText } from "../storage/FsError.ts"
import type { LockFailed, LockLost } from "../storage/lockInterface.ts"

/** A step on the journal's files failed; `cause` is the file system's own error. */
export class JournalFailed extends Data.TaggedError("JournalFailed")<{
  readonly op: string
  readonly path: string
  readonly cause: FsError
}> {
  /** The file system's reason, as a publish that failed on the journal reports it. */
  get reason(): FsReason {
    return this.cause.reason
  }
  override get message(): string {
    return `journal ${this.op} ${this.path}: ${fsReasonText(this.cause.reason, this.cause.detail)}`
  }
}

/** `journal.lock` stayed busy for the whole wait. */
export class JournalBusy extends Data.TaggedError("JournalBusy")<{
  readonly waitedMs: number
}> {
  override get message(): string {
    return `the change journal is being written by another process (waited ${this.waitedMs} ms)`
  }
}

/** No task to undo: an empty journal, every task already undone, an unknown task id, or a task rolled back already. */
export class NothingToUndo extends Data.TaggedError("NothingToUndo")<{
  readonly task: string | null
  /** The task was interrupted and rolled back when it was found, at this time (ISO 8601). */
  readonly rolledBackAt?: string
}> {
  override get message(): string {
    if (this.rolledBackAt !== undefined) {
      return `nothing to undo: ${this.task} was interrupted, and was rolled back when it was found (${this.rolledBackAt}); memory is as it was before it`
    }
    return this.task === null ? "nothing to undo: no task in the journal changed memory and is left to undo" : `no task ${this.task} in the journal`
  }
}

export type JournalWriteError = JournalFailed | JournalBusy | LockFailed | LockLost
