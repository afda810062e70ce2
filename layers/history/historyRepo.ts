/**
 * The memory history of one memory root: a git folder at `memory-roots/<hash>/history.git` whose work tree is the
 * memory folder. Nothing of it is inside the memory folder, so the background tasks never see it and the memory
 * folder holds exactly what it held before.
 *
 * - `reconcile` brings the folder in line with the switch (`history.enabled` in config.json): on, it is made when
 *   missing (the first commit takes in the memory as it is) and un-paused; off, an existing one is paused (a file in
 *   it), never removed. A project whose config never named history costs nothing: not even a stat.
 * - `activeRepo` is the commit hook's check: the history exists and is not paused (two stats, no git).
 * - `commitAll` commits everything that differs from the last commit, with the task's message, holding
 *   `history.lock`; a lock file git left when killed is removed first (under our lock nobody else runs git there).
 *   It never fails the caller's change: the change stays in the folder and the next commit takes it in.
 */
import * as Effect from "effect/Effect"
import { join } from "node:path"
import {
  type ChangedFile,
  commitMessage,
  type CommitSubject,
  EXCLUDE_LINES,
  HISTORY_BRANCH,
  historyDirOf,
  parseNameStatus,
  PAUSED_FILE
} from "../../src/history/commits.ts"
import { locksDirOf } from "../../src/storage/layout.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { LockServiceShape } from "../storage/lockInterface.ts"
import { GitFailed, type HistoryRepo, runGit } from "./git.ts"
import { commitOf } from "./gitTree.ts"

export interface HistoryPlace {
  readonly memoryRootDir: string
  readonly memoryDir: string
}

export const repoOf = (place: HistoryPlace): HistoryRepo => ({ gitDir: historyDirOf(place.memoryRootDir), workTree: place.memoryDir })

const exists = (fs: FileSystemShape, path: string) => fs.stat(path).pipe(Effect.as(true), Effect.orElseSucceed(() => false))

/** Whether the history exists and is not paused. */
export const activeRepo = (fs: FileSystemShape, place: HistoryPlace): Effect.Effect<HistoryRepo | undefined> =>
  Effect.gen(function*() {
    const repo = repoOf(place)
    if (!(yield* exists(fs, join(repo.gitDir, "HEAD")))) return undefined
    if (yield* exists(fs, join(repo.gitDir, PAUSED_FILE))) return undefined
    return repo
  })

/** Makes the git folder (once): a repository on the `memory` branch, with our exclude file. */
export const initRepo = (fs: FileSystemShape, place: HistoryPlace): Effect.Effect<HistoryRepo, GitFailed> =>
  Effect.gen(function*() {
    const repo = repoOf(place)
    const made = !(yield* exists(fs, join(repo.gitDir, "HEAD")))
    if (made) {
      // git makes the git folder but not its parents (the memory root is made by the first lock or journal entry).
      yield* fs.makeDirectory(repo.gitDir, { recursive: true }).pipe(
        Effect.mapError((e) => new GitFailed({ args: ["init"], code: null, stderr: e.message }))
      )
      yield* runGit(repo, ["init", "-q", `--initial-branch=${HISTORY_BRANCH}`])
    }
    yield* fs.makeDirectory(join(repo.gitDir, "info"), { recursive: true }).pipe(Effect.ignore)
    yield* fs.writeFile(join(repo.gitDir, "info", "exclude"), EXCLUDE_LINES).pipe(
      Effect.mapError((e) => new GitFailed({ args: ["init"], code: null, stderr: e.message }))
    )
    if (made) {
      // The memory as it is when the history starts is its first commit, so that each later commit is one task's.
      yield* commitStaged(fs, repo, { task: "history-start", kind: "start", session: null, model: null }).pipe(Effect.ignore)
    }
    return repo
  })

/** Brings the history in line with the switch: `on` makes or resumes it, `off` pauses one that exists. */
export const reconcile = (fs: FileSystemShape, place: HistoryPlace, on: boolean | undefined): Effect.Effect<void> =>
  Effect.gen(function*() {
    if (on === undefined) return
    const repo = repoOf(place)
    const paused = join(repo.gitDir, PAUSED_FILE)
    if (on) {
      if (!(yield* exists(fs, join(repo.gitDir, "HEAD")))) yield* initRepo(fs, place)
      yield* fs.unlink(paused).pipe(Effect.ignore)
    } else if (yield* exists(fs, join(repo.gitDir, "HEAD"))) {
      if (!(yield* exists(fs, paused))) yield* fs.writeFile(paused, "history is switched off for this project\n").pipe(Effect.ignore)
    }
  }).pipe(Effect.catchAll(() => Effect.void))

/** Removes the lock files a killed git left in the git folder; the caller holds `history.lock`. */
const clearGitLocks = (fs: FileSystemShape, repo: HistoryRepo) =>
  Effect.forEach(
    ["index.lock", "HEAD.lock", join("refs", "heads", `${HISTORY_BRANCH}.lock`)],
    (name) => fs.unlink(join(repo.gitDir, name)).pipe(Effect.ignore),
    { discard: true }
  )

export type CommitOutcome =
  | { readonly _tag: "Committed"; readonly commit: string; readonly files: ReadonlyArray<ChangedFile> }
  | { readonly _tag: "Nothing" }

/** Stages the whole work tree (the exclude file keeps out what is not memory) and commits it, if anything changed. */
export const commitStaged = (
  fs: FileSystemShape,
  repo: HistoryRepo,
  subject: CommitSubject | undefined,
  /** Stage only these files (relative to the memory folder); default: every change in the work tree. */
  only?: ReadonlyArray<string>
): Effect.Effect<CommitOutcome, GitFailed> =>
  Effect.gen(function*() {
    yield* clearGitLocks(fs, repo)
    // A merge a sync started and did not finish (killed) was rolled back: no other commit may claim it.
    if (subject?.kind !== "sync") yield* fs.unlink(join(repo.gitDir, "MERGE_HEAD")).pipe(Effect.ignore)
    // A first sync into an empty history: the sync points the branch at the remote's commit once its files are in.
    else if ((yield* commitOf(repo, "HEAD")) === undefined) return { _tag: "Nothing" } as const
    if (only === undefined) yield* runGit(repo, ["add", "-A", "--", "."])
    // Each file as it is now: added or updated if it exists, removed if it does not (a file the task made and removed
    // again is no change).
    else if (only.length > 0) yield* runGit(repo, ["update-index", "--add", "--remove", "-z", "--stdin"], { input: only.map((f) => `${f}\0`).join("") })
    const staged = yield* runGit(repo, ["diff", "--cached", "--name-status", "-z", "--no-renames"])
    const files = parseNameStatus(staged.stdout)
    if (files.length === 0) return { _tag: "Nothing" } as const
    yield* runGit(repo, ["commit", "-q", "--no-verify", "-F", "-"], { input: commitMessage(subject, files) })
    const head = yield* runGit(repo, ["rev-parse", "HEAD"])
    return { _tag: "Committed", commit: head.stdout.trim(), files } as const
  })

/**
 * Commits what changed under `history.lock` (waiting up to the lock's own timeout); the outcome, or the reason it did
 * not commit. Never fails: a failed commit leaves the change in the folder for the next one.
 */
export const commitAll = (
  fs: FileSystemShape,
  locks: LockServiceShape,
  place: HistoryPlace,
  subject: CommitSubject | undefined,
  only?: ReadonlyArray<string>
): Effect.Effect<CommitOutcome | { readonly _tag: "Failed"; readonly reason: string }> =>
  Effect.gen(function*() {
    const repo = yield* activeRepo(fs, place)
    if (repo === undefined) return { _tag: "Nothing" } as const
    const held = yield* locks.withLock(locksDirOf(place.memoryRootDir), "history.lock", () => commitStaged(fs, repo, subject, only), {
      maxWaitMs: 5 * 60_000
    })
    return held._tag === "Done" ? held.value : ({ _tag: "Failed", reason: `history.lock is held by ${held.description}` } as const)
  }).pipe(Effect.catchAll((e) => Effect.succeed({ _tag: "Failed", reason: e.message } as const)))
