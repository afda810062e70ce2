/**
 * Looking at locks without touching them, for status displays: one lock, or every file of the locks directory
 * (known locks, `.recover` files, any other; temp files of a create are not locks), each judged by its timeout. A
 * future mtime is reported as now, never rewritten.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { LOCK_TIMEOUTS_MS, type LockName } from "../../src/limits.ts"
import { describeHolder, heldForMs, lockAgeMs } from "../../src/storage/lockFile.ts"
import type { FileSystemShape } from "./fileSystemShape.ts"
import type { LockSettings } from "./lockJudging.ts"
import type { LockFailed, LockStatus } from "./lockInterface.ts"
import { type LockRecords, RECOVER_SUFFIX } from "./lockRecords.ts"

export const makeLockInspection = (fs: FileSystemShape, settings: LockSettings, records: LockRecords) => {
  const { judge, recoverStaleMs, timeoutOf } = settings
  const { failed, readExisting } = records

  /** The timeout a file in the locks directory is judged by: its lock's, the arbitration one, or the longest. */
  const timeoutOfFile = (file: string): number =>
    file.endsWith(RECOVER_SUFFIX)
      ? recoverStaleMs
      : file in LOCK_TIMEOUTS_MS
      ? timeoutOf(file as LockName)
      : Math.max(...Object.keys(LOCK_TIMEOUTS_MS).map((n) => timeoutOf(n as LockName)))

  /** Looks only: a future mtime is reported as now, never rewritten. */
  const statusOf = (locksDir: string, file: string): Effect.Effect<LockStatus | undefined, LockFailed> =>
    Effect.gen(function*() {
      const found = yield* readExisting(file, join(locksDir, file))
      if (found === undefined) return undefined
      const now = yield* Clock.currentTimeMillis
      const existing = { ...found, mtimeMs: Math.min(found.mtimeMs, now) }
      return {
        name: file,
        holder: existing.record,
        ageMs: lockAgeMs(existing, now),
        heldForMs: heldForMs(existing, now),
        judgement: judge(existing, now, timeoutOfFile(file)),
        description: describeHolder(existing, now)
      } satisfies LockStatus
    })

  const inspect = Effect.fn("LockService.inspect")(function*(locksDir: string, name: LockName) {
    return yield* statusOf(locksDir, name)
  })

  const inspectAll = Effect.fn("LockService.inspectAll")(function*(locksDir: string) {
    const entries = yield* fs.readDirectory(locksDir).pipe(
      Effect.catchIf((e) => e.reason === "NotFound", () => Effect.succeed([])),
      Effect.mapError(failed("locks", "list"))
    )
    // Temp files of a create in progress (or of one killed mid-create) are not locks.
    const files = entries.filter((e) => !e.name.endsWith(".tmp")).map((e) => e.name).sort()
    const statuses = yield* Effect.forEach(files, (file) => statusOf(locksDir, file))
    return statuses.filter((s): s is LockStatus => s !== undefined)
  })

  return { inspect, inspectAll }
}
