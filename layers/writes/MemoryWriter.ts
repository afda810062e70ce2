/**
 * MemoryWriter: the one way background tasks change memory files (write, edit, delete).
 *
 * Each change goes through: containment (the real target must be a lowercase `.md` file inside the memory directory,
 * outside dot-directories), the task's read baseline (existing files must have been read in this task), the caller's
 * task-validity check, then publishing: an in-process queue per file, then AtomicPublish (a temp file in the target's
 * directory, `rename` over an existing file or an exclusive `link` for a new one, the temp file removed whatever
 * happens). After a successful write the lint runs and its findings come back with the result.
 *
 * Containment is checked on real paths, but a directory on the path can be swapped for a symlink after the check.
 * So publishing and deleting happen relative to directories opened one component at a time without following links
 * (descriptor anchoring, `/proc/self/fd/N/...`, where Linux offers it; a path-and-verify fallback elsewhere), and the
 * directory is re-verified before and after the change, which is undone when the directory left memory meanwhile.
 * See docs/concurrency.md, "Concurrent renames and symlink swaps".
 *
 * Journaling happens here, inside the file's queue: given a WriteJournal, the writer journals each change right before
 * its rename or unlink, from the bytes it is about to replace (read through a hard link to the very file being
 * replaced, and compared with what the task's check saw), under the real path relative to the real memory directory,
 * and says afterwards whether the bytes were published. After the rename the replaced file is read again: a writer
 * that changed it in place meanwhile (the main agent takes no lock) gets its file back and this change fails as
 * stale. `restore` is undo's compare-and-swap: it replaces or removes a file only if its sha256 is still the expected
 * one at that moment.
 */
import { PublishFailed } from "../storage/PublishFailed.ts"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { basename, dirname, join, resolve } from "node:path"
import {
  brokenLink,
  checkFileName,
  checkNameRules,
  checkRawPath,
  checkSegments,
  type ContainmentRule,
  INDEX_FILE_NAME,
  indexDelete,
  notAFile,
  outsideMemory,
  pathChanged,
  segmentsInside,
  type Violation
} from "../../src/storage/containment.ts"
import { sha256Hex } from "../../src/writes/journal.ts"
import { type LintProblem, lintIndex, lintTopic } from "../../src/memory/lint.ts"
import {
  applyEdits,
  type Baseline,
  describeEditFailure,
  type EditFailure,
  judgeWrite,
  makeBaseline,
  type ReadOutcome,
  type Replacement
} from "../../src/writes/readBaseline.ts"
import { isTempName, newTempName, publishFile, removeTemp, sweepTemps as sweepTempFiles, TEMP_STALE_MS } from "../storage/AtomicPublish.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { type FileInfo, type FileSystemShape } from "../storage/fileSystemShape.ts"
import { FsError, FsReason, fsReasonText } from "../storage/FsError.ts"

export class WriteRejected extends Schema.TaggedError<WriteRejected>()("WriteRejected", {
  rule: Schema.Literal(
    "invalid-path",
    "name-too-long",
    "not-markdown",
    "protected-directory",
    "outside-memory",
    "index-delete",
    "not-a-file",
    "broken-link",
    "invalid-name",
    "path-changed"
  ),
  path: Schema.String,
  message: Schema.String
}) {}

export class BaselineMissing extends Schema.TaggedError<BaselineMissing>()("BaselineMissing", {
  path: Schema.String
}) {
  override get message(): string {
    return `${this.path} already exists and was not read in this task. Read it first (the whole file, or a page ` +
      "with offset and limit; a read cut short by the default window does not count), then write again."
  }
}

export class StaleBaseline extends Schema.TaggedError<StaleBaseline>()("StaleBaseline", {
  path: Schema.String,
  reason: Schema.Literal("modified", "created")
}) {
  override get message(): string {
    return this.reason === "created"
      ? `${this.path} was created by someone else while this write was in progress. Read it, then decide what to write.`
      : `${this.path} changed since it was read in this task. Read it again, then retry the change.`
  }
}

export class EditFailed extends Schema.TaggedError<EditFailed>()("EditFailed", {
  path: Schema.String,
  reason: Schema.Literal("empty", "not-found", "ambiguous", "overlap", "no-change"),
  index: Schema.Number,
  message: Schema.String
}) {}

export class FileMissing extends Schema.TaggedError<FileMissing>()("FileMissing", {
  path: Schema.String,
  op: Schema.Literal("edit", "delete")
}) {
  override get message(): string {
    return this.op === "edit"
      ? `${this.path} does not exist. Use write to create it.`
      : `${this.path} does not exist. Use rm -f to ignore missing files.`
  }
}

/** Raised by the caller's `check` (trust revoked, a newer generation, the task's lock lost). */
export class TaskInvalid extends Schema.TaggedError<TaskInvalid>()("TaskInvalid", {
  reason: Schema.String
}) {
  override get message(): string {
    return `This background task may no longer change memory: ${this.reason}. Stop.`
  }
}

export { PublishFailed } from "../storage/PublishFailed.ts"

/** One change as the writer is about to make it; the path is relative to the real memory directory. */
export interface IntendedChange {
  readonly file: string
  /** The bytes being replaced (null: the file is created) and the new ones (null: it is deleted). */
  readonly before: Uint8Array | null
  readonly after: Uint8Array | null
  /** Permission bits of the file being replaced. */
  readonly mode?: number
}

/** What became of a journaled change: published, not published, or not known (a step after the rename failed). */
export type PublishState = "done" | "failed" | "unknown"

/**
 * The writer's journal hook: `around` runs one publish while holding whatever the journal needs (its lock); the
 * publish calls `intend` right before its rename or unlink (a failure there publishes nothing), and `settle` says,
 * from the publish's exit, what to record as its outcome.
 */
export interface WriteJournal {
  readonly around: <A, E>(
    publish: (intend: (change: IntendedChange) => Effect.Effect<void, PublishFailed>) => Effect.Effect<A, E>,
    settle: (exit: Exit.Exit<A, E>) => PublishState
  ) => Effect.Effect<A, E | PublishFailed>
}

/** Publishes without journaling. */
const unjournaled: WriteJournal = { around: (publish) => publish(() => Effect.void) }

export type WriteError = WriteRejected | BaselineMissing | StaleBaseline | TaskInvalid | PublishFailed
export type EditError = WriteError | EditFailed | FileMissing
export type RemoveError = WriteRejected | FileMissing | TaskInvalid | PublishFailed

export interface WriteResult {
  /** The file actually written (a link's target when the path was a link). */
  readonly path: string
  readonly created: boolean
  /** The edit applied to content that changed since the read (every oldText still matched once). */
  readonly recovered: boolean
  readonly findings: ReadonlyArray<LintProblem>
}

export interface RemoveResult {
  readonly path: string
  readonly removed: boolean
}

/** The exact bytes and mtime the read tool saw, when the caller has them (best); else the writer reads the file. */
export interface ReadSnapshot {
  readonly content: string
  readonly mtimeMs: number
}

export interface TaskOptions {
  readonly memoryDir: string
  /** The parent session's cwd at task start: relative paths resolve against it. */
  readonly cwd: string
  /** Task validity, run right before each publish. Default: always valid. */
  readonly check?: Effect.Effect<void, TaskInvalid>
  /** Where the task's changes are journaled. Default: not journaled. */
  readonly journal?: WriteJournal
}

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

export interface MemoryTask {
  /** Report a `read` of `path` in this task; records or clears its baseline. Never fails. */
  readonly recordRead: (path: string, outcome: ReadOutcome, snapshot?: ReadSnapshot) => Effect.Effect<void>
  readonly write: (path: string, content: string) => Effect.Effect<WriteResult, WriteError>
  readonly edit: (path: string, edits: ReadonlyArray<Replacement>) => Effect.Effect<WriteResult, EditError>
  readonly remove: (path: string, options?: { readonly force?: boolean }) => Effect.Effect<RemoveResult, RemoveError>
}

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

/** Where a path really lands, after containment. */
interface Resolved {
  readonly shown: string
  readonly memoryDir: string
  /** The file to publish to or remove: a link's target for writes, the link itself for deletes. */
  readonly target: string
  /** Set when the file exists (after following links for writes; the entry itself for deletes). */
  readonly info: FileInfo | undefined
  /** Missing parent directories to create (inside memory) before publishing a new file. */
  readonly createParent: string | undefined
}

const decoder = new TextDecoder()

export { isTempName }

export interface MemoryWriterOptions {
  /**
   * How publishing pins its directory: "descriptor" (directories opened with O_NOFOLLOW, operations through
   * `/proc/self/fd/N`), "path" (canonical paths re-verified with realpath before and after), or "auto" (descriptor
   * when `/proc/self/fd` works, else path). Tests force each one.
   */
  readonly anchoring?: "auto" | "descriptor" | "path"
}

/** A directory pinned for publishing: `dir` names it for file operations; `verify` says whether it is still in place. */
interface Anchor {
  readonly dir: string
  /** True while the pinned directory's real path is still the expected one inside memory. */
  readonly verify: Effect.Effect<boolean>
}

export const makeMemoryWriter = (fs: FileSystemShape, writerOptions: MemoryWriterOptions = {}): MemoryWriterShape => {
  const reject = (shown: string) => (v: Violation) => new WriteRejected({ rule: v.rule, path: shown, message: v.message })
  const ioFailed = (path: string, op: string) => (e: FsError) => new PublishFailed({ path, op, cause: e })
  const orUndefined = <A, E extends { reason: FsReason }>(self: Effect.Effect<A, E>): Effect.Effect<A | undefined, E> =>
    Effect.catchIf(self, (e) => e.reason === "NotFound", () => Effect.succeed(undefined))

  const memoryRoot = (memoryDir: string): Effect.Effect<string, PublishFailed> =>
    fs.realpath(memoryDir).pipe(Effect.mapError(ioFailed(memoryDir, "resolve the memory directory")))

  /** The real location of `dir`, which may not exist yet: its deepest existing ancestor, resolved, plus the rest. */
  const realDirectory = (
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

  const resolveTarget = (
    raw: string,
    options: {
      readonly memoryDir: string
      readonly cwd: string | undefined
      readonly purpose: "write" | "remove"
      readonly byPerson?: boolean
    }
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
      const memoryDir = yield* memoryRoot(options.memoryDir)
      const parent = yield* realDirectory(dirname(absolute), shown)
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
        if (where.length === 0 && name.toLowerCase() === INDEX_FILE_NAME.toLowerCase() && lstat !== undefined) {
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

  /** One in-process queue per real file path: changes to a file run one at a time, in arrival order. */
  const queues = new Map<string, { readonly semaphore: Effect.Semaphore; users: number }>()
  const serialized = <A, E>(key: string, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        const entry = queues.get(key) ?? { semaphore: Effect.unsafeMakeSemaphore(1), users: 0 }
        entry.users++
        queues.set(key, entry)
        return entry
      }),
      (entry) => entry.semaphore.withPermits(1)(effect),
      (entry) =>
        Effect.sync(() => {
          if (--entry.users === 0) queues.delete(key)
        })
    )

  const changed = (shown: string, what: string) => reject(shown)(pathChanged(shown, what))
  const sameFile = (a: FileInfo, b: FileInfo): boolean => a.ino === b.ino && a.dev === b.dev

  /**
   * Descriptor anchoring works when `/proc/self/fd/N` of an open directory resolves to that directory (Linux with
   * /proc mounted). Asked once per writer.
   */
  let descriptorsWork: boolean | undefined = writerOptions.anchoring === "descriptor"
    ? true
    : writerOptions.anchoring === "path"
    ? false
    : undefined
  const viaDescriptor = (fd: number) => `/proc/self/fd/${fd}`

  const openPinned = (path: string): Effect.Effect<number, FsError, Scope.Scope> =>
    Effect.acquireRelease(fs.openDirectory(path), (fd) => fs.closeDescriptor(fd))

  /**
   * Pins the directory `memoryDir/segments...` (memoryDir canonical), creating missing components when `create`.
   *
   * Descriptor scheme: the memory directory is opened, then each component is opened (or made, then opened) relative
   * to the previous descriptor with O_NOFOLLOW | O_DIRECTORY, so no symlink is ever followed below memory and every
   * later operation (`/proc/self/fd/N/name`) lands in the very directory that was opened, whatever is renamed or
   * swapped meanwhile. Path scheme (no /proc): each component is made one at a time with a plain `mkdir` and checked
   * with `lstat` (a real directory, not a link) and `realpath`; operations use the canonical path string, so `verify`
   * must be run right before and after each change (see publish and delete).
   */
  const pin = (
    memoryDir: string,
    segments: ReadonlyArray<string>,
    create: boolean,
    shown: string
  ): Effect.Effect<Anchor, WriteRejected | PublishFailed | FileMissing, Scope.Scope> =>
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

  /**
   * Publishes `content` at `resolved.target` inside its pinned directory. Returns the published file's metadata (taken
   * from the temp file before publishing: the same inode, so its mtime is the one this write produced), or undefined
   * when a racing creator got the name first. A replaced file is kept under a temp name (a hard link) until the
   * directory is verified after publishing, so an undo puts the old file back instead of leaving none.
   */
  const fileOf = (resolved: Resolved): string =>
    (segmentsInside(resolved.memoryDir, resolved.target) ?? [basename(resolved.target)]).join("/")
  const sameBytes = (a: Uint8Array | null, b: Uint8Array | null): boolean =>
    a === null || b === null ? a === b : Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b)
  const stale = (shown: string) => new StaleBaseline({ path: shown, reason: "modified" })

  interface PublishOptions {
    readonly journal?: WriteJournal | undefined
    /** Whether the bytes about to be replaced (null: none) are the ones the caller's check saw. */
    readonly expectBefore?: ((bytes: Uint8Array | null) => boolean) | undefined
    readonly fileMode?: number | undefined
  }

  const publish = (
    resolved: Resolved,
    content: string | Uint8Array,
    check: Effect.Effect<void, TaskInvalid>,
    options: PublishOptions = {}
  ): Effect.Effect<FileInfo | undefined, PublishFailed | WriteRejected | TaskInvalid | StaleBaseline> => {
    let renamed = false
    let rolledBack = false
    return (options.journal ?? unjournaled).around(
      (intend) => publishOnce(resolved, content, check, options, intend, () => void (renamed = true), () => void (rolledBack = true)),
      (exit) =>
        Exit.isSuccess(exit) ? (exit.value === undefined ? "failed" : "done") : renamed && !rolledBack ? "unknown" : "failed"
    )
  }

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
                ...(resolved.info === undefined ? {} : { mode: resolved.info.mode & 0o777 })
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

  const lint = (resolved: Resolved, content: string): ReadonlyArray<LintProblem> => {
    const filename = (segmentsInside(resolved.memoryDir, resolved.target) ?? [basename(resolved.target)]).join("/")
    return filename === INDEX_FILE_NAME ? lintIndex(content) : lintTopic({ filename, content })
  }

  const readText = (path: string): Effect.Effect<{ content: string; bytes: Uint8Array; info: FileInfo }, PublishFailed> =>
    fs.readRegularFile(path).pipe(
      Effect.map((head) => ({ content: decoder.decode(head.bytes), bytes: head.bytes, info: head.info })),
      Effect.mapError(ioFailed(path, "read"))
    )

  /**
   * Deletes `resolved.target` inside its pinned directory, and only the entry that was checked: it is first renamed
   * to a temp name in the same directory, then its identity (inode and device) is compared with the checked one;
   * a different file is put back and nothing is deleted.
   */
  const unlinkPinned = (
    resolved: Resolved,
    shown: string,
    force: boolean,
    options: PublishOptions = {}
  ): Effect.Effect<boolean, RemoveError | StaleBaseline> => {
    let renamed = false
    let rolledBack = false
    return (options.journal ?? unjournaled).around(
      (intend) => unlinkOnce(resolved, shown, force, options, intend, () => void (renamed = true), () => void (rolledBack = true)),
      (exit) => (Exit.isSuccess(exit) ? (exit.value ? "done" : "failed") : renamed && !rolledBack ? "unknown" : "failed")
    )
  }

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

  const removeWith = (raw: string, options: RemoveOptions): Effect.Effect<RemoveResult, RemoveError> =>
    Effect.gen(function*() {
      const first = yield* resolveTarget(raw, { memoryDir: options.memoryDir, cwd: options.cwd, purpose: "remove", byPerson: options.byPerson === true })
      return yield* serialized(
        first.target,
        Effect.gen(function*() {
          const resolved = yield* resolveTarget(raw, { memoryDir: options.memoryDir, cwd: options.cwd, purpose: "remove", byPerson: options.byPerson === true })
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

  const remove = Effect.fn("MemoryWriter.remove")(function*(path: string, options: RemoveOptions) {
    return yield* removeWith(path, options)
  })

  const openTask = Effect.fn("MemoryWriter.openTask")(function*(options: TaskOptions) {
    // Leftovers of killed processes: old enough that no living write can own them (TEMP_STALE_MS).
    yield* sweepTemps(options.memoryDir, TEMP_STALE_MS)
    const baselines = new Map<string, Baseline>()
    const check = options.check ?? Effect.void
    const where = { memoryDir: options.memoryDir, cwd: options.cwd }

    const keyOf = (raw: string): Effect.Effect<string> =>
      fs.realpath(resolve(options.cwd, raw)).pipe(Effect.orElseSucceed(() => resolve(options.cwd, raw)))

    const recordRead = (raw: string, outcome: ReadOutcome, snapshot?: ReadSnapshot): Effect.Effect<void> =>
      Effect.gen(function*() {
        const key = yield* keyOf(raw)
        if (outcome.kind === "image" || outcome.truncated) {
          baselines.delete(key)
          return
        }
        const seen = snapshot ?? (yield* readText(key).pipe(
          Effect.map(({ content, info }) => ({ content, mtimeMs: info.mtimeMs })),
          Effect.orElseSucceed(() => undefined)
        ))
        const baseline = seen === undefined ? undefined : makeBaseline(outcome, seen.mtimeMs, seen.content)
        if (baseline === undefined) baselines.delete(key)
        else baselines.set(key, baseline)
      }).pipe(Effect.withSpan("MemoryWriter.recordRead"))

    /**
     * After publishing, the task's baseline is what it just wrote, with the mtime of the file it published (not a
     * later stat, which could see someone else's write): a follow-up change needs no new read.
     */
    const rememberWritten = (target: string, content: string, published: FileInfo): void => {
      baselines.set(target, { mtimeMs: Math.floor(published.mtimeMs), content })
    }

    /** The shared tail of write and edit, inside the file's queue: validity, publish, baseline, lint. */
    const finish = (resolved: Resolved, content: string, recovered: boolean, seen: Uint8Array | null) =>
      Effect.gen(function*() {
        yield* check
        const published = yield* publish(resolved, content, check, {
          journal: options.journal,
          expectBefore: (bytes) => sameBytes(bytes, seen)
        }).pipe(Effect.catchTag("StaleBaseline", (e) => Effect.fail(resolved.info === undefined ? e : new StaleBaseline({ path: resolved.shown, reason: "modified" }))))
        if (published === undefined) return yield* Effect.fail(new StaleBaseline({ path: resolved.shown, reason: "created" }))
        rememberWritten(resolved.target, content, published)
        return { path: resolved.target, created: resolved.info === undefined, recovered, findings: lint(resolved, content) }
      })

    const write = Effect.fn("MemoryWriter.write")(function*(raw: string, content: string) {
      const first = yield* resolveTarget(raw, { ...where, purpose: "write" })
      return yield* serialized(
        first.target,
        Effect.gen(function*() {
          const resolved = yield* resolveTarget(raw, { ...where, purpose: "write" })
          let seen: Uint8Array | null = null
          if (resolved.info !== undefined) {
            const baseline = baselines.get(resolved.target)
            // The bytes the check judges are the ones the publish must find in place (and the journal records).
            const current = yield* readText(resolved.target)
            seen = current.bytes
            const verdict = judgeWrite(baseline, current.info.mtimeMs, () => current.content)
            if (verdict === "missing") return yield* Effect.fail(new BaselineMissing({ path: raw }))
            if (verdict === "stale") return yield* Effect.fail(new StaleBaseline({ path: raw, reason: "modified" }))
          }
          return yield* finish(resolved, content, false, seen)
        })
      )
    })

    const edit = Effect.fn("MemoryWriter.edit")(function*(raw: string, edits: ReadonlyArray<Replacement>) {
      const first = yield* resolveTarget(raw, { ...where, purpose: "write" })
      return yield* serialized(
        first.target,
        Effect.gen(function*() {
          const resolved = yield* resolveTarget(raw, { ...where, purpose: "write" })
          if (resolved.info === undefined) return yield* Effect.fail(new FileMissing({ path: raw, op: "edit" }))
          const current = yield* readText(resolved.target)
          const verdict = judgeWrite(baselines.get(resolved.target), current.info.mtimeMs, () => current.content)
          if (verdict === "missing") return yield* Effect.fail(new BaselineMissing({ path: raw }))
          const applied = applyEdits(current.content, edits)
          if (applied._tag === "Failed") {
            // Stale and no longer applicable: the model must re-read. Fresh but wrong: tell it what did not match.
            if (verdict === "stale") return yield* Effect.fail(new StaleBaseline({ path: raw, reason: "modified" }))
            return yield* Effect.fail(editFailed(raw, applied.reason, applied.index, edits.length))
          }
          return yield* finish(resolved, applied.content, verdict === "stale", current.bytes)
        })
      )
    })

    const task: MemoryTask = {
      recordRead,
      write,
      edit,
      remove: (raw, removeOptions) =>
        removeWith(raw, {
          ...where,
          check,
          ...(options.journal === undefined ? {} : { journal: options.journal }),
          ...(removeOptions?.force === undefined ? {} : { force: removeOptions.force })
        })
          .pipe(
            Effect.tap((result) => Effect.sync(() => baselines.delete(result.path))),
            Effect.withSpan("MemoryWriter.task.remove")
          )
    }
    return task
  })

  const sweepTemps = Effect.fn("MemoryWriter.sweepTemps")(function*(memoryDir: string, olderThanMs: number) {
    return yield* sweepTempFiles(fs, memoryDir, { olderThanMs, recursive: true })
  })

  const restore = Effect.fn("MemoryWriter.restore")(function*(file: string, spec: RestoreSpec) {
    const purpose = spec.content === null ? "remove" : "write"
    const where = { memoryDir: spec.memoryDir, cwd: spec.memoryDir, purpose, byPerson: true } as const
    const left = (reason: string): RestoreOutcome => ({ _tag: "Left", reason })
    const first = yield* resolveTarget(file, where)
    return yield* serialized(
      first.target,
      Effect.gen(function*(): Effect.fn.Return<RestoreOutcome, WriteRejected | PublishFailed> {
        const resolved = yield* resolveTarget(file, where)
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

  return { openTask, remove, restore, sweepTemps }
}

const editFailed = (path: string, reason: EditFailure, index: number, total: number): EditFailed =>
  new EditFailed({ path, reason, index, message: describeEditFailure(path, reason, index, total) })

export type { ContainmentRule }

export class MemoryWriter extends Context.Tag("pm/MemoryWriter")<MemoryWriter, MemoryWriterShape>() {
  /** The service's one constructor (its layer's, and the extension graph's). */
  static readonly make: Effect.Effect<MemoryWriterShape, never, FileSystem> = Effect.map(FileSystem, (fs) => makeMemoryWriter(fs))
  static readonly layer: Layer.Layer<MemoryWriter, never, FileSystem> = Layer.effect(MemoryWriter, MemoryWriter.make)
  static readonly layerWith = (options: MemoryWriterOptions): Layer.Layer<MemoryWriter, never, FileSystem> =>
    Layer.effect(MemoryWriter, Effect.map(FileSystem, (fs) => makeMemoryWriter(fs, options)))
}
