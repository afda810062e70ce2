/**
 * Undo of one journaled task, under the same locks as the background tasks' writes (`extract.lock`, then
 * `dream.lock`), so no task publishes into a file while it is being restored. Shared by `pm undo` and `/memory undo`.
 * Every person's command that changes memory (forget, remember, undo) takes these locks here, and first rolls back
 * any change a killed process left half done (journalRecover.ts): an undo that finds one stops there, since what the
 * person wanted undone most likely is that change.
 */
import * as Effect from "effect/Effect"
import * as Data from "effect/Data"
import type { LockName } from "../../src/limits.ts"
import { locksDirOf, type ProjectLocation } from "../../src/storage/layout.ts"
import { Journal } from "./Journal.ts"
import { BACKGROUND_LOCKS, type MemoryPaths, type RecoveredTask } from "./journalRecover.ts"
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

/** An interrupted change could not be rolled back before the command: nothing of the command was done. */
export class RecoveryFailed extends Data.TaggedError("RecoveryFailed")<{
  readonly cause: Error
}> {
  override get message(): string {
    return `a change interrupted earlier could not be rolled back first, so nothing was changed: ${this.cause.message}`
  }
}

export interface PersonWait {
  /** Default PERSON_LOCK_WAIT_MS. */
  readonly maxWaitMs?: number
  /** Told every few seconds while waiting, in words: for stderr. */
  readonly onWaiting?: (line: string) => Effect.Effect<void>
  /** Told, in words, of each change interrupted earlier that was rolled back before this command's own. */
  readonly onRecovered?: (line: string) => Effect.Effect<void>
}

const KIND_WORDS: Record<string, string> = {
  forget: "a forget",
  remember: "a remember",
  undo: "an undo",
  extract: "an extraction",
  dream: "a dream",
  recover: "a recovery",
  unknown: "a change"
}

/** A line for a person about one interrupted change rolled back (or settled by the index). */
export const describeRecovered = (r: RecoveredTask): string => {
  const back = r.files.filter((f) => f.outcome === "restored" || f.outcome === "deleted").length
  const left = r.files.filter((f) => f.outcome === "left")
  const what = KIND_WORDS[r.kind] ?? "a change"
  return r.mode === "rollback"
    ? `${what} (${r.task}) was interrupted earlier; it was rolled back (${back} file${back === 1 ? "" : "s"} put back).` +
      (left.length > 0 ? ` Left as they are: ${left.map((f) => `${f.file} (${f.reason ?? ""})`).join(", ")}.` : "")
    : `${what} (${r.task}) was interrupted earlier, and files it changed were changed since: the index as it is now was kept, ` +
      `and ${back} file${back === 1 ? "" : "s"} put back to agree with it.`
}

/**
 * Runs `body` under `extract.lock` then `dream.lock`, as the background tasks take them, so no task publishes into
 * memory meanwhile; first rolls back every change a killed process left half done, and removes the temp files dead
 * processes left (`onRecovered` is told). Shared by undo, forget and remember.
 */
export const holdingBackgroundLocks = <A, E, R>(paths: MemoryPaths, body: Effect.Effect<A, E, R>, wait: PersonWait = {}) =>
  holdingBackgroundLocksAfter(paths, () => body, wait)

/** holdingBackgroundLocks with a body that is given the changes rolled back before it. */
export const holdingBackgroundLocksAfter = <A, E, R>(
  paths: MemoryPaths,
  body: (recovered: ReadonlyArray<RecoveredTask>) => Effect.Effect<A, E, R>,
  wait: PersonWait = {}
) =>
  Effect.gen(function*() {
    const locks = yield* LockService
    const journal = yield* Journal
    const rootDir = paths.rootDir
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
    const recovered = journal.recoverOpen(paths, BACKGROUND_LOCKS, { sweepAlways: true }).pipe(
      Effect.mapError((e) => new RecoveryFailed({ cause: e })),
      // A task killed before its first change left only its marker: nothing to tell.
      Effect.tap((found) =>
        wait.onRecovered === undefined ? Effect.void : Effect.forEach(found.filter((r) => r.files.length > 0), (r) => wait.onRecovered!(describeRecovered(r)))
      )
    )
    return yield* holding("extract.lock", holding("dream.lock", Effect.flatMap(recovered, body)))
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
  const recovered = (r.recovered ?? []).filter((t) => t.files.length > 0)
  if (recovered.length > 0 && r.undoTask === undefined && recovered.some((t) => t.task === r.task)) {
    return [
      ...recovered.map(describeRecovered),
      `Nothing else was undone: memory is as it was before that change. \`${command}\` again undoes the change before it.`
    ]
  }
  const lines = [...recovered.map(describeRecovered), `Undid ${r.task}:`]
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

/**
 * Undo under the background locks. When an interrupted change was found and rolled back first, and no task was named,
 * the undo stops there: its result is that roll-back (`recovered`), with nothing else undone.
 */
export const undoUnderLocks = (location: ProjectLocation, options: UndoOptions, maxWaitMs = UNDO_LOCK_WAIT_MS) =>
  Effect.gen(function*() {
    const journal = yield* Journal
    const paths = { rootDir: location.memoryRootDir, memoryDir: location.memoryDir }
    const undo = (recovered: ReadonlyArray<RecoveredTask>) => {
      // An undo interrupted earlier is rolled back and then done again; any other change rolled back is the undo asked for.
      const stopAt = options.task === undefined ? recovered.find((r) => r.kind !== "undo" && r.files.length > 0) : undefined
      if (stopAt !== undefined) {
        return Effect.succeed<UndoResult>({
          task: stopAt.task,
          undoTask: undefined,
          restored: stopAt.files.filter((f) => f.outcome !== "left").map((f) => f.file),
          refused: stopAt.files.flatMap((f) => (f.outcome === "left" ? [{ file: f.file, reason: f.reason ?? "" }] : [])),
          files: stopAt.files,
          recovered
        })
      }
      return journal.undo(paths, { ...(options.task === undefined ? {} : { task: options.task }), session: options.session, model: options.model }).pipe(
        Effect.map((r): UndoResult => (recovered.length === 0 ? r : { ...r, recovered }))
      )
    }
    return yield* holdingBackgroundLocksAfter(paths, undo, { maxWaitMs, ...options })
  }) satisfies Effect.Effect<UndoResult, unknown, Journal | LockService>
