/**
 * Open-task markers on disk, `memory-roots/<hash>/open/<task>.json` (the format is src/writes/openTask.ts): written
 * (temp file, fsync, rename, fsync of the folder) right before a task's first journaled change, removed (and the
 * removal made durable) after its last. `marking` puts the write in front of a journal hook's first intent, so a task
 * that changes nothing leaves no trace and costs nothing.
 *
 * This process's running tasks are kept in `runningTasks`, whichever layer instance started them, so a marker naming
 * our own pid is judged alive only while its task runs here. Listing never fails: no folder is no marker.
 */
import * as Effect from "effect/Effect"
import { hostname } from "node:os"
import { join } from "node:path"
import type { LockName } from "../../src/limits.ts"
import { decodeMarker, encodeMarker, markerFileOf, OPEN_DIR, type OpenTaskMarker, ownerAlive, taskOfMarkerFile } from "../../src/writes/openTask.ts"
import { publishFile, sweepTemps, TEMP_STALE_MS } from "../storage/AtomicPublish.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import { machineOf, ourStartTime, pidIsAlive, processStartOf } from "../storage/lockProcess.ts"
import { PublishFailed } from "../storage/PublishFailed.ts"
import { JournalFailed } from "./journalErrors.ts"
import type { TaskMeta } from "./journalRecord.ts"
import type { JournalPaths } from "./journalStore.ts"
import type { WriteJournal } from "./writeJournal.ts"

/** Tasks running in this process now (their markers, if any, are not left over). */
export const runningTasks = new Set<string>()

export interface ListedMarker {
  readonly task: string
  /** Undefined when the file could not be read or decoded. */
  readonly marker: OpenTaskMarker | undefined
}

export interface OpenTasks {
  readonly dirOf: (paths: JournalPaths) => string
  /** The markers in `open/`, oldest first; [] when there is no folder or it cannot be read. */
  readonly list: (paths: JournalPaths) => Effect.Effect<ReadonlyArray<ListedMarker>>
  readonly mark: (paths: JournalPaths, marker: OpenTaskMarker) => Effect.Effect<void, JournalFailed>
  /** Removes the marker (missing is fine) and makes the removal durable. */
  readonly unmark: (paths: JournalPaths, task: string) => Effect.Effect<void, JournalFailed>
  /** Removes temp files left in `open/` by processes that are gone. */
  readonly sweep: (paths: JournalPaths) => Effect.Effect<number>
}

/** Whether a listed marker's owner may still be running its task (an unreadable marker's cannot be judged: gone). */
export const markerOwnerAlive = (listed: ListedMarker): boolean =>
  listed.marker !== undefined &&
  ownerAlive(listed.marker, {
    pid: process.pid,
    machine: machineOf(),
    runningHere: (task) => runningTasks.has(task),
    pidAlive: pidIsAlive,
    startOf: processStartOf,
    now: Date.now()
  })

/** This process's marker for `meta`'s task, holding `locks`. */
export const markerOf = (meta: TaskMeta, locks: ReadonlyArray<LockName>): OpenTaskMarker => {
  const start = ourStartTime()
  const machine = machineOf()
  return {
    v: 1,
    task: meta.task,
    kind: meta.kind,
    pid: process.pid,
    ...(start === undefined ? {} : { start }),
    ...(machine === undefined ? {} : { machine }),
    host: hostname(),
    locks: [...locks],
    at: new Date(Date.now()).toISOString()
  }
}

/** `journal` with `mark` run once, right before the first change it is told about (and before that change is journaled). */
export const marking = (journal: WriteJournal, mark: Effect.Effect<void, JournalFailed>): WriteJournal => {
  let marked = false
  const once = Effect.suspend(() =>
    marked ? Effect.void : mark.pipe(Effect.tap(() => Effect.sync(() => void (marked = true))))
  ).pipe(Effect.mapError((e) => new PublishFailed({ path: "memory", op: "mark the task open in", cause: e })))
  return {
    around: (publish, settle) => journal.around((intend) => publish((change) => Effect.zipRight(once, intend(change))), settle)
  }
}

export const makeOpenTasks = (fs: FileSystemShape): OpenTasks => {
  const dirOf = (paths: JournalPaths) => join(paths.rootDir, OPEN_DIR)
  const failed = (op: string, path: string) => (e: import("../storage/FsError.ts").FsError) => new JournalFailed({ op, path, cause: e })

  const list = (paths: JournalPaths): Effect.Effect<ReadonlyArray<ListedMarker>> =>
    Effect.gen(function*() {
      const dir = dirOf(paths)
      const entries = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed(() => []))
      const out: Array<ListedMarker & { readonly at: string }> = []
      for (const entry of entries) {
        const task = taskOfMarkerFile(entry.name)
        if (task === undefined || entry.kind !== "file") continue
        const read = yield* fs.readRegularFile(join(dir, entry.name)).pipe(Effect.option)
        if (read._tag === "None") continue // removed meanwhile: that task ended
        const marker = decodeMarker(new TextDecoder().decode(read.value.bytes))
        out.push({ task, marker: marker?.task === task ? marker : undefined, at: marker?.at ?? "" })
      }
      return out.sort((a, b) => a.at.localeCompare(b.at)).map(({ task, marker }) => ({ task, marker }))
    })

  const ensureDir = (paths: JournalPaths) => {
    const dir = dirOf(paths)
    return fs.makeDirectory(dir).pipe(
      // A new folder's own name is made durable too, or a power loss could take the marker with it.
      Effect.zipRight(fs.syncDirectory(paths.rootDir).pipe(Effect.ignore)),
      Effect.catchIf((e) => e.reason === "AlreadyExists", () => Effect.void),
      Effect.catchIf((e) => e.reason === "NotFound", () => fs.makeDirectory(dir, { recursive: true })),
      Effect.mapError(failed("mkdir", dir))
    )
  }

  const mark = (paths: JournalPaths, marker: OpenTaskMarker) =>
    ensureDir(paths).pipe(
      Effect.zipRight(
        publishFile(fs, { dir: dirOf(paths), name: markerFileOf(marker.task), content: encodeMarker(marker), mode: "replace", durable: true }).pipe(
          Effect.mapError(failed("mark", join(dirOf(paths), markerFileOf(marker.task))))
        )
      ),
      Effect.asVoid
    )

  const unmark = (paths: JournalPaths, task: string) => {
    const path = join(dirOf(paths), markerFileOf(task))
    return fs.unlink(path).pipe(
      Effect.zipRight(fs.syncDirectory(dirOf(paths)).pipe(Effect.ignore)),
      Effect.catchIf((e) => e.reason === "NotFound", () => Effect.void),
      Effect.mapError(failed("unmark", path))
    )
  }

  const sweep = (paths: JournalPaths) => sweepTemps(fs, dirOf(paths), { olderThanMs: TEMP_STALE_MS, recursive: false })

  return { dirOf, list, mark, unmark, sweep }
}
