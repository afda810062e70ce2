/**
 * Undo's compare-and-swap of one file: puts a file (relative to memory) back to given bytes, or removes it, only if its
 * sha256 is the expected one right before the rename or unlink, journaled like any other change.
 *
 * What it promises: a file changed since, a link, or something that is not a regular file is left alone, with a reason
 * in words (a `Left` outcome, not a failure); a refusal of the path itself fails as WriteRejected. It never follows a
 * link, and it runs no task check (undo is a person's act; the caller holds the background writers' locks).
 */
import * as Effect from "effect/Effect"
import { sha256Hex } from "../../src/writes/journal.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { PublishFailed } from "../storage/PublishFailed.ts"
import type { UnlinkPinned } from "./deleteFile.ts"
import type { Serialized } from "./fileQueue.ts"
import type { Publish } from "./publishPinned.ts"
import { fileOf, resolveTarget } from "./resolveTarget.ts"
import type { FileMissing, StaleBaseline, TaskInvalid, WriteRejected } from "./writeErrors.ts"
import type { WriteJournal } from "./writeJournal.ts"

/** Undo's compare-and-swap of one file (see `restore`). */
export interface RestoreSpec {
  readonly memoryDir: string
  /** The sha256 the file must have right before it is replaced or removed; null: it must not exist. */
  readonly expect: string | null
  /** The bytes to put back; null: remove the file. */
  readonly content: Uint8Array | null
  /** Permission bits for the restored file (default: the current file's). */
  readonly mode?: number
  readonly journal?: WriteJournal
}

export type RestoreOutcome =
  | { readonly _tag: "Restored" | "Created" | "Removed" }
  /** Nothing was changed, and why. */
  | { readonly _tag: "Left"; readonly reason: string }

export const makeRestore = (fs: FileSystemShape, serialized: Serialized, publish: Publish, unlinkPinned: UnlinkPinned) =>
  Effect.fn("MemoryWriter.restore")(function*(file: string, spec: RestoreSpec) {
    const purpose = spec.content === null ? "remove" : "write"
    const where = { memoryDir: spec.memoryDir, cwd: spec.memoryDir, purpose, byPerson: true, undoing: true } as const
    const left = (reason: string): RestoreOutcome => ({ _tag: "Left", reason })
    const first = yield* resolveTarget(fs, file, where)
    return yield* serialized(
      first.target,
      Effect.gen(function*(): Effect.fn.Return<RestoreOutcome, WriteRejected | PublishFailed> {
        const resolved = yield* resolveTarget(fs, file, where)
        // A write would follow a link to its target: undo puts back files, never through links.
        if (fileOf(resolved) !== file) return left(`it is now a link (to ${resolved.target})`)
        if (resolved.info !== undefined && resolved.info.kind !== "file") return left(`it is now a ${resolved.info.kind}, not a regular file`)
        const matches = (bytes: Uint8Array | null) => (bytes === null ? null : sha256Hex(bytes)) === spec.expect
        const changedSince = (e: StaleBaseline | FileMissing | WriteRejected | TaskInvalid | PublishFailed) =>
          e._tag === "StaleBaseline" || e._tag === "FileMissing" || (e._tag === "WriteRejected" && e.rule === "path-changed")
            ? Effect.succeed(left("it was changed after this task (just now, while undo ran)"))
            : e._tag === "TaskInvalid"
            ? Effect.succeed(left(e.message))
            : Effect.fail(e)
        if (spec.content === null) {
          if (resolved.info === undefined) return spec.expect === null ? { _tag: "Removed" } : left("it was deleted after this task")
          const removed = yield* unlinkPinned(resolved, file, true, { journal: spec.journal, expectBefore: matches }).pipe(
            Effect.map((done): RestoreOutcome => (done ? { _tag: "Removed" } : left("it was deleted after this task"))),
            Effect.catchAll(changedSince)
          )
          return removed
        }
        if (resolved.info === undefined && spec.expect !== null) return left("it was deleted after this task")
        if (resolved.info !== undefined && spec.expect === null) return left("it was created again after this task")
        const created = resolved.info === undefined
        return yield* publish(resolved, spec.content, Effect.void, {
          journal: spec.journal,
          expectBefore: matches,
          fileMode: spec.mode
        }).pipe(
          Effect.map((info): RestoreOutcome =>
            info === undefined ? left("it was created by someone else while undo ran") : { _tag: created ? "Created" : "Restored" }
          ),
          Effect.catchAll(changedSince)
        )
      })
    )
  })
