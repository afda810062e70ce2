/**
 * Anchoring: pins the directory a change happens in, so that a directory on the path swapped for a symlink after
 * resolution cannot redirect the change outside memory. See docs/concurrency.md, "Concurrent renames and symlink swaps".
 *
 * Two schemes. Descriptor (Linux with /proc): every component below the memory directory is opened relative to the
 * previous one without following links, and every later operation goes through `/proc/self/fd/N/...`, so it lands in
 * the very directory that was opened. Path (elsewhere): each component is checked to be a real directory at its
 * canonical path, and the caller must run `verify` right before and after each change.
 *
 * A pin only opens (and, when asked, creates) directories inside memory; it publishes and deletes nothing. Its
 * descriptors are closed with the scope it runs in.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { join } from "node:path"
import type { FileInfo, FileSystemShape } from "../storage/fileSystemShape.ts"
import { FsError } from "../storage/FsError.ts"
import type { PublishFailed } from "../storage/PublishFailed.ts"
import { orUndefined } from "./resolveTarget.ts"
import { changed, FileMissing, ioFailed, type WriteRejected } from "./writeErrors.ts"

/**
 * How publishing pins its directory: "descriptor" (directories opened with O_NOFOLLOW, operations through
 * `/proc/self/fd/N`), "path" (canonical paths re-verified with realpath before and after), or "auto" (descriptor
 * when `/proc/self/fd` works, else path). Tests force each one.
 */
export type Anchoring = "auto" | "descriptor" | "path"

/** A directory pinned for publishing: `dir` names it for file operations; `verify` says whether it is still in place. */
export interface Anchor {
  readonly dir: string
  /** True while the pinned directory's real path is still the expected one inside memory. */
  readonly verify: Effect.Effect<boolean>
}

/**
 * Pins the directory `memoryDir/segments...` (memoryDir canonical), creating missing components when `create`.
 * A missing component fails as FileMissing (a delete's target is gone) unless `create`.
 */
export type Pin = (
  memoryDir: string,
  segments: ReadonlyArray<string>,
  create: boolean,
  shown: string
) => Effect.Effect<Anchor, WriteRejected | PublishFailed | FileMissing, Scope.Scope>

/** Whether two entries are the same file (inode and device). */
export const sameFile = (a: FileInfo, b: FileInfo): boolean => a.ino === b.ino && a.dev === b.dev

export const makePin = (fs: FileSystemShape, anchoring: Anchoring | undefined): Pin => {
  /**
   * Descriptor anchoring works when `/proc/self/fd/N` of an open directory resolves to that directory (Linux with
   * /proc mounted). Asked once per writer.
   */
  let descriptorsWork: boolean | undefined = anchoring === "descriptor"
    ? true
    : anchoring === "path"
    ? false
    : undefined
  const viaDescriptor = (fd: number) => `/proc/self/fd/${fd}`

  const openPinned = (path: string): Effect.Effect<number, FsError, Scope.Scope> =>
    Effect.acquireRelease(fs.openDirectory(path), (fd) => fs.closeDescriptor(fd))

  /**
   * Descriptor scheme: the memory directory is opened, then each component is opened (or made, then opened) relative
   * to the previous descriptor with O_NOFOLLOW | O_DIRECTORY, so no symlink is ever followed below memory and every
   * later operation (`/proc/self/fd/N/name`) lands in the very directory that was opened, whatever is renamed or
   * swapped meanwhile. Path scheme (no /proc): each component is made one at a time with a plain `mkdir` and checked
   * with `lstat` (a real directory, not a link) and `realpath`; operations use the canonical path string, so `verify`
   * must be run right before and after each change (see publish and delete).
   */
  return (memoryDir, segments, create, shown) =>
    Effect.gen(function*() {
      const expected = join(memoryDir, ...segments)
      const missing = (at: string) =>
        create
          ? ioFailed(at, "create the directory")(new FsError({ op: "create the directory", path: at, reason: "NotFound", detail: "ENOENT" }))
          : new FileMissing({ path: shown, op: "delete" })
      const notDirectory = (at: string) => changed(shown, `${at} (a directory on the path)`)
      if (descriptorsWork !== false) {
        const root = yield* openPinned(memoryDir).pipe(Effect.mapError(ioFailed(memoryDir, "open the memory directory")))
        if (descriptorsWork === undefined) {
          const seen = yield* fs.realpath(viaDescriptor(root)).pipe(Effect.option)
          descriptorsWork = seen._tag === "Some" && seen.value === memoryDir
        }
        if (descriptorsWork) {
          let current = root
          let at = memoryDir
          for (const segment of segments) {
            at = join(at, segment)
            const inside = `${viaDescriptor(current)}/${segment}`
            const opened = yield* openPinned(inside).pipe(
              Effect.catchIf(
                (e) => e.reason === "NotFound" && create,
                () =>
                  fs.makeDirectory(inside).pipe(
                    Effect.catchIf((e) => e.reason === "AlreadyExists", () => Effect.void),
                    Effect.zipRight(openPinned(inside))
                  )
              ),
              Effect.catchIf((e) => e.reason === "NotFound", () => Effect.fail(missing(at))),
              Effect.catchIf(
                (e) => e._tag === "FsError" && (e.reason === "TooManyLinks" || e.reason === "NotADirectory"),
                () => Effect.fail(notDirectory(at))
              ),
              Effect.mapError((e) => (e._tag === "FsError" ? ioFailed(at, "open the directory")(e) : e))
            )
            current = opened
          }
          const dir = viaDescriptor(current)
          return {
            dir,
            verify: fs.realpath(dir).pipe(Effect.map((real) => real === expected), Effect.orElseSucceed(() => false))
          } satisfies Anchor
        }
      }
      // Path scheme.
      let at = memoryDir
      for (const segment of segments) {
        at = join(at, segment)
        let entry = yield* orUndefined(fs.lstat(at)).pipe(Effect.mapError(ioFailed(at, "inspect")))
        let made = false
        if (entry === undefined) {
          if (!create) return yield* Effect.fail(missing(at))
          made = yield* fs.makeDirectory(at).pipe(
            Effect.as(true),
            Effect.catchIf((e) => e.reason === "AlreadyExists", () => Effect.succeed(false)),
            Effect.mapError(ioFailed(at, "create the directory"))
          )
          entry = yield* fs.lstat(at).pipe(Effect.mapError(ioFailed(at, "inspect")))
        }
        const real = yield* fs.realpath(at).pipe(Effect.option)
        if (entry.kind !== "directory" || real._tag === "None" || real.value !== at) {
          if (made && real._tag === "Some") {
            // Our mkdir went through a link swapped in after the check: remove the (empty) directory it made, if the
            // entry at its real location is still the one we made.
            const there = yield* fs.lstat(real.value).pipe(Effect.option)
            if (there._tag === "Some" && sameFile(there.value, entry)) yield* fs.removeDirectory(real.value).pipe(Effect.ignore)
          }
          return yield* Effect.fail(notDirectory(at))
        }
      }
      return {
        dir: expected,
        verify: fs.realpath(expected).pipe(Effect.map((real) => real === expected), Effect.orElseSucceed(() => false))
      } satisfies Anchor
    })
}
