/**
 * The push after `pm remember`, `pm forget`, `pm undo` and `pm review approve`: once the command's own task is done
 * and committed to the memory history, each memory it committed to whose project has sync on is synced once, in this
 * foreground `pm` process (never a background task's sandbox), with one line saying what happened. The sync is
 * bounded like every sync (each fetch and push by SYNC_NETWORK_TIMEOUT_MS, the retries by SYNC_PUSH_RETRIES).
 *
 * Never fails the command and never changes its exit code: offline, or refused, the memory change stays committed on
 * this machine and the line says the push waits for the next sync. A project with history but no sync costs two
 * stats and prints nothing; a command that committed nothing loads nothing.
 */
import * as Effect from "effect/Effect"
import { activeRepo } from "../layers/history/historyRepo.ts"
import { readSyncSettings } from "../layers/history/syncSettings.ts"
import { FileSystem } from "../layers/storage/FileSystem.ts"
import { takeCommitted } from "./committedPlaces.ts"
import { printLine } from "./output.ts"

/** Syncs each memory this process committed to, when sync is on for it; the line goes to stderr with `--json`. */
export const pushCommitted = (json: boolean) =>
  Effect.gen(function*() {
    const places = takeCommitted()
    if (places.length === 0) return
    const fs = yield* FileSystem
    for (const place of places) {
      const repo = yield* activeRepo(fs, place)
      if (repo === undefined || (yield* readSyncSettings(fs, repo)) === undefined) continue
      const { describeSynced, syncNow } = yield* Effect.promise(() => import("../layers/history/sync.ts"))
      const result = yield* syncNow(fs, place)
      const line = result._tag === "Synced"
        ? `Synced with the remote: ${describeSynced(result)}.`
        : result._tag === "Failed"
        ? `Not pushed yet: ${result.reason}. The change is kept on this machine; the push waits for the next sync.`
        : undefined
      if (line === undefined) continue
      yield* json ? Effect.sync(() => process.stderr.write(`${line}\n`)) : printLine(line)
    }
  }).pipe(Effect.catchAllCause(() => Effect.void))
