/**
 * AtomicPublish: the one way this product replaces or creates a whole file (memory files, the backfilled index,
 * `.project-root`, `state.json`, `config.json`).
 *
 * The content is written to a temp file created exclusively and without following links (`O_CREAT | O_EXCL |
 * O_NOFOLLOW`) in the target's own directory (flushed to disk when `durable`), then published: `rename` over the target to replace
 * it, or `link` under the target name to create it only if the name is free (readers never see a partial file and a
 * racing creator is never clobbered). The temp file is removed on every failure and interruption, and after a link.
 * Every temp file is named `.pm-<pid>-<table>-<uuid>.tmp` (its writer's pid and a tag of its process table), the one
 * pattern `sweepTemps` removes when a killed process left one: at once when its writer is provably gone, else by age.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { createHash, randomUUID } from "node:crypto"
import { join } from "node:path"
import { LOCK_TIMEOUTS_MS } from "../../src/limits.ts"
import { type FileInfo, type FileSystemShape } from "./fileSystemShape.ts"
import { FsError } from "./FsError.ts"
import { machineOf, pidIsAlive } from "./lockProcess.ts"

const TEMP_PREFIX = ".pm-"
const TEMP_SUFFIX = ".tmp"

/** 8 hex digits naming this process table (boot id and PID namespace); "00000000" where it cannot be known. */
let tableTag: string | undefined
const ourTable = (): string => {
  if (tableTag === undefined) {
    const machine = machineOf()
    tableTag = machine === undefined ? "00000000" : createHash("sha256").update(machine).digest("hex").slice(0, 8)
  }
  return tableTag
}

export const newTempName = (): string => `${TEMP_PREFIX}${process.pid}-${ourTable()}-${randomUUID()}${TEMP_SUFFIX}`
export const isTempName = (name: string): boolean => name.startsWith(TEMP_PREFIX) && name.endsWith(TEMP_SUFFIX)

const OWNED = /^\.pm-(\d+)-([0-9a-f]{8})-[0-9a-f-]{36}\.tmp$/

/**
 * Whether the process that made temp file `name` is provably gone: its name carries a pid of our process table that
 * is not ours and names no living process. Older names (no pid), another table's, or a live pid: not provable.
 */
export const tempOwnerGone = (name: string, isAlive: (pid: number) => boolean = pidIsAlive): boolean => {
  const m = OWNED.exec(name)
  if (m === null || m[2] !== ourTable() || m[2] === "00000000") return false
  const pid = Number(m[1])
  return pid !== process.pid && pid > 0 && !isAlive(pid)
}

/**
 * A temp file lives for the milliseconds between staging and publishing. One older than the longest lock timeout
 * (the dream's) belongs to no living write, whoever holds which lock: sweeping it is safe without a lock.
 */
export const TEMP_STALE_MS = Math.max(...Object.values(LOCK_TIMEOUTS_MS))

export interface StagedFile {
  readonly temp: string
  /** The temp file's own metadata: after publishing, the same inode (and mtime) sits under the target name. */
  readonly info: FileInfo
}

export interface PublishSpec<E, R> {
  /** The directory to publish in: a plain path, or a descriptor path (`/proc/self/fd/N`) from the writer. */
  readonly dir: string
  readonly name: string
  readonly content: string | Uint8Array
  /** "replace": rename over whatever is there. "create": only if the name is free (else `Taken`). */
  readonly mode: "replace" | "create"
  /** Permission bits of the new file (default 0o666 minus the umask). */
  readonly fileMode?: number
  /**
   * fsync the temp file before publishing and the directory after: the published file survives a power loss with
   * its new content (never empty). For files whose loss matters to the user (memory files, config.json, the
   * project marker). Costs a journal commit each, which is why `state.json`, rewritten often under a lock and
   * harmless to lose (a damaged file reads as empty and the next write replaces it), does without.
   */
  readonly durable?: boolean
  /** Last checks after staging, right before the rename or link; a failure publishes nothing. */
  readonly beforePublish?: (staged: StagedFile) => Effect.Effect<void, E, R>
}

export type PublishOutcome =
  | { readonly _tag: "Published"; readonly info: FileInfo }
  /** "create" only: the name existed (someone else created it first); nothing was changed. */
  | { readonly _tag: "Taken" }

/** Re-labels a file system failure with the publishing step it stopped: "stage", "replace" or "create". */
const atStep = (step: string) => (e: FsError): FsError => new FsError({ op: step, path: e.path, reason: e.reason, detail: e.detail })

/** Hard links not supported here (some network and FUSE mounts): publishing falls back to an exclusive create. */
const noHardLinks = (e: FsError): boolean =>
  e.detail === "EPERM" || e.detail === "ENOTSUP" || e.detail === "EOPNOTSUPP" || e.detail === "ENOSYS"

/** Removes a temp file, retrying a few times; NotFound means it is already gone. Never fails. */
export const removeTemp = (fs: FileSystemShape, temp: string): Effect.Effect<void> =>
  fs.unlink(temp).pipe(
    Effect.catchIf((e) => e.reason === "NotFound", () => Effect.void),
    Effect.retry({ times: 4, schedule: Schedule.exponential("5 millis") }),
    Effect.catchAll((e) => Effect.logWarning(`could not remove temp file ${temp}: ${e.message}`))
  )

export const publishFile = <E = never, R = never>(
  fs: FileSystemShape,
  spec: PublishSpec<E, R>
): Effect.Effect<PublishOutcome, FsError | E, R> => {
  const temp = join(spec.dir, newTempName())
  const target = join(spec.dir, spec.name)
  const writeOptions = {
    flag: "wx",
    noFollow: true,
    flush: spec.durable === true,
    ...(spec.fileMode === undefined ? {} : { mode: spec.fileMode })
  } as const
  let renamed = false
  return Effect.gen(function*() {
    yield* fs.writeFile(temp, spec.content, writeOptions).pipe(Effect.mapError(atStep("stage")))
    const info = yield* fs.lstat(temp).pipe(Effect.mapError(atStep("stage")))
    if (spec.beforePublish !== undefined) yield* spec.beforePublish({ temp, info })
    let outcome: PublishOutcome
    if (spec.mode === "replace") {
      yield* fs.rename(temp, target).pipe(Effect.mapError(atStep("replace")))
      renamed = true
      outcome = { _tag: "Published", info }
    } else {
      outcome = yield* fs.link(temp, target).pipe(
        Effect.as<PublishOutcome>({ _tag: "Published", info }),
        Effect.catchIf(
          (e) => e.reason !== "AlreadyExists" && noHardLinks(e),
          () =>
            fs.writeFile(target, spec.content, writeOptions).pipe(
              Effect.zipRight(fs.lstat(target)),
              Effect.map((published): PublishOutcome => ({ _tag: "Published", info: published }))
            )
        ),
        Effect.catchIf((e) => e.reason === "AlreadyExists", () => Effect.succeed<PublishOutcome>({ _tag: "Taken" })),
        Effect.mapError(atStep("create"))
      )
    }
    if (spec.durable === true && outcome._tag === "Published") yield* fs.syncDirectory(spec.dir).pipe(Effect.ignore)
    return outcome
  }).pipe(
    // After a rename the temp name no longer exists; after a link (or any failure, or an interruption) it does.
    Effect.ensuring(Effect.suspend(() => (renamed ? Effect.void : removeTemp(fs, temp))))
  )
}

export interface SweepOptions {
  /** Temp files whose mtime is more than this far in the past; those whose writer is provably gone at any age. */
  readonly olderThanMs: number
  /** Also visit subdirectories (never dot-directories, never through links), at most 16 deep. */
  readonly recursive: boolean
}

/** Removes leftover `.pm-*.tmp` files under `dir`. Returns how many were removed. Never fails. */
export const sweepTemps = (fs: FileSystemShape, dir: string, options: SweepOptions): Effect.Effect<number> =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    let removed = 0
    const visit = (at: string, depth: number): Effect.Effect<void> =>
      Effect.gen(function*() {
        const entries = yield* fs.readDirectory(at).pipe(Effect.orElseSucceed(() => []))
        for (const entry of entries) {
          const path = join(at, entry.name)
          if (entry.kind === "directory") {
            if (options.recursive && !entry.name.startsWith(".") && depth < 16) yield* visit(path, depth + 1)
          } else if (entry.kind === "file" && isTempName(entry.name)) {
            const info = yield* fs.lstat(path).pipe(Effect.option)
            if (info._tag === "Some" && info.value.kind === "file" && (now - info.value.mtimeMs > options.olderThanMs || tempOwnerGone(entry.name))) {
              removed += yield* fs.unlink(path).pipe(Effect.as(1), Effect.orElseSucceed(() => 0))
            }
          }
        }
      })
    yield* visit(dir, 0)
    return removed
  }).pipe(Effect.withSpan("AtomicPublish.sweepTemps"))
