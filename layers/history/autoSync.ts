/**
 * The syncs that happen by themselves once sync is on, in the Pi session's own process (never in a background task
 * or its sandbox): a pull when a session starts, which the session's first recall waits for at most
 * `SYNC_PULL_WAIT_MS` (then recall goes on with local memory and the pull lands when it is done), and a sync after
 * each task's commit. One sync per memory at a time: a request while one runs makes one more run after it.
 *
 * The graph that may start them registers its services (`enableAutoSync`, the extension's); without that, as in `pm`,
 * requests do nothing. A project without sync costs a stat or two per request; no git is run.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { SYNC_PULL_WAIT_MS } from "../../src/limits.ts"
import type { FileSystem } from "../storage/FileSystem.ts"
import { FileSystem as FileSystemTag } from "../storage/FileSystem.ts"
import type { LockService } from "../storage/LockService.ts"
import type { Journal } from "../writes/Journal.ts"
import { activeRepo, type HistoryPlace } from "./historyRepo.ts"
import type { SyncResult } from "./sync.ts"
import { readSyncSettings } from "./syncSettings.ts"

type Services = FileSystem | Journal | LockService

let services: Context.Context<Services> | undefined
const running = new Map<string, { again: boolean; done: Promise<SyncResult | undefined> }>()
const firstPull = new Map<string, Promise<unknown>>()

/** Lets this process start syncs by itself (the extension's graph calls it once built). */
export const enableAutoSync = (context: Context.Context<Services>): void => {
  services = context
}

/** Starts a sync of `place` unless one runs (then one more runs after it); resolves when the last one ends. */
export const requestSync = (place: HistoryPlace): Promise<SyncResult | undefined> => {
  const ctx = services
  if (ctx === undefined) return Promise.resolve(undefined)
  const key = place.memoryRootDir
  const now = running.get(key)
  if (now !== undefined) {
    now.again = true
    return now.done
  }
  const fs = Context.get(ctx, FileSystemTag)
  const once = Effect.gen(function*() {
    const repo = yield* activeRepo(fs, place)
    if (repo === undefined || (yield* readSyncSettings(fs, repo)) === undefined) return undefined
    // Loaded by the first sync: a session of a project without sync never loads the merge or the writer.
    const { syncNow } = yield* Effect.promise(() => import("./sync.ts"))
    return yield* syncNow(fs, place, { maxWaitMs: 10 * 60_000 })
  })
  const entry = { again: false, done: Promise.resolve<SyncResult | undefined>(undefined) }
  entry.done = (async () => {
    let last: SyncResult | undefined
    do {
      entry.again = false
      last = await Effect.runPromise(once.pipe(Effect.provide(ctx), Effect.catchAllCause(() => Effect.succeed(undefined))))
    } while (entry.again)
    running.delete(key)
    return last
  })()
  running.set(key, entry)
  return entry.done
}

/** The pull at a session's start: started once per memory and process. */
export const pullAtStart = (place: HistoryPlace, start: (place: HistoryPlace) => Promise<unknown> = requestSync): void => {
  // Without services (as in `pm`) requestSync does nothing, and nothing is waited for.
  if (firstPull.has(place.memoryRootDir) || (start === requestSync && services === undefined)) return
  firstPull.set(place.memoryRootDir, start(place))
}

/** Waits for the start's pull, at most `SYNC_PULL_WAIT_MS` (`waitMs` in tests); never fails. */
export const awaitStartPull = (memoryRootDir: string, waitMs = SYNC_PULL_WAIT_MS): Effect.Effect<void> => {
  const pull = firstPull.get(memoryRootDir)
  if (pull === undefined) return Effect.void
  return Effect.promise(() => pull).pipe(Effect.timeout(waitMs), Effect.ignore)
}

/** Resolves when no sync of this process runs any more (tests, and a host that wants to wait at its end). */
export const syncsSettled = async (): Promise<void> => {
  while (running.size > 0) await Promise.all([...running.values()].map((r) => r.done))
}
