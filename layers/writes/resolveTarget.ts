/**
 * Path resolution for the writer: where a path the caller gave really lands, and whether it may be changed there.
 *
 * The containment and name rules themselves are pure (src/storage/containment.ts); this applies them to real paths:
 * the parent directory resolved (or its deepest existing ancestor, for a file in a new directory), the result inside
 * the real memory directory and outside dot-directories, a lowercase `.md` name. A write follows a link, so the link's
 * real target must pass the same rules; a delete removes the link itself, never `MEMORY.md`, never a directory.
 *
 * It only looks (realpath, lstat, stat): it creates and changes nothing. What it answers can be out of date by the
 * time a change is made; publishing pins the directory and checks again (see pinDirectory.ts).
 */
import * as Effect from "effect/Effect"
import { basename, dirname, join, resolve } from "node:path"
import {
  brokenLink,
  checkFileName,
  checkNameRules,
  checkRawPath,
  checkSegments,
  INDEX_FILE_NAME,
  indexDelete,
  notAFile,
  outsideMemory,
  segmentsInside
} from "../../src/storage/containment.ts"
import type { FileInfo, FileSystemShape } from "../storage/fileSystemShape.ts"
import { FsError, type FsReason } from "../storage/FsError.ts"
import type { PublishFailed } from "../storage/PublishFailed.ts"
import { ioFailed, reject, type WriteRejected } from "./writeErrors.ts"

/** Where a path really lands, after containment. */
export interface Resolved {
  readonly shown: string
  readonly memoryDir: string
  /** The file to publish to or remove: a link's target for writes, the link itself for deletes. */
  readonly target: string
  /** Set when the file exists (after following links for writes; the entry itself for deletes). */
  readonly info: FileInfo | undefined
  /** Missing parent directories to create (inside memory) before publishing a new file. */
  readonly createParent: string | undefined
}

export interface ResolveOptions {
  readonly memoryDir: string
  readonly cwd: string | undefined
  readonly purpose: "write" | "remove"
  readonly byPerson?: boolean
  /**
   * Undo putting back what a task did: an index the task created may go again (the caller removes it only while it
   * still holds the bytes the task wrote), so the directory is as it was, not left with links to deleted topics.
   */
  readonly undoing?: boolean
}

/** A missing entry as undefined; every other failure stays a failure. */
export const orUndefined = <A, E extends { reason: FsReason }>(self: Effect.Effect<A, E>): Effect.Effect<A | undefined, E> =>
  Effect.catchIf(self, (e) => e.reason === "NotFound", () => Effect.succeed(undefined))

/** The path of a resolved file relative to the real memory directory, `/`-separated (as journaled and linted). */
export const fileOf = (resolved: Resolved): string =>
  (segmentsInside(resolved.memoryDir, resolved.target) ?? [basename(resolved.target)]).join("/")

const memoryRoot = (fs: FileSystemShape, memoryDir: string): Effect.Effect<string, PublishFailed> =>
  fs.realpath(memoryDir).pipe(Effect.mapError(ioFailed(memoryDir, "resolve the memory directory")))

/** The real location of `dir`, which may not exist yet: its deepest existing ancestor, resolved, plus the rest. */
const realDirectory = (
  fs: FileSystemShape,
  dir: string,
  shown: string
): Effect.Effect<{ real: string; missing: boolean }, PublishFailed | WriteRejected> =>
  Effect.gen(function*() {
    const tail: Array<string> = []
    let current = dir
    while (true) {
      const real = yield* orUndefined(fs.realpath(current)).pipe(Effect.mapError(ioFailed(current, "resolve")))
      if (real !== undefined) return { real: join(real, ...tail.reverse()), missing: tail.length > 0 }
      // Missing for realpath but present for lstat: a link to nowhere, which mkdir must never be asked to follow.
      const entry = yield* orUndefined(fs.lstat(current)).pipe(Effect.mapError(ioFailed(current, "inspect")))
      if (entry !== undefined) return yield* Effect.fail(reject(shown)(brokenLink(current)))
      const parent = dirname(current)
      if (parent === current) return yield* Effect.fail(ioFailed(dir, "resolve")(new FsError({ op: "resolve", path: dir, reason: "NotFound", detail: "" })))
      tail.push(basename(current))
      current = parent
    }
  })

export const resolveTarget = (
  fs: FileSystemShape,
  raw: string,
  options: ResolveOptions
): Effect.Effect<Resolved, WriteRejected | PublishFailed> =>
  Effect.gen(function*() {
    const shown = raw
    const rejectHere = reject(shown)
    const raw0 = checkRawPath(raw, { requireAbsolute: options.cwd === undefined })
    if (raw0 !== undefined) return yield* Effect.fail(rejectHere(raw0))
    const absolute = resolve(options.cwd ?? "/", raw)
    const name = basename(absolute)
    const nameProblem = checkFileName(name, shown)
    if (nameProblem !== undefined) return yield* Effect.fail(rejectHere(nameProblem))
    const memoryDir = yield* memoryRoot(fs, options.memoryDir)
    const parent = yield* realDirectory(fs, dirname(absolute), shown)
    const where = segmentsInside(memoryDir, parent.real)
    if (where === undefined) {
      return yield* Effect.fail(rejectHere(outsideMemory(shown, join(parent.real, name), memoryDir, options.cwd)))
    }
    const dotted = checkSegments([...where, name], shown) ??
      (options.byPerson === true ? undefined : checkNameRules([...where, name], shown))
    if (dotted !== undefined) return yield* Effect.fail(rejectHere(dotted))
    const entry = join(parent.real, name)
    const lstat = parent.missing
      ? undefined
      : yield* orUndefined(fs.lstat(entry)).pipe(Effect.mapError(ioFailed(entry, "inspect")))
    const createParent = parent.missing ? parent.real : undefined

    if (options.purpose === "remove") {
      if (lstat !== undefined && lstat.kind !== "file" && lstat.kind !== "symlink") {
        return yield* Effect.fail(rejectHere(notAFile(shown, lstat.kind)))
      }
      if (where.length === 0 && name.toLowerCase() === INDEX_FILE_NAME.toLowerCase() && lstat !== undefined && options.undoing !== true) {
        // Case-insensitive file systems: compare with the index by identity, not by spelling.
        const index = yield* orUndefined(fs.lstat(join(memoryDir, INDEX_FILE_NAME))).pipe(
          Effect.mapError(ioFailed(entry, "inspect"))
        )
        if (name === INDEX_FILE_NAME || (index !== undefined && index.ino === lstat.ino && index.dev === lstat.dev)) {
          return yield* Effect.fail(rejectHere(indexDelete(shown)))
        }
      }
      return { shown, memoryDir, target: entry, info: lstat, createParent: undefined }
    }

    if (lstat === undefined) return { shown, memoryDir, target: entry, info: undefined, createParent }
    if (lstat.kind === "file") return { shown, memoryDir, target: entry, info: lstat, createParent: undefined }
    if (lstat.kind !== "symlink") return yield* Effect.fail(rejectHere(notAFile(shown, lstat.kind)))
    // A link: writes follow it, so its real target must pass the same rules.
    const real = yield* orUndefined(fs.realpath(entry)).pipe(Effect.mapError(ioFailed(entry, "resolve")))
    if (real === undefined) return yield* Effect.fail(rejectHere(brokenLink(shown)))
    const realWhere = segmentsInside(memoryDir, real)
    if (realWhere === undefined || realWhere.length === 0) {
      return yield* Effect.fail(rejectHere(outsideMemory(shown, real, memoryDir, options.cwd)))
    }
    const realName = basename(real)
    const realProblem = checkFileName(realName, `${shown} (a link to ${real})`) ??
      checkSegments(realWhere, `${shown} (a link to ${real})`) ??
      checkNameRules(realWhere, `${shown} (a link to ${real})`)
    if (realProblem !== undefined) return yield* Effect.fail(rejectHere(realProblem))
    const info = yield* fs.stat(real).pipe(Effect.mapError(ioFailed(real, "inspect")))
    if (info.kind !== "file") return yield* Effect.fail(rejectHere(notAFile(shown, info.kind)))
    return { shown, memoryDir, target: real, info, createParent: undefined }
  })
