/**
 * StateStore: compare-and-swap on `memory-roots/<hash>/state.json`.
 *
 * Every write happens under `last-dream-at.lock`: read the file, compare its version with the one the caller's
 * change was based on, publish it with AtomicPublish (temp file beside it, renamed over; not fsynced, see there).
 * A changed version fails with StateConflict. Temp files left by a killed holder are swept under the lock.
 * When the shared file does not exist yet, the legacy `projects/<key>/state.json` is read as the starting point.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { randomUUID } from "node:crypto"
import { join } from "node:path"
import {
  type DreamAttempt,
  EMPTY_STATE,
  encodeState,
  nextVersion,
  parseLegacy,
  parseShared,
  recordAttempt,
  rollbackAttempt,
  type SharedState,
  type StateSnapshot
} from "../../src/storage/state.ts"
import { publishFile, sweepTemps } from "./AtomicPublish.ts"
import { FileSystem } from "./FileSystem.ts"
import { type FileSystemShape } from "./fileSystemShape.ts"
import { FsError, fsReasonText } from "./FsError.ts"
import { LockService } from "./LockService.ts"
import { type LockFailed, type LockLost, type LockServiceShape } from "./lockInterface.ts"

export const STATE_FILE = "state.json"
const STATE_MAX_BYTES = 1_048_576

export class StateConflict extends Data.TaggedError("StateConflict")<{
  readonly expected: number
  readonly actual: number
}> {
  override get message(): string {
    return `state.json changed meanwhile (expected version ${this.expected}, found ${this.actual}); read it again`
  }
}

/** `last-dream-at.lock` stayed busy for the whole wait. */
export class StateBusy extends Data.TaggedError("StateBusy")<{
  readonly waitedMs: number
}> {
  override get message(): string {
    return `state.json is being updated by another process (waited ${this.waitedMs} ms)`
  }
}

export class StateFailed extends Data.TaggedError("StateFailed")<{
  readonly op: string
  readonly path: string
  readonly cause: FsError
}> {
  override get message(): string {
    return `state ${this.op} ${this.path}: ${fsReasonText(this.cause.reason, this.cause.detail)}`
  }
}

export type StateWriteError = StateConflict | StateBusy | StateFailed | LockFailed | LockLost

export interface StatePaths {
  /** `memory-roots/<hash>/`: holds `state.json` and `locks/`. */
  readonly rootDir: string
  /** `projects/<key>/state.json`: the migration source while the shared file does not exist. */
  readonly legacyFile?: string
}

export interface StateStoreShape {
  readonly read: (paths: StatePaths) => Effect.Effect<StateSnapshot, StateFailed>
  /** Writes `next` (version = expected + 1) if the file is still at `expectedVersion`. Returns what was written. */
  readonly compareAndSet: (
    paths: StatePaths,
    expectedVersion: number,
    next: SharedState
  ) => Effect.Effect<SharedState, StateWriteError>
  /**
   * Read-modify-write inside the lock: `f` sees the current state, so it never conflicts and never retries. `f`
   * returning undefined means "no change" (nothing is written). Returns the state now on disk.
   */
  readonly update: (
    paths: StatePaths,
    f: (state: SharedState) => SharedState | undefined
  ) => Effect.Effect<SharedState, Exclude<StateWriteError, StateConflict>>
  /**
   * Sets `lastDreamAt = now` and returns the ticket holding the previous value. With `expectedVersion` (the version
   * the caller's decision to dream was based on) it fails with StateConflict when another process wrote meanwhile.
   */
  readonly recordDreamAttempt: (
    paths: StatePaths,
    now: number,
    options?: { readonly expectedVersion?: number }
  ) => Effect.Effect<DreamAttempt, StateWriteError>
  /** Restores `ticket.previous` only if the current value is still this attempt's. True when it restored. */
  readonly rollbackDreamAttempt: (
    paths: StatePaths,
    ticket: DreamAttempt
  ) => Effect.Effect<boolean, Exclude<StateWriteError, StateConflict>>
}

export const makeStateStore = (fs: FileSystemShape, locks: LockServiceShape): StateStoreShape => {
  const stateFile = (paths: StatePaths) => join(paths.rootDir, STATE_FILE)
  const locksDir = (paths: StatePaths) => join(paths.rootDir, "locks")
  // Long enough to outlast a holder that died with the lock: its file turns stale after one timeout.
  const lockWaitMs = 2 * locks.timeoutOf("last-dream-at.lock") + 1_000
  const swept = new Set<string>()

  const failed = (op: string, path: string) => (e: FsError) => new StateFailed({ op, path, cause: e })

  const readText = (path: string): Effect.Effect<string | undefined, StateFailed> =>
    fs.readRegularFile(path, STATE_MAX_BYTES).pipe(
      Effect.map((head) => new TextDecoder().decode(head.bytes)),
      Effect.catchIf((e) => e.reason === "NotFound", () => Effect.succeed(undefined)),
      Effect.mapError(failed("read", path))
    )

  const read = Effect.fn("StateStore.read")(function*(paths: StatePaths) {
    const shared = yield* readText(stateFile(paths))
    if (shared !== undefined) return parseShared(shared)
    if (paths.legacyFile === undefined) return { state: EMPTY_STATE, source: "empty" } satisfies StateSnapshot
    // The legacy file only seeds `lastDreamAt`: one that cannot be read (a directory, no permission) counts as absent,
    // so it can never keep the shared file from being created.
    const legacy = yield* readText(paths.legacyFile).pipe(Effect.orElseSucceed(() => undefined))
    return legacy === undefined ? { state: EMPTY_STATE, source: "empty" } satisfies StateSnapshot : parseLegacy(legacy)
  })

  /** Published beside itself; `ensureHeld` runs right before the rename, so a holder that lost the lock writes nothing. */
  const publish = <E>(paths: StatePaths, state: SharedState, ensureHeld: Effect.Effect<void, E>): Effect.Effect<void, StateFailed | E> =>
    publishFile(fs, {
      dir: paths.rootDir,
      name: STATE_FILE,
      content: encodeState(state),
      mode: "replace",
      beforePublish: () => ensureHeld
    }).pipe(
      Effect.mapError((e) => (e instanceof FsError ? failed("write", stateFile(paths))(e) : e)),
      Effect.asVoid
    )

  /** Under the lock: read, let `decide` compute the new state from the current one, write it. */
  const writeLocked = <E>(
    paths: StatePaths,
    decide: (current: SharedState) => Effect.Effect<SharedState | undefined, E>
  ): Effect.Effect<SharedState, E | Exclude<StateWriteError, StateConflict>> =>
    locks.withLock(
      locksDir(paths),
      "last-dream-at.lock",
      (lock) =>
        Effect.gen(function*() {
          // Under the lock no other writer is publishing: a temp file older than the lock's timeout is a dead one's.
          // Once per directory and process is enough (a leftover is rare; each write need not pay the listing).
          if (!swept.has(paths.rootDir)) {
            swept.add(paths.rootDir)
            yield* sweepTemps(fs, paths.rootDir, { olderThanMs: locks.timeoutOf("last-dream-at.lock"), recursive: false })
          }
          const current = (yield* read(paths)).state
          const next = yield* decide(current)
          if (next === undefined) return current
          const written = nextVersion(current, next)
          yield* publish(paths, written, lock.ensureHeld)
          return written
        }),
      { maxWaitMs: lockWaitMs }
    ).pipe(
      Effect.flatMap((outcome) =>
        outcome._tag === "Done" ? Effect.succeed(outcome.value) : Effect.fail(new StateBusy({ waitedMs: lockWaitMs }))
      )
    )

  const compareAndSet = Effect.fn("StateStore.compareAndSet")(
    function*(paths: StatePaths, expectedVersion: number, next: SharedState) {
      return yield* writeLocked(paths, (current) =>
        current.version === expectedVersion
          ? Effect.succeed(next)
          : Effect.fail(new StateConflict({ expected: expectedVersion, actual: current.version })))
    }
  )

  const update = Effect.fn("StateStore.update")(
    function*(paths: StatePaths, f: (state: SharedState) => SharedState | undefined) {
      return yield* writeLocked(paths, (current) => Effect.succeed(f(current)))
    }
  )

  const recordDreamAttempt = Effect.fn("StateStore.recordDreamAttempt")(
    function*(paths: StatePaths, now: number, options?: { readonly expectedVersion?: number }) {
      const attempt = randomUUID()
      let previous: number | null = null
      yield* writeLocked(paths, (state) => {
        if (options?.expectedVersion !== undefined && state.version !== options.expectedVersion) {
          return Effect.fail(new StateConflict({ expected: options.expectedVersion, actual: state.version }))
        }
        previous = state.lastDreamAt
        return Effect.succeed(recordAttempt(state, now, attempt))
      })
      return { previous, at: now, attempt } satisfies DreamAttempt
    }
  )

  const rollbackDreamAttempt = Effect.fn("StateStore.rollbackDreamAttempt")(
    function*(paths: StatePaths, ticket: DreamAttempt) {
      let restored = false
      yield* update(paths, (state) => {
        const next = rollbackAttempt(state, ticket)
        restored = next !== undefined
        return next
      })
      return restored
    }
  )

  return { read, compareAndSet, update, recordDreamAttempt, rollbackDreamAttempt }
}

export class StateStore extends Context.Tag("pm/StateStore")<StateStore, StateStoreShape>() {
  static readonly layer: Layer.Layer<StateStore, never, FileSystem | LockService> = Layer.effect(
    StateStore,
    Effect.zipWith(FileSystem, LockService, makeStateStore)
  )
}
