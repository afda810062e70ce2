/**
 * Publishing: puts new bytes at a resolved file, inside its pinned directory (pinDirectory.ts), through AtomicPublish
 * (a temp file, then `rename` over an existing file or an exclusive `link` for a new one).
 *
 * What it promises: the caller's check runs and the directory is verified right before the rename; the bytes being
 * replaced are read through a hard link to the very file the rename replaces, compared with what the caller's check
 * saw, and handed to the journal hook (writeJournal.ts) before anything changes. After the rename the directory is
 * verified again and the replaced file is read again: a directory that left memory, or a file someone wrote in place
 * meanwhile (the main agent takes no lock), gets exactly what was published taken back and the old file put back.
 *
 * It does not resolve paths, check read baselines or queue changes: the caller has done that.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { basename, dirname, join } from "node:path"
import { segmentsInside } from "../../src/storage/containment.ts"
import { newTempName, publishFile, removeTemp } from "../storage/AtomicPublish.ts"
import type { FileInfo, FileSystemShape } from "../storage/fileSystemShape.ts"
import type { PublishFailed } from "../storage/PublishFailed.ts"
import { type Pin, sameFile } from "./pinDirectory.ts"
import { fileOf, type Resolved } from "./resolveTarget.ts"
import { changed, ioFailed, stale, type StaleBaseline, type TaskInvalid, type WriteRejected } from "./writeErrors.ts"
import { type IntendedChange, unjournaled, type WriteJournal } from "./writeJournal.ts"

export interface PublishOptions {
  readonly journal?: WriteJournal | undefined
  /** Whether the bytes about to be replaced (null: none) are the ones the caller's check saw. */
  readonly expectBefore?: ((bytes: Uint8Array | null) => boolean) | undefined
  readonly fileMode?: number | undefined
  /** Where the new content came from (src/writes/provenance.ts), journaled with the change. */
  readonly source?: string | undefined
}

/**
 * Publishes `content` at `resolved.target` inside its pinned directory. Returns the published file's metadata (taken
 * from the temp file before publishing: the same inode, so its mtime is the one this write produced), or undefined
 * when a racing creator got the name first. A replaced file is kept under a temp name (a hard link) until the
 * directory is verified after publishing, so an undo puts the old file back instead of leaving none.
 */
export type Publish = (
  resolved: Resolved,
  content: string | Uint8Array,
  check: Effect.Effect<void, TaskInvalid>,
  options?: PublishOptions
) => Effect.Effect<FileInfo | undefined, PublishFailed | WriteRejected | TaskInvalid | StaleBaseline>

export const sameBytes = (a: Uint8Array | null, b: Uint8Array | null): boolean =>
  a === null || b === null ? a === b : Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b)

export const makePublish = (fs: FileSystemShape, pin: Pin): Publish => {
  const publishOnce = (
    resolved: Resolved,
    content: string | Uint8Array,
    check: Effect.Effect<void, TaskInvalid>,
    options: PublishOptions,
    intend: (change: IntendedChange) => Effect.Effect<void, PublishFailed>,
    onRenamed: () => void,
    onRolledBack: () => void
  ): Effect.Effect<FileInfo | undefined, PublishFailed | WriteRejected | TaskInvalid | StaleBaseline> =>
    Effect.scoped(Effect.gen(function*() {
      const { target, shown } = resolved
      const after = typeof content === "string" ? new TextEncoder().encode(content) : content
      let before: Uint8Array | null = null
      const segments = segmentsInside(resolved.memoryDir, dirname(target)) ?? []
      const anchor = yield* pin(resolved.memoryDir, segments, resolved.createParent !== undefined, shown).pipe(
        // A directory that existed at the check and is gone now.
        Effect.catchTag("FileMissing", () => Effect.fail(changed(shown, "the directory")))
      )
      const name = basename(target)
      const placed = join(anchor.dir, name)
      const backup = join(anchor.dir, newTempName())
      let backedUp = false
      return yield* Effect.gen(function*() {
        const outcome = yield* publishFile(fs, {
          dir: anchor.dir,
          name,
          content,
          mode: resolved.info === undefined ? "create" : "replace",
          durable: true,
          ...(options.fileMode !== undefined
            ? { fileMode: options.fileMode & 0o777 }
            : resolved.info === undefined
            ? {}
            : { fileMode: resolved.info.mode & 0o777 }),
          beforePublish: () =>
            Effect.gen(function*() {
              yield* check
              if (!(yield* anchor.verify)) return yield* Effect.fail(changed(shown, "the directory"))
              if (resolved.info !== undefined) {
                // Without hard links there is no backup, and an undo can only remove what we published.
                backedUp = yield* fs.link(placed, backup).pipe(Effect.as(true), Effect.orElseSucceed(() => false))
                // The bytes being replaced, read through the link to the very file the rename will replace.
                const read = yield* fs.readRegularFile(backedUp ? backup : placed).pipe(
                  Effect.mapError((e) => (e.reason === "NotFound" ? changed(shown, "the file") : ioFailed(target, "read")(e)))
                )
                before = read.bytes
                if (backedUp) {
                  const there = yield* fs.lstat(placed).pipe(Effect.option)
                  if (there._tag === "None" || !sameFile(there.value, read.info)) return yield* Effect.fail(stale(shown))
                }
              }
              if (options.expectBefore !== undefined && !options.expectBefore(before)) return yield* Effect.fail(stale(shown))
              yield* intend({
                file: fileOf(resolved),
                before,
                after,
                ...(resolved.info === undefined ? {} : { mode: resolved.info.mode & 0o777 }),
                ...(options.source === undefined ? {} : { source: options.source })
              })
            })
        }).pipe(
          Effect.mapError((e) => (e._tag === "FsError" ? ioFailed(target, e.op)(e) : e))
        )
        if (outcome._tag === "Taken") return undefined
        onRenamed()
        /** Takes back exactly what we published (still the same inode), putting the replaced file back if kept. */
        const takeBack = Effect.gen(function*() {
          const now = yield* fs.lstat(placed).pipe(Effect.option)
          if (now._tag === "Some" && sameFile(now.value, outcome.info)) {
            const back = yield* (backedUp ? fs.rename(backup, placed) : fs.unlink(placed)).pipe(Effect.as(true), Effect.orElseSucceed(() => false))
            if (back) {
              backedUp = false
              onRolledBack()
            }
          }
        })
        if (!(yield* anchor.verify)) {
          // The directory left its place between the last check and the publish.
          yield* takeBack
          return yield* Effect.fail(changed(shown, "the directory"))
        }
        if (backedUp && before !== null) {
          // Someone wrote into the replaced file in place between our read and the rename: their bytes win.
          const replaced = yield* fs.readRegularFile(backup).pipe(Effect.map((r) => r.bytes as Uint8Array | null), Effect.orElseSucceed(() => null))
          if (!sameBytes(replaced, before)) {
            yield* takeBack
            return yield* Effect.fail(stale(shown))
          }
        }
        return outcome.info
      }).pipe(Effect.ensuring(Effect.suspend(() => (backedUp ? removeTemp(fs, backup) : Effect.void))))
    }))

  return (resolved, content, check, options = {}) => {
    let renamed = false
    let rolledBack = false
    return (options.journal ?? unjournaled).around(
      (intend) => publishOnce(resolved, content, check, options, intend, () => void (renamed = true), () => void (rolledBack = true)),
      (exit) =>
        Exit.isSuccess(exit) ? (exit.value === undefined ? "failed" : "done") : renamed && !rolledBack ? "unknown" : "failed"
    )
  }
}
