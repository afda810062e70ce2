/**
 * Sync of one project's memory history with a git remote the user names (`pm sync init REMOTE`): fetch, merge what
 * came (syncMerge.ts, under the background writers' locks), then push, always with the user's own git and
 * credentials, from the process that asked (`pm`, or the Pi session's own process; never a background task's
 * sandbox). The remote holds one branch per project key (src/history/syncKey.ts).
 *
 * - The network parts hold no lock of ours: a slow or unreachable remote never holds up a task; a failed fetch or
 *   push leaves local memory as it was, and the next sync tries again.
 * - Before a push, every memory file the push would carry that changed since the remote's commit is run through
 *   the credential detector; a finding refuses the push, naming the file, the kind and the line.
 * - A push the remote refused because it moved meanwhile is retried after a new fetch and merge
 *   (`SYNC_PUSH_RETRIES`); one refused for another reason (a hook) is reported.
 * - What happened is kept in `history.git/pm-sync-state.json`, for `pm status` and `pm sync status`.
 */
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { HISTORY_BRANCH, SYNC_SETTINGS_FILE } from "../../src/history/commits.ts"
import { branchOfKey } from "../../src/history/syncKey.ts"
import { SYNC_PUSH_RETRIES } from "../../src/limits.ts"
import { detectSecrets, secretLabel } from "../../src/safety/secrets.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import { LockService } from "../storage/LockService.ts"
import { Journal } from "../writes/Journal.ts"
import { holdingBackgroundLocks, type PersonWait } from "../writes/MemoryUndo.ts"
import { GitFailed, type HistoryRepo, runGit } from "./git.ts"
import { blobText, commitOf, countAhead, treeOf } from "./gitTree.ts"
import { activeRepo, commitStaged, type HistoryPlace, initRepo } from "./historyRepo.ts"
import { readSyncSettings, type SyncSettings, writeSyncState } from "./syncSettings.ts"
import { mergeRemote } from "./syncMerge.ts"

export type SyncResult =
  | { readonly _tag: "Synced"; readonly pulled: ReadonlyArray<string>; readonly conflicts: ReadonlyArray<string>; readonly pushed: number }
  | { readonly _tag: "Failed"; readonly reason: string }
  | { readonly _tag: "Off" }

const REMOTE_NAME = "sync"
const trackingRef = (key: string) => `refs/remotes/${REMOTE_NAME}/${branchOfKey(key)}`

/** Turns sync on: the history made if needed, the remote named, the key kept. */
export const initSync = (fs: FileSystemShape, place: HistoryPlace, settings: SyncSettings): Effect.Effect<HistoryRepo, GitFailed> =>
  Effect.gen(function*() {
    const repo = yield* initRepo(fs, place)
    const has = yield* runGit(repo, ["remote"]).pipe(Effect.map((r) => r.stdout.split("\n").includes(REMOTE_NAME)))
    yield* runGit(repo, has ? ["remote", "set-url", REMOTE_NAME, settings.remote] : ["remote", "add", REMOTE_NAME, settings.remote])
    yield* fs.writeFile(join(repo.gitDir, SYNC_SETTINGS_FILE), `${JSON.stringify(settings)}\n`).pipe(
      Effect.mapError((e) => new GitFailed({ args: ["init"], code: null, stderr: e.message }))
    )
    return repo
  })

/** The first words of git's complaint, for a person. */
const said = (e: GitFailed): string => e.message

/** Fetches the project's branch; undefined when the remote has none yet. */
const fetchRemote = (repo: HistoryRepo, key: string): Effect.Effect<string | undefined, GitFailed> =>
  Effect.gen(function*() {
    const branch = branchOfKey(key)
    const listed = yield* runGit(repo, ["ls-remote", "--heads", REMOTE_NAME, `refs/heads/${branch}`], { network: true })
    if (listed.stdout.trim() === "") return undefined
    yield* runGit(repo, ["fetch", "-q", "--no-tags", "--no-write-fetch-head", REMOTE_NAME, `+refs/heads/${branch}:${trackingRef(key)}`], { network: true })
    return yield* commitOf(repo, trackingRef(key))
  })

/** The credential detector over every memory file the push would carry that the remote does not have as it is. */
export const pushFindings = (repo: HistoryRepo, remoteCommit: string | undefined): Effect.Effect<ReadonlyArray<string>, GitFailed> =>
  Effect.gen(function*() {
    const head = yield* commitOf(repo, HISTORY_BRANCH)
    const [ours, theirs] = yield* Effect.all([treeOf(repo, head), treeOf(repo, remoteCommit)])
    const found: Array<string> = []
    for (const [path, blob] of ours) {
      if (theirs.get(path) === blob) continue
      const findings = detectSecrets(yield* blobText(repo, blob))
      if (findings.length > 0) found.push(`${path} holds what looks like ${secretLabel(findings[0]!.kind)} at line ${findings[0]!.line}`)
    }
    return found
  })

type PushOutcome = { readonly _tag: "Pushed"; readonly count: number } | { readonly _tag: "Moved" } | { readonly _tag: "Refused"; readonly reason: string }

const push = (repo: HistoryRepo, key: string, remoteCommit: string | undefined): Effect.Effect<PushOutcome, GitFailed> =>
  Effect.gen(function*() {
    const head = yield* commitOf(repo, HISTORY_BRANCH)
    const count = yield* countAhead(repo, remoteCommit, head)
    if (head === undefined || count === 0) return { _tag: "Pushed", count: 0 } as const
    const findings = yield* pushFindings(repo, remoteCommit)
    if (findings.length > 0) {
      return { _tag: "Refused", reason: `nothing was pushed: ${findings.join("; ")}. Memory must never hold credentials: remove the value (pm forget, or edit the file) and sync again.` } as const
    }
    const lease = `--force-with-lease=refs/heads/${branchOfKey(key)}:${remoteCommit ?? ""}`
    const pushed: PushOutcome = yield* runGit(repo, ["push", "-q", "--no-verify", lease, REMOTE_NAME, `${head}:refs/heads/${branchOfKey(key)}`], { network: true }).pipe(
      Effect.map((): PushOutcome => ({ _tag: "Pushed", count })),
      Effect.catchAll((e): Effect.Effect<PushOutcome> =>
        Effect.succeed(
          /stale info|fetch first|non-fast-forward|\[rejected\]/.test(e.stderr) && !/hook declined/.test(e.stderr)
            ? { _tag: "Moved" }
            : { _tag: "Refused", reason: `the remote refused the push: ${said(e)}` }
        )
      )
    )
    if (pushed._tag === "Pushed") yield* runGit(repo, ["update-ref", trackingRef(key), head]).pipe(Effect.ignore)
    return pushed
  })

/**
 * One sync now: fetch, merge under the locks, push; a push refused because the remote moved is retried after a new
 * fetch and merge. Never fails: the outcome says what happened, and is kept for status.
 */
export const syncNow = (
  fs: FileSystemShape,
  place: HistoryPlace,
  wait: PersonWait = {}
): Effect.Effect<SyncResult, never, Journal | LockService> =>
  Effect.gen(function*(): Effect.fn.Return<SyncResult, GitFailed, Journal | LockService> {
    const repo = yield* activeRepo(fs, place)
    if (repo === undefined) return { _tag: "Off" } as const
    const settings = yield* readSyncSettings(fs, repo)
    if (settings === undefined) return { _tag: "Off" } as const
    const pulled: Array<string> = []
    const conflicts: Array<string> = []
    let result: SyncResult | undefined
    for (let attempt = 0; attempt <= SYNC_PUSH_RETRIES && result === undefined; attempt++) {
      const theirs = yield* fetchRemote(repo, settings.key)
      if (theirs !== undefined) {
        const merged = yield* holdingBackgroundLocks({ rootDir: place.memoryRootDir, memoryDir: place.memoryDir }, mergeRemote(fs, place, repo, theirs), wait).pipe(
          Effect.mapError((e) => (e instanceof GitFailed ? e : new GitFailed({ args: ["merge"], code: null, stderr: e.message })))
        )
        pulled.push(...merged.changed)
        conflicts.push(...merged.conflicts)
      } else {
        yield* holdingBackgroundLocks({ rootDir: place.memoryRootDir, memoryDir: place.memoryDir }, commitPending(fs, repo), wait).pipe(
          Effect.mapError((e) => (e instanceof GitFailed ? e : new GitFailed({ args: ["commit"], code: null, stderr: e.message })))
        )
      }
      const pushed = yield* push(repo, settings.key, theirs)
      if (pushed._tag === "Pushed") result = { _tag: "Synced", pulled, conflicts, pushed: pushed.count }
      else if (pushed._tag === "Refused") result = { _tag: "Failed", reason: pushed.reason }
    }
    const failed: SyncResult = { _tag: "Failed", reason: `the remote kept moving: ${SYNC_PUSH_RETRIES + 1} pushes were refused; the next sync tries again` }
    return result ?? failed
  }).pipe(
    Effect.catchAll((e): Effect.Effect<SyncResult> => Effect.succeed({ _tag: "Failed", reason: e.message })),
    Effect.tap((result) =>
      result._tag === "Off" ? Effect.void : Effect.flatMap(activeRepo(fs, place), (repo) =>
        repo === undefined ? Effect.void : writeSyncState(fs, repo, {
          lastSyncAt: Date.now(),
          ok: result._tag === "Synced",
          message: result._tag === "Synced" ? describeSynced(result) : result.reason
        }))
    )
  )

const commitPending = (fs: FileSystemShape, repo: HistoryRepo) => commitStaged(fs, repo, undefined)

export const describeSynced = (r: Extract<SyncResult, { _tag: "Synced" }>): string =>
  [
    r.pulled.length === 0 ? "nothing new from the remote" : `${r.pulled.length} file${r.pulled.length === 1 ? "" : "s"} from the remote`,
    r.pushed === 0 ? "nothing to push" : `${r.pushed} commit${r.pushed === 1 ? "" : "s"} pushed`,
    ...(r.conflicts.length === 0 ? [] : [`${r.conflicts.length} topic${r.conflicts.length === 1 ? "" : "s"} changed on both machines kept side by side for the dream (${r.conflicts.join(", ")})`])
  ].join("; ")
