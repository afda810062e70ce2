/**
 * The writer's refusal to publish: the file is unchanged. Apart from layers/writes/MemoryWriter.ts so that what only needs
 * the error (the journal's hook) does not load the writer: \`pm scan\` loads the journal with the core, and must not
 * load the writer.
 */
import * as Data from "effect/Data"
import { type FsError, type FsReason, fsReasonText } from "./FsError.ts"
import type { LockFailed, LockLost } from "./lockInterface.ts"

/**
 * What a publish failed on: a file system call, or the journal the change is recorded in first (its own failure,
 * its lock busy, or the lock's file failing or lost). The journal's errors are named by shape: they live above
 * storage.
 */
export type PublishCause =
  | FsError
  | LockFailed
  | LockLost
  | { readonly _tag: "JournalFailed"; readonly reason: FsReason; readonly message: string }
  | { readonly _tag: "JournalBusy"; readonly message: string }

export class PublishFailed extends Data.TaggedError("PublishFailed")<{
  readonly path: string
  readonly op: string
  readonly cause: PublishCause
}> {
  /** The file system's reason; a journal that stayed busy, or a lost lock, reads as Busy. */
  get reason(): FsReason {
    const c = this.cause
    return c._tag === "FsError" || c._tag === "JournalFailed" || c._tag === "LockFailed" ? c.reason : "Busy"
  }
  override get message(): string {
    const detail = this.cause._tag === "FsError" ? this.cause.detail : this.cause.message
    return `Could not ${this.op} ${this.path}: ${fsReasonText(this.reason, detail)}. The file is unchanged.`
  }
}
