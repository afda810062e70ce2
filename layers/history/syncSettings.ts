/**
 * A history's sync settings (`pm sync init`: the remote and the project's key) and what its last sync did, each a
 * small JSON file in the git folder: read without running git, so a session or `pm status` of a project without sync
 * pays a read that finds nothing. Kept apart from the sync itself (sync.ts), which loads the writer and git's merge.
 */
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { SYNC_SETTINGS_FILE, SYNC_STATE_FILE } from "../../src/history/commits.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { HistoryRepo } from "./git.ts"

export interface SyncSettings {
  readonly remote: string
  readonly key: string
}

export interface SyncState {
  readonly lastSyncAt?: number
  readonly ok?: boolean
  /** What the last sync did or why it stopped, in words. */
  readonly message?: string
}

const readJson = <A>(fs: FileSystemShape, path: string): Effect.Effect<A | undefined> =>
  fs.readRegularFile(path, 64 * 1024).pipe(
    // A file that does not parse (cut short, edited by hand) reads as absent.
    Effect.flatMap((r) => Effect.try(() => JSON.parse(new TextDecoder().decode(r.bytes)) as A)),
    Effect.orElseSucceed(() => undefined)
  )

export const readSyncSettings = (fs: FileSystemShape, repo: HistoryRepo) => readJson<SyncSettings>(fs, join(repo.gitDir, SYNC_SETTINGS_FILE))
export const readSyncState = (fs: FileSystemShape, repo: HistoryRepo) => readJson<SyncState>(fs, join(repo.gitDir, SYNC_STATE_FILE))

export const writeSyncState = (fs: FileSystemShape, repo: HistoryRepo, state: SyncState) =>
  fs.writeFile(join(repo.gitDir, SYNC_STATE_FILE), `${JSON.stringify(state)}\n`).pipe(Effect.ignore)

