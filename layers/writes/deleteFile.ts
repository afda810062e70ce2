/**
 * Deleting a memory file: `unlinkPinned` removes a resolved entry inside its pinned directory (pinDirectory.ts), and
 * only the entry that was checked; `makeRemove` is the writer's delete (resolution, the file's queue, the task's
 * check, then the pinned unlink).
 *
 * What it promises: the entry is first renamed to a temp name in the same directory, then its identity (inode and
 * device) is compared with the checked one, and its bytes with the ones handed to the journal hook; a different file,
 * or one written in place meanwhile, is put back under its name (never over a file someone created there since) and
 * nothing is deleted. A link is removed as a link: nothing of a file's content goes, so nothing is journaled.
 *
 * It never deletes a directory or `MEMORY.md` (resolution refuses them, resolveTarget.ts).
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { basename, dirname, join } from "node:path"
import { segmentsInside } from "../../src/storage/containment.ts"
import { newTempName, removeTemp } from "../storage/AtomicPublish.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { PublishFailed } from "../storage/PublishFailed.ts"
import type { Serialized } from "./fileQueue.ts"
import { type Anchor, type Pin, sameFile } from "./pinDirectory.ts"
import { type PublishOptions, sameBytes } from "./publishPinned.ts"
import { fileOf, orUndefined, type Resolved, resolveTarget } from "./resolveTarget.ts"
import { changed, FileMissing, ioFailed, type RemoveError, stale, type StaleBaseline, type TaskInvalid } from "./writeErrors.ts"
import { type IntendedChange, unjournaled, type WriteJournal } from "./writeJournal.ts"

export interface RemoveOptions {
  readonly memoryDir: string
  /** `rm -f`: a missing target succeeds (without creating anything). */
  readonly force?: boolean
  /** Without a cwd the path must be absolute. */
  readonly cwd?: string
  readonly check?: Effect.Effect<void, TaskInvalid>
  /**
   * A person's delete (`pm forget`): names the naming rules would refuse for a model (spaces, a leading "-") are
   * allowed, since such files were made by hand. Containment and the dot-directory rule still apply.
   */
  readonly byPerson?: boolean
  readonly journal?: WriteJournal
}

export interface RemoveResult {
  readonly path: string
  readonly removed: boolean
}

/**
 * Deletes `resolved.target` (which exists: `resolved.info` is set) inside its pinned directory. True when it was
 * removed; false when it was already gone and `force`.
 */
export type UnlinkPinned = (
  resolved: Resolved,
  shown: string,
  force: boolean,
  options?: PublishOptions
) => Effect.Effect<boolean, RemoveError | StaleBaseline>

export const makeUnlinkPinned = (fs: FileSystemShape, pin: Pin): UnlinkPinned => {
  const unlinkOnce = (
    resolved: Resolved,
    shown: string,
    force: boolean,
    options: PublishOptions,
    intend: (change: IntendedChange) => Effect.Effect<void, PublishFailed>,
    onRenamed: () => void,
    onRolledBack: () => void
  ): Effect.Effect<boolean, RemoveError | StaleBaseline> =>
    Effect.scoped(Effect.gen(function*() {
      const checked = resolved.info!
      const segments = segmentsInside(resolved.memoryDir, dirname(resolved.target)) ?? []
      const gone = () => force ? Effect.succeed(false) : Effect.fail(new FileMissing({ path: shown, op: "delete" }))
      const pinned = yield* pin(resolved.memoryDir, segments, false, shown).pipe(
        Effect.map((anchor): Anchor | undefined => anchor),
        Effect.catchTag("FileMissing", () => Effect.succeed(undefined))
      )
      if (pinned === undefined) return yield* gone()
      const anchor = pinned
      const entry = join(anchor.dir, basename(resolved.target))
      const now = yield* orUndefined(fs.lstat(entry)).pipe(Effect.mapError(ioFailed(resolved.target, "inspect")))
      if (now === undefined) return yield* gone()
      if (!sameFile(now, checked) || !(yield* anchor.verify)) return yield* Effect.fail(changed(shown, "the file"))
      // The bytes being removed (a link is removed as a link: nothing of a file's content goes, nothing to journal).
      const before = now.kind === "file"
        ? yield* fs.readRegularFile(entry).pipe(
          Effect.map((r) => r.bytes as Uint8Array),
          Effect.mapError((e) => (e.reason === "NotFound" ? changed(shown, "the file") : ioFailed(resolved.target, "read")(e)))
        )
        : null
      if (options.expectBefore !== undefined && !options.expectBefore(before)) return yield* Effect.fail(stale(shown))
      if (before !== null) yield* intend({ file: fileOf(resolved), before, after: null, mode: now.mode & 0o777 })
      const trash = join(anchor.dir, newTempName())
      const moved = yield* fs.rename(entry, trash).pipe(
        Effect.as(true),
        Effect.catchIf((e) => e.reason === "NotFound", () => Effect.succeed(false)),
        Effect.mapError(ioFailed(resolved.target, "delete"))
      )
      if (!moved) return yield* gone()
      onRenamed()
      /** Puts the moved file back under its name, never over a file someone created there meanwhile. */
      const putBack = fs.link(trash, entry).pipe(
        Effect.zipRight(removeTemp(fs, trash)),
        Effect.tap(() => Effect.sync(onRolledBack)),
        Effect.ignore
      )
      const trashed = yield* fs.lstat(trash).pipe(Effect.option)
      if (trashed._tag === "None" || !sameFile(trashed.value, checked)) {
        yield* putBack
        return yield* Effect.fail(changed(shown, "the file"))
      }
      if (before !== null) {
        // Written in place between our read and the rename: that writer's bytes are not ours to remove.
        const removed = yield* fs.readRegularFile(trash).pipe(Effect.map((r) => r.bytes as Uint8Array | null), Effect.orElseSucceed(() => null))
        if (!sameBytes(removed, before)) {
          yield* putBack
          return yield* Effect.fail(stale(shown))
        }
      }
      yield* removeTemp(fs, trash)
      if (options.journal !== undefined) yield* fs.syncDirectory(anchor.dir).pipe(Effect.ignore)
      return true
    }))

  return (resolved, shown, force, options = {}) => {
    let renamed = false
    let rolledBack = false
    return (options.journal ?? unjournaled).around(
      (intend) => unlinkOnce(resolved, shown, force, options, intend, () => void (renamed = true), () => void (rolledBack = true)),
      (exit) => (Exit.isSuccess(exit) ? (exit.value ? "done" : "failed") : renamed && !rolledBack ? "unknown" : "failed")
    )
  }
}

/** The writer's delete of `raw`, resolved again inside the file's queue (it may have changed while waiting). */
export const makeRemove = (
  fs: FileSystemShape,
  serialized: Serialized,
  unlinkPinned: UnlinkPinned
) =>
(raw: string, options: RemoveOptions): Effect.Effect<RemoveResult, RemoveError> =>
  Effect.gen(function*() {
    const first = yield* resolveTarget(fs, raw, { memoryDir: options.memoryDir, cwd: options.cwd, purpose: "remove", byPerson: options.byPerson === true })
    return yield* serialized(
      first.target,
      Effect.gen(function*() {
        const resolved = yield* resolveTarget(fs, raw, { memoryDir: options.memoryDir, cwd: options.cwd, purpose: "remove", byPerson: options.byPerson === true })
        if (resolved.info === undefined) {
          if (options.force === true) return { path: resolved.target, removed: false }
          return yield* Effect.fail(new FileMissing({ path: raw, op: "delete" }))
        }
        if (options.check !== undefined) yield* options.check
        const removed = yield* unlinkPinned(resolved, raw, options.force === true, { journal: options.journal }).pipe(
          // A file written in place while it was being removed: it is no longer the file that was asked for.
          Effect.catchTag("StaleBaseline", () => Effect.fail(changed(raw, "the file")))
        )
        return { path: resolved.target, removed }
      })
    )
  })
