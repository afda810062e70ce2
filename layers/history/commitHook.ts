/**
 * The journal's `afterKept` for the memory history: each task kept (an extraction, a dream, remember, forget, undo)
 * becomes one commit, made under the task's locks right after its last journaled change, whose message names the
 * task, its kind, its session and its files. A task that holds only its own lock commits only its own files (what
 * is already staged, a failed commit's, goes with them). Memory without a history pays two stats per task (no git is run).
 *
 * `onCommitted` is told after a commit (the extension and `pm` push from there when sync is on); it runs after the
 * commit, never fails the task, and whatever it does is its own business (it should fork, not hold the task's locks).
 */
import * as Effect from "effect/Effect"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { LockServiceShape } from "../storage/lockInterface.ts"
import type { AfterKept } from "../writes/journalRecover.ts"
import type { HistoryPlace } from "./historyRepo.ts"

export const makeHistoryHook = (
  fs: FileSystemShape,
  locks: LockServiceShape,
  onCommitted: (place: HistoryPlace) => Effect.Effect<void> = () => Effect.void
): AfterKept =>
(paths, meta, task) =>
  Effect.gen(function*() {
    const place = { memoryRootDir: paths.rootDir, memoryDir: paths.memoryDir }
    // Holding both writers' locks, nobody else changes memory: everything changed is committed (earlier leftovers
    // too). An extraction or a dream holds one, and the other may be writing: only the task's own files are staged.
    const alone = task.locks.includes("extract.lock") && task.locks.includes("dream.lock")
    // The history's modules (and git's) load with the first task kept, not with every process that could keep one.
    const { commitAll } = yield* Effect.promise(() => import("./historyRepo.ts"))
    const outcome = yield* commitAll(fs, locks, place, meta, alone ? undefined : task.files)
    if (outcome._tag === "Committed") yield* onCommitted(place)
  }).pipe(Effect.catchAllCause(() => Effect.void))
