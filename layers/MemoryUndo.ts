/**
 * Undo of one journaled task, under the same locks as the background tasks' writes (`extract.lock`, then
 * `dream.lock`), so no task publishes into a file while it is being restored. Shared by `pm undo` and `/memory undo`.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { LockName } from "../src/limits.ts"
import { locksDirOf, type ProjectLocation } from "../src/storage.ts"
import { Journal, type UndoneFile, type UndoResult } from "./Journal.ts"
import { LockService } from "./LockService.ts"

/** How long an undo waits for a running background task to finish. */
export const UNDO_LOCK_WAIT_MS = 30_000

export class MemoryBusy extends Schema.TaggedError<MemoryBusy>()("MemoryBusy", {
  lock: Schema.String,
  waitedMs: Schema.Number
}) {
  override get message(): string {
    return `a background memory task still holds ${this.lock} after ${this.waitedMs / 1000} s; try again when it has finished`
  }
}

export interface UndoOptions {
  /** The task to undo; default: the newest task not yet undone. */
  readonly task?: string
  readonly session: string | null
  readonly model: string | null
}

/** What an undo did, a line per file, then the totals; for a file left alone, how to get its previous bytes. */
export const describeUndo = (r: UndoResult, command = "pm undo"): Array<string> => {
  const count = (o: UndoneFile["outcome"]) => r.files.filter((f) => f.outcome === o).length
  const lines = [`Undid ${r.task}:`]
  for (const f of r.files) {
    lines.push(
      f.outcome === "restored"
        ? `  restored   ${f.file}`
        : f.outcome === "deleted"
        ? `  deleted    ${f.file} (this task had created it)`
        : f.outcome === "unchanged"
        ? `  unchanged  ${f.file} (already at its previous bytes)`
        : `  left alone ${f.file}: ${f.reason ?? "unknown reason"}`
    )
  }
  if (r.files.length === 0) lines.push("  (no file to change)")
  const left = count("left")
  lines.push(
    `${count("restored")} restored, ${count("deleted")} deleted, ${count("unchanged")} unchanged, ${left} left alone.` +
      (left > 0 ? ` The previous bytes of every file of this task: ${command} ${r.task} --to DIR` : "")
  )
  return lines
}

export const undoUnderLocks = (location: ProjectLocation, options: UndoOptions, maxWaitMs = UNDO_LOCK_WAIT_MS) =>
  Effect.gen(function*() {
    const locks = yield* LockService
    const journal = yield* Journal
    const locksDir = locksDirOf(location.memoryRootDir)
    const holding = <A, E, R>(name: LockName, body: Effect.Effect<A, E, R>) =>
      locks.withLock(locksDir, name, () => body, { maxWaitMs }).pipe(
        Effect.flatMap((o) => (o._tag === "Done" ? Effect.succeed(o.value) : Effect.fail(new MemoryBusy({ lock: name, waitedMs: maxWaitMs }))))
      )
    const undo = journal.undo(
      { rootDir: location.memoryRootDir, memoryDir: location.memoryDir },
      { ...(options.task === undefined ? {} : { task: options.task }), session: options.session, model: options.model }
    )
    return yield* holding("extract.lock", holding("dream.lock", undo))
  }) satisfies Effect.Effect<UndoResult, unknown, Journal | LockService>
