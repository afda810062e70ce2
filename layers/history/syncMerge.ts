/**
 * The local half of a sync: bring what the remote has into this machine's memory, losing nothing. The caller holds
 * the background writers' locks (extract.lock, dream.lock), so no task changes memory meanwhile.
 *
 * The plan comes from the three trees (src/history/treeMerge.ts); it is carried out as one whole journaled task of
 * kind `sync`, through the writer's compare-and-swap, so `pm log` lists it, `pm undo` can take it back, and a sync
 * killed half-way is rolled back by the next holder of the locks like any task. `MERGE_HEAD` is set first, so the
 * task's commit (the history's hook) is a merge commit with both parents; a commit of any other task drops a
 * `MERGE_HEAD` it finds (a killed sync's, whose changes were rolled back). When the plan changes nothing, the
 * history moves to the remote's commit if ours is behind it, else records the merge with no change.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { randomUUID } from "node:crypto"
import { join } from "node:path"
import { commitMessage, HISTORY_BRANCH } from "../../src/history/commits.ts"
import { mergeIndexBytes } from "../../src/history/indexMerge.ts"
import { type FileAction, planMerge } from "../../src/history/treeMerge.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import { Journal } from "../writes/Journal.ts"
import { makeMemoryWriter } from "../writes/MemoryWriter.ts"
import type { WriteJournal } from "../writes/writeJournal.ts"
import { GitFailed, type HistoryRepo, machineName, runGit } from "./git.ts"
import { baseOf, blobBytes, commitOf, isAncestor, machineOfCommit, treeOf } from "./gitTree.ts"
import { commitStaged, type HistoryPlace } from "./historyRepo.ts"

export interface MergeOutcome {
  /** Files this machine took from the remote (changed, added or deleted), MEMORY.md merged included. */
  readonly changed: ReadonlyArray<string>
  /** Topics changed on both machines: the other machine's version was kept beside ours, for the dream. */
  readonly conflicts: ReadonlyArray<string>
  readonly task: string | undefined
}


const asGitFailed = (what: string) => (e: { readonly message: string }) => new GitFailed({ args: [what], code: null, stderr: e.message })

/** Merges `theirs` (a commit already fetched) into the history and the memory folder. */
export const mergeRemote = (
  fs: FileSystemShape,
  place: HistoryPlace,
  repo: HistoryRepo,
  theirs: string
): Effect.Effect<MergeOutcome, GitFailed, Journal> =>
  Effect.gen(function*() {
    const journal = yield* Journal
    // What earlier tasks left uncommitted goes in first, so the plan compares committed trees only.
    yield* commitStaged(fs, repo, undefined)
    const ours = yield* commitOf(repo, "HEAD")
    if (ours !== undefined && (yield* isAncestor(repo, theirs, ours))) return { changed: [], conflicts: [], task: undefined }
    // No commit here yet (so no memory file either): their files are written below, and then the history starts at
    // their commit (the sync task's own commit is skipped on an unborn branch: see historyRepo.ts).
    const fresh = ours === undefined
    const base = ours === undefined ? undefined : yield* baseOf(repo, ours, theirs)
    const [baseTree, ourTree, theirTree] = yield* Effect.all([treeOf(repo, base), treeOf(repo, ours), treeOf(repo, theirs)])
    let other = yield* machineOfCommit(repo, theirs)
    if (other === machineName()) other = `${other}-other`
    const actions = planMerge(baseTree, ourTree, theirTree, other)
    const mergeHead = join(repo.gitDir, "MERGE_HEAD")
    if (!fresh) yield* fs.writeFile(mergeHead, `${theirs}\n`).pipe(Effect.mapError(asGitFailed("merge")))
    const task = `sync-${randomUUID()}`
    const changed: Array<string> = []
    const conflicts: Array<string> = []
    if (actions.length > 0) {
      const body = (journaled: WriteJournal) =>
        Effect.gen(function*() {
          const writer = makeMemoryWriter(fs)
          const memoryTask = yield* writer.openTask({ memoryDir: place.memoryDir, cwd: place.memoryDir, journal: journaled })
          const seen = (path: string) =>
            fs.readRegularFile(join(place.memoryDir, path)).pipe(
              Effect.tap((r) => memoryTask.recordRead(path, { kind: "text", truncated: false }, { bytes: r.bytes, mtimeMs: r.info.mtimeMs })),
              Effect.option
            )
          const put = (path: string, content: Uint8Array) => Effect.zipRight(seen(path), memoryTask.write(path, content))
          // Topics first, the index last: its lines never point at a file not yet there.
          const ordered = [...actions].sort((a, b) => Number(a.path === "MEMORY.md") - Number(b.path === "MEMORY.md"))
          for (const action of ordered) yield* apply(action)
          function apply(action: FileAction) {
            return Effect.gen(function*() {
              switch (action._tag) {
                case "Take":
                  yield* put(action.path, yield* blobBytes(repo, action.blob))
                  changed.push(action.path)
                  return
                case "Delete":
                  yield* seen(action.path)
                  yield* memoryTask.remove(action.path, { force: true })
                  changed.push(action.path)
                  return
                case "MergeIndex": {
                  const [b, o, t] = yield* Effect.all([
                    action.base === undefined ? Effect.succeed(new Uint8Array()) : blobBytes(repo, action.base),
                    blobBytes(repo, action.ours),
                    blobBytes(repo, action.theirs)
                  ])
                  yield* put(action.path, mergeIndexBytes(b, o, t))
                  changed.push(action.path)
                  return
                }
                case "Conflict":
                  yield* put(action.conflictPath, yield* blobBytes(repo, action.blob))
                  conflicts.push(action.conflictPath)
                  return
              }
            })
          }
        })
      const meta = { task, kind: "sync", session: null, model: null }
      yield* journal.whole({ paths: { rootDir: place.memoryRootDir, memoryDir: place.memoryDir }, meta, locks: ["extract.lock", "dream.lock"] }, body, Exit.isSuccess).pipe(
        Effect.mapError(asGitFailed("merge"))
      )
    }
    // Nothing to change here, or the hook's commit did not take MERGE_HEAD: settle the history by hand.
    const left = yield* fs.stat(mergeHead).pipe(Effect.as(true), Effect.orElseSucceed(() => false))
    if (fresh) {
      yield* runGit(repo, ["update-ref", `refs/heads/${HISTORY_BRANCH}`, theirs])
      yield* runGit(repo, ["read-tree", theirs])
    } else if (left) {
      if (yield* isAncestor(repo, ours, theirs)) {
        yield* runGit(repo, ["update-ref", `refs/heads/${HISTORY_BRANCH}`, theirs])
        yield* runGit(repo, ["read-tree", theirs])
      } else {
        const subject = { task, kind: "sync", session: null, model: null }
        yield* runGit(repo, ["commit", "-q", "--no-verify", "--allow-empty", "-F", "-"], { input: commitMessage(subject, []) })
      }
    }
    yield* fs.unlink(mergeHead).pipe(Effect.ignore)
    return { changed, conflicts, task: actions.length > 0 ? task : undefined }
  })
