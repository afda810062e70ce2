/**
 * What `pm status`, `pm sync status` and `/memory status` say about a project's history and sync: whether history is
 * on, the remote and key, when the last sync ran and what it did, how many commits wait to be pushed, and which
 * topics wait for the dream to merge the versions of two machines. Reads only; runs git only when sync is on.
 */
import * as Effect from "effect/Effect"
import { HISTORY_BRANCH } from "../../src/history/commits.ts"
import { branchOfKey } from "../../src/history/syncKey.ts"
import { isConflictFile } from "../../src/history/treeMerge.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import { commitOf, countAhead } from "./gitTree.ts"
import { activeRepo, type HistoryPlace } from "./historyRepo.ts"
import { readSyncSettings, readSyncState, type SyncSettings, type SyncState } from "./syncSettings.ts"

export interface HistoryStatus {
  readonly history: boolean
  readonly sync: (SyncSettings & SyncState & { readonly pending: number }) | undefined
  /** Files holding another machine's version of a topic, waiting for the dream. */
  readonly awaitingMerge: ReadonlyArray<string>
}

export const historyStatusOf = (fs: FileSystemShape, place: HistoryPlace): Effect.Effect<HistoryStatus> =>
  Effect.gen(function*() {
    const entries = yield* fs.readDirectory(place.memoryDir).pipe(Effect.orElseSucceed(() => []))
    const awaitingMerge = entries.map((e) => e.name).filter(isConflictFile).sort()
    const repo = yield* activeRepo(fs, place)
    if (repo === undefined) return { history: false, sync: undefined, awaitingMerge }
    const settings = yield* readSyncSettings(fs, repo)
    if (settings === undefined) return { history: true, sync: undefined, awaitingMerge }
    const state = (yield* readSyncState(fs, repo)) ?? {}
    const pending = yield* Effect.all([commitOf(repo, `refs/remotes/sync/${branchOfKey(settings.key)}`), commitOf(repo, HISTORY_BRANCH)]).pipe(
      Effect.flatMap(([remote, head]) => countAhead(repo, remote, head)),
      Effect.orElseSucceed(() => 0)
    )
    return { history: true, sync: { ...settings, ...state, pending }, awaitingMerge }
  })

/** The status as lines for a person. */
export const describeHistoryStatus = (s: HistoryStatus, now: number): ReadonlyArray<string> => {
  const lines: Array<string> = []
  lines.push(`History: ${s.history ? "on (each change is a commit)" : "off (pm on history turns it on)"}`)
  if (s.sync === undefined) {
    if (s.history) lines.push("Sync: off (pm sync init REMOTE turns it on)")
  } else {
    const ago = s.sync.lastSyncAt === undefined ? "never" : `${Math.max(0, Math.round((now - s.sync.lastSyncAt) / 1000))} s ago`
    lines.push(`Sync: ${s.sync.remote} as ${s.sync.key}; last sync ${ago}${s.sync.message === undefined ? "" : ` (${s.sync.ok === true ? "" : "failed: "}${s.sync.message})`}`)
    lines.push(`Sync pending: ${s.sync.pending} commit${s.sync.pending === 1 ? "" : "s"} not yet pushed`)
  }
  if (s.awaitingMerge.length > 0) lines.push(`Awaiting a merge by the dream: ${s.awaitingMerge.join(", ")}`)
  return lines
}
