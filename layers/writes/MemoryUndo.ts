/**
 * Undo of one journaled task, under the same locks as the background tasks' writes (`extract.lock`, then
 * `dream.lock`), so no task publishes into a file while it is being restored. Shared by `pm undo` and `/memory undo`.
 */
import * as Effect from "effect/Effect"
import * as Data from "effect/Data"
import type { LockName } from "../../src/limits.ts"
import { locksDirOf, type ProjectLocation } from "../../src/storage/layout.ts"
import { Journal } from "./Journal.ts"
import type { UndoneFile, UndoResult } from "./journalUndo.ts"
import { LockService } from "../storage/LockService.ts"

/**
 * How long an undo or a forget waits for the background locks. A dead holder's lock is taken over at once (its pid
 * is gone), so this wait is only ever spent behind a live process, reported on the way (`onWaiting`).
 */
export const PERSON_LOCK_WAIT_MS = 120_000
export const UNDO_LOCK_WAIT_MS = PERSON_LOCK_WAIT_MS

export class MemoryBusy extends Data.TaggedError("MemoryBusy")<{
  readonly lock: string
  readonly waitedMs: number
  /** Who holds it, in words ("extraction in a pi session, pid 4242 on box, for 95 s"). */
  readonly holder: string
}> {
  override get message(): string {
    return `memory is busy: ${this.lock} is held by ${this.holder}; gave up after waiting ${Math.round(this.waitedMs / 1000)} s. ` +
      "Try again when it has finished; `pm status` shows every lock and how to clear one."
  }
}

export interface PersonWait {
  /** Default PERSON_LOCK_WAIT_MS. */
  readonly maxWaitMs?: number
  /** Told every few seconds while waiting, in words: for stderr. */
  readonly onWaiting?: (line: string) => Effect.Effect<void>
}

/**
 * Runs `body` under `extract.lock` then `dream.lock`, as the background tasks take them, so no task publishes into
 * memory meanwhile. Shared by undo and forget.
 */
export const holdingBackgroundLocks = <A, E, R>(rootDir: string, body: Effect.Effect<A, E, R>, wait: PersonWait = {}) =>
  Effect.gen(function*() {
    const locks = yield* LockService
    const locksDir = locksDirOf(rootDir)
    const maxWaitMs = wait.maxWaitMs ?? PERSON_LOCK_WAIT_MS
    const onWaiting = wait.onWaiting
    const holding = <B, E2, R2>(name: LockName, inner: Effect.Effect<B, E2, R2>) =>
      locks.withLock(locksDir, name, () => inner, {
        maxWaitMs,
        ...(onWaiting === undefined ? {} : {
          onWaiting: (busy, waitedMs) => onWaiting(`waiting for ${name}: held by ${busy.description} (waited ${Math.round(waitedMs / 1000)} s)`)
        })
      }).pipe(
        Effect.flatMap((o) =>
          o._tag === "Done" ? Effect.succeed(o.value) : Effect.fail(new MemoryBusy({ lock: name, waitedMs: maxWaitMs, holder: o.description }))
        )
      )
    return yield* holding("extract.lock", holding("dream.lock", body))
  })

export interface UndoOptions extends PersonWait {
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
    const journal = yield* Journal
    const undo = journal.undo(
      { rootDir: location.memoryRootDir, memoryDir: location.memoryDir },
      { ...(options.task === undefined ? {} : { task: options.task }), session: options.session, model: options.model }
    )
    return yield* holdingBackgroundLocks(location.memoryRootDir, undo, options)
  }) satisfies Effect.Effect<UndoResult, unknown, Journal | LockService>
