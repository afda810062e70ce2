/**
 * LockService: named cross-process leases under `memory-roots/<hash>/locks/`.
 *
 * A lock is a file published exclusively (a complete temp file hard-linked to its name, so it is never seen empty)
 * holding `{ pid, token, acquiredAt, host, machine, start, kind }`. Holding it is a scoped resource:
 * the file is removed when the scope closes, whatever the exit. While held, a heartbeat fiber refreshes the file's
 * mtime and watches the token; if the file disappears or carries another token the lock is lost, and `withLock`
 * interrupts the work running under it. A read that fails for another reason is retried with back-off for as long
 * as no peer could judge the file stale (one timeout since the token was last seen). A busy lock is a typed result, never an error, so callers pick skip or wait.
 *
 * A lock is judged by its holder first: on this machine (same boot and PID namespace) a holder whose pid is gone or
 * now names a process with another start time has left, and its lock is taken over at once, whatever its age. A
 * holder that cannot be checked that way is judged by age first, as before: older than the timeout AND its pid
 * gone. An unparseable file is stale once a few seconds old. Takeover happens only through the `<name>.recover`
 * arbitration file, so two recoverers cannot both win. See docs/concurrency.md.
 *
 * This module holds the Tag and puts the service together; the parts are its siblings: lockInterface.ts (errors and
 * types), lockProcess.ts (who this process is), lockJudging.ts (settings and judging), lockRecords.ts (the file,
 * step by step, and release), lockAcquire.ts (acquisition and takeover), lockHeartbeat.ts (holding and renewal),
 * withLock.ts and lockInspect.ts.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { LockName } from "../../src/limits.ts"
import { FileSystem } from "./FileSystem.ts"
import type { FileSystemShape } from "./fileSystemShape.ts"
import { makeAcquireLoop } from "./lockAcquire.ts"
import { makeHold } from "./lockHeartbeat.ts"
import { makeLockInspection } from "./lockInspect.ts"
import type { LockServiceConfig, LockServiceShape, WaitOptions } from "./lockInterface.ts"
import { lockSettingsOf } from "./lockJudging.ts"
import { makeLockRecords } from "./lockRecords.ts"
import { makeWithLock } from "./withLock.ts"

export const makeLockService = (fs: FileSystemShape, config: LockServiceConfig = {}): LockServiceShape => {
  const settings = lockSettingsOf(config)
  const { timeoutOf } = settings
  const records = makeLockRecords(fs, settings)
  const acquireLoop = makeAcquireLoop(fs, settings, records, makeHold(fs, settings, records))
  const withLock = makeWithLock(acquireLoop)
  const { inspect, inspectAll } = makeLockInspection(fs, settings, records)

  const acquire = Effect.fn("LockService.acquire")(function*(locksDir: string, name: LockName, options?: { readonly kind?: string }) {
    return yield* acquireLoop(locksDir, name, 0, options)
  })

  const acquireOrWait = Effect.fn("LockService.acquireOrWait")(
    function*(locksDir: string, name: LockName, options: WaitOptions) {
      return yield* acquireLoop(locksDir, name, options.maxWaitMs, options)
    }
  )

  return { acquire, acquireOrWait, withLock, inspect, inspectAll, timeoutOf }
}

export class LockService extends Context.Tag("pm/LockService")<LockService, LockServiceShape>() {
  static readonly layerWith = (config: LockServiceConfig): Layer.Layer<LockService, never, FileSystem> =>
    Layer.effect(LockService, Effect.map(FileSystem, (fs) => makeLockService(fs, config)))
  static readonly layer: Layer.Layer<LockService, never, FileSystem> = LockService.layerWith({})
}
