/**
 * MemoryWriter: the one way background tasks change memory files (write, edit, delete).
 *
 * Each change goes through: containment (the real target must be a lowercase `.md` file inside the memory directory,
 * outside dot-directories), the task's read baseline (existing files must have been read in this task), the caller's
 * task-validity check, then publishing: an in-process queue per file, a temp file in the target's directory, `rename`
 * over an existing file or an exclusive `link` for a new one, and the temp file removed whatever happens. After a
 * successful write the lint runs and its findings come back with the result. See docs/concurrency.md.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { randomUUID } from "node:crypto"
import { basename, dirname, join, resolve } from "node:path"
import {
  brokenLink,
  checkFileName,
  checkRawPath,
  checkSegments,
  type ContainmentRule,
  INDEX_FILE_NAME,
  indexDelete,
  notAFile,
  outsideMemory,
  segmentsInside,
  type Violation
} from "../src/containment.ts"
import { type LintProblem, lintIndex, lintTopic } from "../src/lint.ts"
import {
  applyEdits,
  type Baseline,
  describeEditFailure,
  type EditFailure,
  judgeWrite,
  makeBaseline,
  type ReadOutcome,
  type Replacement
} from "../src/readBaseline.ts"
import { type FileInfo, FileSystem, type FileSystemShape, FsReason } from "./FileSystem.ts"

export class WriteRejected extends Schema.TaggedError<WriteRejected>()("WriteRejected", {
  rule: Schema.Literal(
    "invalid-path",
    "name-too-long",
    "not-markdown",
    "protected-directory",
    "outside-memory",
    "index-delete",
    "not-a-file",
    "broken-link"
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

export class PublishFailed extends Schema.TaggedError<PublishFailed>()("PublishFailed", {
  path: Schema.String,
  op: Schema.String,
  reason: FsReason,
  detail: Schema.String
}) {
  override get message(): string {
    return `Could not ${this.op} ${this.path}: ${this.reason}${this.detail ? ` (${this.detail})` : ""}. The file is unchanged.`
  }
}

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
}

export interface RemoveOptions {
  readonly memoryDir: string
  /** `rm -f`: a missing target succeeds (without creating anything). */
  readonly force?: boolean
  /** Without a cwd the path must be absolute. */
  readonly cwd?: string
  readonly check?: Effect.Effect<void, TaskInvalid>
}

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
   * Removes temp files (`.pm-*.tmp`) older than `olderThanMs` left in the memory directory by a killed process.
   * Skips dot-directories. Returns how many were removed. Never fails.
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
const TEMP_PREFIX = ".pm-"
const TEMP_SUFFIX = ".tmp"

export const isTempName = (name: string): boolean => name.startsWith(TEMP_PREFIX) && name.endsWith(TEMP_SUFFIX)

export const makeMemoryWriter = (fs: FileSystemShape): MemoryWriterShape => {
  const reject = (shown: string) => (v: Violation) => new WriteRejected({ rule: v.rule, path: shown, message: v.message })
  const ioFailed = (path: string, op: string) => (e: { reason: FsReason; detail: string }) =>
    new PublishFailed({ path, op, reason: e.reason, detail: e.detail })
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
        if (parent === current) return yield* Effect.fail(ioFailed(dir, "resolve")({ reason: "NotFound", detail: "" }))
        tail.push(basename(current))
        current = parent
      }
    })

  const resolveTarget = (
    raw: string,
    options: { readonly memoryDir: string; readonly cwd: string | undefined; readonly purpose: "write" | "remove" }
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
      const dotted = checkSegments([...where, name], shown)
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
        checkSegments(realWhere, `${shown} (a link to ${real})`)
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

  /** Removes a temp file, retrying a few times; NotFound means it is already gone (renamed or linked away). */
  const cleanup = (temp: string): Effect.Effect<void> =>
    orUndefined(fs.unlink(temp)).pipe(
      Effect.retry({ times: 4, schedule: Schedule.exponential("5 millis") }),
      Effect.catchAll((e) => Effect.logWarning(`could not remove temp file ${temp}: ${e.message}`)),
      Effect.asVoid
    )

  /** Stages `content` beside the target and publishes it. Returns false when a racing creator got there first. */
  const publish = (resolved: Resolved, content: string): Effect.Effect<boolean, PublishFailed> =>
    Effect.gen(function*() {
      const { target } = resolved
      if (resolved.createParent !== undefined) {
        yield* fs.makeDirectory(resolved.createParent, { recursive: true }).pipe(
          Effect.mapError(ioFailed(resolved.createParent, "create the directory"))
        )
      }
      const temp = join(dirname(target), `${TEMP_PREFIX}${randomUUID()}${TEMP_SUFFIX}`)
      const mode = resolved.info === undefined ? {} : { mode: resolved.info.mode & 0o777 }
      const staged = fs.writeFile(temp, content, { flag: "wx", ...mode }).pipe(
        Effect.mapError(ioFailed(target, "stage"))
      )
      if (resolved.info !== undefined) {
        // After a successful rename the temp name no longer exists: clean up only on failure or interruption.
        return yield* staged.pipe(
          Effect.zipRight(fs.rename(temp, target).pipe(Effect.mapError(ioFailed(target, "replace")))),
          Effect.as(true),
          Effect.onError(() => cleanup(temp))
        )
      }
      // A new file: the complete temp file is linked under the target name, which fails if the name was taken.
      return yield* staged.pipe(
        Effect.zipRight(fs.link(temp, target)),
        Effect.as(true),
        Effect.catchIf((e) => e._tag === "FsError" && e.reason === "AlreadyExists", () => Effect.succeed(false)),
        Effect.mapError((e) => e._tag === "FsError" ? ioFailed(target, "create")(e) : e),
        Effect.ensuring(cleanup(temp))
      )
    })

  const lint = (resolved: Resolved, content: string): ReadonlyArray<LintProblem> => {
    const filename = (segmentsInside(resolved.memoryDir, resolved.target) ?? [basename(resolved.target)]).join("/")
    return filename === INDEX_FILE_NAME ? lintIndex(content) : lintTopic({ filename, content })
  }

  const readText = (path: string): Effect.Effect<{ content: string; info: FileInfo }, PublishFailed> =>
    fs.readRegularFile(path).pipe(
      Effect.map((head) => ({ content: decoder.decode(head.bytes), info: head.info })),
      Effect.mapError(ioFailed(path, "read"))
    )

  const removeWith = (raw: string, options: RemoveOptions): Effect.Effect<RemoveResult, RemoveError> =>
    Effect.gen(function*() {
      const first = yield* resolveTarget(raw, { memoryDir: options.memoryDir, cwd: options.cwd, purpose: "remove" })
      return yield* serialized(
        first.target,
        Effect.gen(function*() {
          const resolved = yield* resolveTarget(raw, { memoryDir: options.memoryDir, cwd: options.cwd, purpose: "remove" })
          if (resolved.info === undefined) {
            if (options.force === true) return { path: resolved.target, removed: false }
            return yield* Effect.fail(new FileMissing({ path: raw, op: "delete" }))
          }
          if (options.check !== undefined) yield* options.check
          const removed = yield* fs.unlink(resolved.target).pipe(
            Effect.as(true),
            Effect.catchIf((e) => e.reason === "NotFound" && options.force === true, () => Effect.succeed(false)),
            Effect.catchIf(
              (e) => e.reason === "NotFound",
              () => Effect.fail(new FileMissing({ path: raw, op: "delete" }))
            ),
            Effect.mapError((e) => e._tag === "FsError" ? ioFailed(resolved.target, "delete")(e) : e)
          )
          return { path: resolved.target, removed }
        })
      )
    })

  const remove = Effect.fn("MemoryWriter.remove")(function*(path: string, options: RemoveOptions) {
    return yield* removeWith(path, options)
  })

  const openTask = Effect.fn("MemoryWriter.openTask")(function*(options: TaskOptions) {
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

    /** After publishing, the task's baseline is what it just wrote: a follow-up change needs no new read. */
    const rememberWritten = (target: string, content: string): Effect.Effect<void> =>
      fs.stat(target).pipe(
        Effect.map((info) => baselines.set(target, { mtimeMs: Math.floor(info.mtimeMs), content })),
        Effect.catchAll(() => Effect.sync(() => baselines.delete(target))),
        Effect.asVoid
      )

    /** The shared tail of write and edit, inside the file's queue: validity, publish, baseline, lint. */
    const finish = (resolved: Resolved, content: string, recovered: boolean) =>
      Effect.gen(function*() {
        yield* check
        const published = yield* publish(resolved, content)
        if (!published) return yield* Effect.fail(new StaleBaseline({ path: resolved.shown, reason: "created" }))
        yield* rememberWritten(resolved.target, content)
        return { path: resolved.target, created: resolved.info === undefined, recovered, findings: lint(resolved, content) }
      })

    const write = Effect.fn("MemoryWriter.write")(function*(raw: string, content: string) {
      const first = yield* resolveTarget(raw, { ...where, purpose: "write" })
      return yield* serialized(
        first.target,
        Effect.gen(function*() {
          const resolved = yield* resolveTarget(raw, { ...where, purpose: "write" })
          if (resolved.info !== undefined) {
            const baseline = baselines.get(resolved.target)
            // The content is compared only when the mtime moved past a full read's baseline.
            const compare = baseline?.content !== undefined && Math.floor(resolved.info.mtimeMs) > baseline.mtimeMs
            const current = compare ? (yield* readText(resolved.target)).content : ""
            const verdict = judgeWrite(baseline, resolved.info.mtimeMs, () => current)
            if (verdict === "missing") return yield* Effect.fail(new BaselineMissing({ path: raw }))
            if (verdict === "stale") return yield* Effect.fail(new StaleBaseline({ path: raw, reason: "modified" }))
          }
          return yield* finish(resolved, content, false)
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
          return yield* finish(resolved, applied.content, verdict === "stale")
        })
      )
    })

    const task: MemoryTask = {
      recordRead,
      write,
      edit,
      remove: (raw, removeOptions) =>
        removeWith(raw, { ...where, check, ...(removeOptions?.force === undefined ? {} : { force: removeOptions.force }) })
          .pipe(
            Effect.tap((result) => Effect.sync(() => baselines.delete(result.path))),
            Effect.withSpan("MemoryWriter.task.remove")
          )
    }
    return task
  })

  const sweepTemps = Effect.fn("MemoryWriter.sweepTemps")(function*(memoryDir: string, olderThanMs: number) {
    const now = Date.now()
    let removed = 0
    const visit = (dir: string, depth: number): Effect.Effect<void> =>
      Effect.gen(function*() {
        const entries = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed(() => []))
        for (const entry of entries) {
          const path = join(dir, entry.name)
          if (entry.kind === "directory" && !entry.name.startsWith(".") && depth < 16) {
            yield* visit(path, depth + 1)
          } else if (entry.kind === "file" && isTempName(entry.name)) {
            const info = yield* fs.lstat(path).pipe(Effect.option)
            if (info._tag === "Some" && now - info.value.mtimeMs > olderThanMs) {
              removed += yield* fs.unlink(path).pipe(Effect.as(1), Effect.orElseSucceed(() => 0))
            }
          }
        }
      })
    yield* visit(memoryDir, 0)
    return removed
  })

  return { openTask, remove, sweepTemps }
}

const editFailed = (path: string, reason: EditFailure, index: number, total: number): EditFailed =>
  new EditFailed({ path, reason, index, message: describeEditFailure(path, reason, index, total) })

export type { ContainmentRule }

export class MemoryWriter extends Context.Tag("pm/MemoryWriter")<MemoryWriter, MemoryWriterShape>() {
  static readonly layer: Layer.Layer<MemoryWriter, never, FileSystem> = Layer.effect(
    MemoryWriter,
    Effect.map(FileSystem, makeMemoryWriter)
  )
}
