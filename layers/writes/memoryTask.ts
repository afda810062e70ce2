/**
 * A task's handle on the writer, and the per-task baseline registry behind it: what each existing file looked like
 * when this task read it (src/writes/readBaseline.ts has the rules; a baseline is the bytes' sha256). `write` and
 * `edit` of an existing file need its baseline, and refuse a file that changed since (an edit still applies when every
 * oldText matches once); after publishing, the baseline is what the task just wrote, so a follow-up change needs no
 * new read.
 *
 * Changes are made on bytes (src/writes/byteEdits.ts): an edit replaces only the bytes it matched, a write of text
 * keeps the bytes of the parts it leaves as they were (bytes that are not UTF-8 included, or it is refused as
 * UndecodableBytes), and a write of bytes (a person's command: forget, remember) publishes exactly those bytes.
 *
 * Each change is resolved again inside the file's queue (fileQueue.ts), judged there, then published
 * (publishPinned.ts) with the bytes the judgement saw, so the journal records exactly what was replaced. A successful
 * write comes back with the lint's findings. Baselines live as long as the handle; nothing is stored on disk.
 */
import * as Effect from "effect/Effect"
import { resolve } from "node:path"
import { INDEX_FILE_NAME } from "../../src/storage/containment.ts"
import { type LintProblem, lintIndex, lintTopic } from "../../src/memory/lint.ts"
import { applyByteEdits, spliceText } from "../../src/writes/byteEdits.ts"
import { type Baseline, judgeWrite, makeBaseline, type ReadOutcome, type Replacement } from "../../src/writes/readBaseline.ts"
import type { FileInfo, FileSystemShape } from "../storage/fileSystemShape.ts"
import type { PublishFailed } from "../storage/PublishFailed.ts"
import type { RemoveOptions, RemoveResult } from "./deleteFile.ts"
import type { Serialized } from "./fileQueue.ts"
import { type Publish, sameBytes } from "./publishPinned.ts"
import { fileOf, type Resolved, resolveTarget } from "./resolveTarget.ts"
import {
  BaselineMissing,
  type EditError,
  editFailed,
  FileMissing,
  ioFailed,
  type RemoveError,
  StaleBaseline,
  type TaskInvalid,
  UndecodableBytes,
  type WriteError
} from "./writeErrors.ts"
import type { WriteJournal } from "./writeJournal.ts"

export interface WriteResult {
  /** The file actually written (a link's target when the path was a link). */
  readonly path: string
  readonly created: boolean
  /** The edit applied to content that changed since the read (every oldText still matched once). */
  readonly recovered: boolean
  readonly findings: ReadonlyArray<LintProblem>
}

/** The exact bytes and mtime the read tool saw, when the caller has them (best); else the writer reads the file. */
export interface ReadSnapshot {
  readonly bytes: Uint8Array
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

export interface MemoryTask {
  /** Report a `read` of `path` in this task; records or clears its baseline. Never fails. */
  readonly recordRead: (path: string, outcome: ReadOutcome, snapshot?: ReadSnapshot) => Effect.Effect<void>
  /**
   * Text replaces the file but keeps the bytes of the parts it leaves as they were read; bytes are published exactly
   * (no lint findings then: a person's command, not a model, wrote them).
   */
  readonly write: (path: string, content: string | Uint8Array, source?: string) => Effect.Effect<WriteResult, WriteError>
  /** `source`, when given, is journaled with the change: where its content came from (src/writes/provenance.ts). */
  readonly edit: (path: string, edits: ReadonlyArray<Replacement>, source?: string) => Effect.Effect<WriteResult, EditError>
  readonly remove: (path: string, options?: { readonly force?: boolean }) => Effect.Effect<RemoveResult, RemoveError>
}

/** What a task's handle uses of its writer. */
export interface TaskWriter {
  readonly fs: FileSystemShape
  readonly serialized: Serialized
  readonly publish: Publish
  readonly remove: (raw: string, options: RemoveOptions) => Effect.Effect<RemoveResult, RemoveError>
}

const decoder = new TextDecoder()
const encoder = new TextEncoder()

const lint = (resolved: Resolved, content: string): ReadonlyArray<LintProblem> => {
  const filename = fileOf(resolved)
  return filename === INDEX_FILE_NAME ? lintIndex(content) : lintTopic({ filename, content })
}

/** A new task's handle, with no baselines yet. */
export const makeMemoryTask = (writer: TaskWriter, options: TaskOptions): MemoryTask => {
  const { fs, serialized, publish } = writer
  const baselines = new Map<string, Baseline>()
  const check = options.check ?? Effect.void
  const where = { memoryDir: options.memoryDir, cwd: options.cwd }

  const readBytes = (path: string): Effect.Effect<{ bytes: Uint8Array; info: FileInfo }, PublishFailed> =>
    fs.readRegularFile(path).pipe(
      Effect.map((head) => ({ bytes: head.bytes, info: head.info })),
      Effect.mapError(ioFailed(path, "read"))
    )

  const keyOf = (raw: string): Effect.Effect<string> =>
    fs.realpath(resolve(options.cwd, raw)).pipe(Effect.orElseSucceed(() => resolve(options.cwd, raw)))

  const recordRead = (raw: string, outcome: ReadOutcome, snapshot?: ReadSnapshot): Effect.Effect<void> =>
    Effect.gen(function*() {
      const key = yield* keyOf(raw)
      if (outcome.kind === "image" || outcome.truncated) {
        baselines.delete(key)
        return
      }
      const seen = snapshot ?? (yield* readBytes(key).pipe(
        Effect.map(({ bytes, info }) => ({ bytes, mtimeMs: info.mtimeMs })),
        Effect.orElseSucceed(() => undefined)
      ))
      const baseline = seen === undefined ? undefined : makeBaseline(outcome, seen.mtimeMs, seen.bytes)
      if (baseline === undefined) baselines.delete(key)
      else baselines.set(key, baseline)
    }).pipe(Effect.withSpan("MemoryWriter.recordRead"))

  /**
   * After publishing, the task's baseline is what it just wrote, with the mtime of the file it published (not a
   * later stat, which could see someone else's write): a follow-up change needs no new read.
   */
  const rememberWritten = (target: string, bytes: Uint8Array, published: FileInfo): void => {
    baselines.set(target, makeBaseline({ kind: "text", truncated: false }, published.mtimeMs, bytes)!)
  }

  /**
   * The shared tail of write and edit, inside the file's queue: validity, publish, baseline, lint (of the text a
   * model gave; undefined for a person's bytes).
   */
  const finish = (resolved: Resolved, content: Uint8Array, text: string | undefined, recovered: boolean, seen: Uint8Array | null, source: string | undefined) =>
    Effect.gen(function*() {
      yield* check
      const published = yield* publish(resolved, content, check, {
        journal: options.journal,
        expectBefore: (bytes) => sameBytes(bytes, seen),
        source
      }).pipe(Effect.catchTag("StaleBaseline", (e) => Effect.fail(resolved.info === undefined ? e : new StaleBaseline({ path: resolved.shown, reason: "modified" }))))
      if (published === undefined) return yield* Effect.fail(new StaleBaseline({ path: resolved.shown, reason: "created" }))
      rememberWritten(resolved.target, content, published)
      return { path: resolved.target, created: resolved.info === undefined, recovered, findings: text === undefined ? [] : lint(resolved, text) }
    })

  const write = Effect.fn("MemoryWriter.write")(function*(raw: string, content: string | Uint8Array, source?: string) {
    const first = yield* resolveTarget(fs, raw, { ...where, purpose: "write" })
    return yield* serialized(
      first.target,
      Effect.gen(function*() {
        const resolved = yield* resolveTarget(fs, raw, { ...where, purpose: "write" })
        let seen: Uint8Array | null = null
        let bytes = typeof content === "string" ? encoder.encode(content) : content
        if (resolved.info !== undefined) {
          const baseline = baselines.get(resolved.target)
          // The bytes the check judges are the ones the publish must find in place (and the journal records).
          const current = yield* readBytes(resolved.target)
          seen = current.bytes
          const verdict = judgeWrite(baseline, current.info.mtimeMs, () => current.bytes)
          if (verdict === "missing") return yield* Effect.fail(new BaselineMissing({ path: raw }))
          if (verdict === "stale") return yield* Effect.fail(new StaleBaseline({ path: raw, reason: "modified" }))
          if (typeof content === "string") {
            const spliced = spliceText(current.bytes, content)
            if (spliced._tag === "Undecodable") return yield* Effect.fail(new UndecodableBytes({ path: raw, line: spliced.line }))
            bytes = spliced.bytes
          }
        }
        return yield* finish(resolved, bytes, typeof content === "string" ? content : undefined, false, seen, source)
      })
    )
  })

  const edit = Effect.fn("MemoryWriter.edit")(function*(raw: string, edits: ReadonlyArray<Replacement>, source?: string) {
    const first = yield* resolveTarget(fs, raw, { ...where, purpose: "write" })
    return yield* serialized(
      first.target,
      Effect.gen(function*() {
        const resolved = yield* resolveTarget(fs, raw, { ...where, purpose: "write" })
        if (resolved.info === undefined) return yield* Effect.fail(new FileMissing({ path: raw, op: "edit" }))
        const current = yield* readBytes(resolved.target)
        const verdict = judgeWrite(baselines.get(resolved.target), current.info.mtimeMs, () => current.bytes)
        if (verdict === "missing") return yield* Effect.fail(new BaselineMissing({ path: raw }))
        // Matched and replaced on bytes: every byte outside the matches stays, bytes that are not UTF-8 included.
        const applied = applyByteEdits(current.bytes, edits)
        if (applied._tag === "Failed") {
          // Stale and no longer applicable: the model must re-read. Fresh but wrong: tell it what did not match.
          if (verdict === "stale") return yield* Effect.fail(new StaleBaseline({ path: raw, reason: "modified" }))
          return yield* Effect.fail(editFailed(raw, applied.reason, applied.index, edits.length))
        }
        return yield* finish(resolved, applied.bytes, decoder.decode(applied.bytes), verdict === "stale", current.bytes, source)
      })
    )
  })

  return {
    recordRead,
    write,
    edit,
    remove: (raw, removeOptions) =>
      writer.remove(raw, {
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
}
