/**
 * MemoryWriter: the one way background tasks change memory files (write, edit, delete).
 *
 * Each change goes through: containment (the real target must be a lowercase `.md` file inside the memory directory,
 * outside dot-directories: resolveTarget.ts), the task's read baseline (existing files must have been read in this
 * task: memoryTask.ts), the caller's task-validity check, then publishing: an in-process queue per file
 * (fileQueue.ts), then AtomicPublish (a temp file in the target's directory, `rename` over an existing file or an
 * exclusive `link` for a new one, the temp file removed whatever happens: publishPinned.ts). After a successful write
 * the lint runs and its findings come back with the result.
 *
 * Containment is checked on real paths, but a directory on the path can be swapped for a symlink after the check.
 * So publishing and deleting happen relative to directories opened one component at a time without following links
 * (descriptor anchoring, `/proc/self/fd/N/...`, where Linux offers it; a path-and-verify fallback elsewhere:
 * pinDirectory.ts), and the directory is re-verified before and after the change, which is undone when the directory
 * left memory meanwhile. See docs/concurrency.md, "Concurrent renames and symlink swaps".
 *
 * Journaling happens here, inside the file's queue: given a WriteJournal (writeJournal.ts), the writer journals each
 * change right before its rename or unlink, from the bytes it is about to replace (read through a hard link to the
 * very file being replaced, and compared with what the task's check saw), under the real path relative to the real
 * memory directory, and says afterwards whether the bytes were published. After the rename the replaced file is read
 * again: a writer that changed it in place meanwhile (the main agent takes no lock) gets its file back and this change
 * fails as stale. `restore` (restoreFile.ts) is undo's compare-and-swap: it replaces or removes a file only if its
 * sha256 is still the expected one at that moment. The errors are in writeErrors.ts.
 *
 * This module holds the service's interface, its constructor (which wires the parts, one per writer: the queues and
 * the anchoring scheme are the writer's own state) and its layers.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { sweepTemps as sweepTempFiles, TEMP_STALE_MS } from "../storage/AtomicPublish.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { type FileSystemShape } from "../storage/fileSystemShape.ts"
import type { PublishFailed } from "../storage/PublishFailed.ts"
import { makeRemove, makeUnlinkPinned, type RemoveOptions, type RemoveResult } from "./deleteFile.ts"
import { makeFileQueues } from "./fileQueue.ts"
import { makeMemoryTask, type MemoryTask, type TaskOptions } from "./memoryTask.ts"
import { type Anchoring, makePin } from "./pinDirectory.ts"
import { makePublish } from "./publishPinned.ts"
import { makeRestore, type RestoreOutcome, type RestoreSpec } from "./restoreFile.ts"
import type { RemoveError, WriteRejected } from "./writeErrors.ts"

export interface MemoryWriterShape {
  /** A task's handle: its own read baselines, cwd and validity check. */
  readonly openTask: (options: TaskOptions) => Effect.Effect<MemoryTask>
  /** Delete without a task (the restricted bash delete path): an absolute path unless `cwd` is given. */
  readonly remove: (path: string, options: RemoveOptions) => Effect.Effect<RemoveResult, RemoveError>
  /**
   * Puts `file` (relative to memory) back to `spec.content`, or removes it, only if its sha256 is `spec.expect` right
   * before the rename or unlink; a file changed since, a link, or a file outside memory is left alone with a reason.
   */
  readonly restore: (file: string, spec: RestoreSpec) => Effect.Effect<RestoreOutcome, WriteRejected | PublishFailed>
  /**
   * Removes temp files (`.pm-*.tmp`) older than `olderThanMs` left in the memory directory by a killed process.
   * Skips dot-directories. Returns how many were removed. Never fails. `openTask` runs it with TEMP_STALE_MS.
   */
  readonly sweepTemps: (memoryDir: string, olderThanMs: number) => Effect.Effect<number>
}

export interface MemoryWriterOptions {
  /**
   * How publishing pins its directory: "descriptor" (directories opened with O_NOFOLLOW, operations through
   * `/proc/self/fd/N`), "path" (canonical paths re-verified with realpath before and after), or "auto" (descriptor
   * when `/proc/self/fd` works, else path). Tests force each one.
   */
  readonly anchoring?: Anchoring
}

export const makeMemoryWriter = (fs: FileSystemShape, writerOptions: MemoryWriterOptions = {}): MemoryWriterShape => {
  const serialized = makeFileQueues()
  const pin = makePin(fs, writerOptions.anchoring)
  const publish = makePublish(fs, pin)
  const unlinkPinned = makeUnlinkPinned(fs, pin)
  const removeWith = makeRemove(fs, serialized, unlinkPinned)

  const remove = Effect.fn("MemoryWriter.remove")(function*(path: string, options: RemoveOptions) {
    return yield* removeWith(path, options)
  })

  const sweepTemps = Effect.fn("MemoryWriter.sweepTemps")(function*(memoryDir: string, olderThanMs: number) {
    return yield* sweepTempFiles(fs, memoryDir, { olderThanMs, recursive: true })
  })

  const openTask = Effect.fn("MemoryWriter.openTask")(function*(options: TaskOptions) {
    // Leftovers of killed processes: old enough that no living write can own them (TEMP_STALE_MS).
    yield* sweepTemps(options.memoryDir, TEMP_STALE_MS)
    return makeMemoryTask({ fs, serialized, publish, remove: removeWith }, options)
  })

  const restore = makeRestore(fs, serialized, publish, unlinkPinned)

  return { openTask, remove, restore, sweepTemps }
}

export class MemoryWriter extends Context.Tag("pm/MemoryWriter")<MemoryWriter, MemoryWriterShape>() {
  /** The service's one constructor (its layer's, and the extension graph's). */
  static readonly make: Effect.Effect<MemoryWriterShape, never, FileSystem> = Effect.map(FileSystem, (fs) => makeMemoryWriter(fs))
  static readonly layer: Layer.Layer<MemoryWriter, never, FileSystem> = Layer.effect(MemoryWriter, MemoryWriter.make)
  static readonly layerWith = (options: MemoryWriterOptions): Layer.Layer<MemoryWriter, never, FileSystem> =>
    Layer.effect(MemoryWriter, Effect.map(FileSystem, (fs) => makeMemoryWriter(fs, options)))
}
