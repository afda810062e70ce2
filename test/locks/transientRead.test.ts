/**
 * A held lock whose file cannot be read for a while (EMFILE, EBUSY, EIO): retried inside the stale window, lost only
 * on evidence or when the window ends without a good read. Real files, the real FileSystem wrapped to fail reads of
 * the lock on demand, and Effect's TestClock driving the heartbeat and the back-off; the wrapper reports each read
 * and each mtime refresh as an event, so the test waits for the I/O instead of for time.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Option, TestClock } from "effect"
import { readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { HeldLock } from "../../layers/storage/lockInterface.ts"
import { clockedLocks, expectEvent, type Faults, pendingSleeps, T0, untilSleeping } from "./clocked.ts"
import { tempDir } from "./processes.ts"

const TIMEOUT = 400
const HEARTBEAT = 100
const setup = (faults: Faults) => clockedLocks(faults, { timeoutMs: TIMEOUT, heartbeatMs: HEARTBEAT })

/** Whether `lost` has fired, without waiting for it. */
const lostYet = (lock: HeldLock) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(lock.lost)
    yield* Effect.yieldNow()
    const done = yield* Fiber.poll(fiber)
    yield* Fiber.interrupt(fiber)
    return Option.isSome(done)
  })

describe("LockService: a held lock whose file cannot be read", () => {
  it.effect("transient read errors are retried with back-off, and the lock and its heartbeat carry on", () =>
    Effect.gen(function*() {
      using dir = tempDir("lock")
      const faults: Faults = { failReads: 0, reason: "Busy" }
      const { events, locks } = yield* setup(faults)
      const locksDir = join(dir.path, "locks")
      const path = join(locksDir, "extract.lock")
      const outcome = yield* locks.withLock(locksDir, "extract.lock", (lock) =>
        Effect.gen(function*() {
          faults.failReads = 3
          yield* untilSleeping
          yield* TestClock.adjust(HEARTBEAT) // the heartbeat wakes: its read fails
          yield* expectEvent(events, "read-failed")
          // Back-off of 10, 20, 40 ms: the third retry reads the file.
          for (const delay of [10, 20]) {
            yield* untilSleeping
            yield* TestClock.adjust(delay)
            yield* expectEvent(events, "read-failed")
          }
          yield* untilSleeping
          yield* TestClock.adjust(39)
          expect(yield* lostYet(lock)).toBe(false)
          expect(yield* pendingSleeps).toStrictEqual([T0 + HEARTBEAT + 70]) // no read before its time
          yield* TestClock.adjust(1)
          yield* expectEvent(events, "read")
          yield* expectEvent(events, "touched")
          expect(Math.round(statSync(path).mtimeMs)).toBe(T0 + HEARTBEAT + 70)
          expect(yield* lostYet(lock)).toBe(false)
          // The next heartbeat refreshes the file again: nothing was given up.
          yield* untilSleeping
          yield* TestClock.adjust(HEARTBEAT)
          yield* expectEvent(events, "read")
          yield* expectEvent(events, "touched")
          expect(Math.round(statSync(path).mtimeMs)).toBe(T0 + 2 * HEARTBEAT + 70)
          expect(yield* lock.verify).toBe(true)
          return JSON.parse(readFileSync(path, "utf8")).token === lock.token
        }))
      expect(outcome).toStrictEqual({ _tag: "Done", value: true })
      expect(faults.failReads).toBe(0)
    }))

  it.effect("evidence found after a transient error still loses the lock at once (another token)", () =>
    Effect.gen(function*() {
      using dir = tempDir("lock")
      const faults: Faults = { failReads: 0, reason: "Unknown" }
      const { events, locks } = yield* setup(faults)
      const locksDir = join(dir.path, "locks")
      const exit = yield* Effect.exit(locks.withLock(locksDir, "extract.lock", () =>
        Effect.gen(function*() {
          faults.failReads = 1
          yield* untilSleeping
          yield* TestClock.adjust(HEARTBEAT)
          yield* expectEvent(events, "read-failed")
          writeFileSync(join(locksDir, "extract.lock"), JSON.stringify({ pid: process.pid, token: "someone-else", acquiredAt: 0 }))
          yield* untilSleeping
          yield* TestClock.adjust(10)
          yield* expectEvent(events, "read")
          return yield* Effect.never
        })))
      expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "LockLost", reason: "token-changed" } } })
    }))

  it.effect("a read error that lasts the whole stale window loses the lock as unreadable, not before", () =>
    Effect.gen(function*() {
      using dir = tempDir("lock")
      const faults: Faults = { failReads: 0, reason: "Busy" }
      const { events, locks } = yield* setup(faults)
      const locksDir = join(dir.path, "locks")
      let attempts = 0
      const acquired = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(locks.withLock(locksDir, "extract.lock", () => {
        faults.failReads = Number.POSITIVE_INFINITY
        return Deferred.succeed(acquired, undefined).pipe(Effect.zipRight(Effect.never))
      }))
      yield* Deferred.await(acquired)
      // Step the clock one pending sleep at a time, counting the failed reads, up to the end of the window.
      const stepTo = (end: number) =>
        Effect.gen(function*() {
          for (;;) {
            yield* untilSleeping
            const [next] = yield* pendingSleeps
            if (next === undefined || next > end) return
            yield* TestClock.setTime(next)
            yield* expectEvent(events, "read-failed")
            attempts++
          }
        })
      yield* stepTo(T0 + TIMEOUT - 1)
      expect(attempts).toBeGreaterThan(3)
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      // The last retry lands exactly on the window's end, fails, and the lock is given up.
      expect(yield* pendingSleeps).toStrictEqual([T0 + TIMEOUT])
      yield* TestClock.setTime(T0 + TIMEOUT)
      yield* expectEvent(events, "read-failed")
      faults.failReads = 0 // lets release read the file and remove it
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit)).toBe(true)
      expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "LockLost", reason: "unreadable" } } })
    }))
})
