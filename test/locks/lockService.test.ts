/** LockService in one process, on real files: scope, heartbeat, loss, takeover rules and arbitration. */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer, TestClock } from "effect"
import { existsSync, mkdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { FileSystem } from "../../layers/FileSystem.ts"
import { type LockServiceConfig, LockService } from "../../layers/LockService.ts"
import { clockedLocks, expectEvent, T0, untilSleeping } from "./clocked.ts"
import { tempDir } from "./processes.ts"

const TIMEOUT = 400
const withService = (config: Partial<LockServiceConfig> = {}) =>
  LockService.layerWith({
    timeouts: { "extract.lock": TIMEOUT, "dream.lock": TIMEOUT, "last-dream-at.lock": TIMEOUT },
    heartbeatMs: 40,
    recoverStaleMs: 200,
    ...config
  }).pipe(Layer.provide(FileSystem.layer))

const DEAD_PID = 2 ** 22 + 12_345 // above Linux's pid_max default of 2^22

/**
 * The TestClock's "now" in the tests that judge ages. The clock stands still, so an age planted relative to it is
 * the age the service sees, however slowly the machine runs.
 */
const NOW = Date.now()
const clockAtNow = TestClock.setTime(NOW)

/** Writes a lock file as another process would have, `ageMs` older than NOW. */
const plant = (dir: string, name: string, content: string, ageMs: number) => {
  writeFileSync(join(dir, name), content)
  const t = (NOW - ageMs) / 1000
  utimesSync(join(dir, name), t, t)
}
const record = (pid: number, token = "theirs") => JSON.stringify({ pid, token, acquiredAt: Date.now() - 10_000 })

describe("LockService", () => {
  it.live("acquires, reports Busy to a second caller, and releases when the scope closes", () =>
    Effect.gen(function*() {
      using dir = tempDir("lock")
      const locks = yield* LockService
      const path = join(dir.path, "locks", "extract.lock")
      yield* Effect.scoped(Effect.gen(function*() {
        const first = yield* locks.acquire(join(dir.path, "locks"), "extract.lock")
        expect(first._tag).toBe("Acquired")
        const content = JSON.parse(readFileSync(path, "utf8"))
        expect(content).toMatchObject({ pid: process.pid })
        expect(Object.keys(content).sort()).toEqual(["acquiredAt", "pid", "token"])
        const second = yield* Effect.scoped(locks.acquire(join(dir.path, "locks"), "extract.lock"))
        expect(second).toMatchObject({ _tag: "Busy", holder: { pid: process.pid } })
      }))
      expect(existsSync(path)).toBe(false)
    }).pipe(Effect.provide(withService())))

  it.live("releases on failure and on interruption", () =>
    Effect.gen(function*() {
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      const failed = yield* Effect.exit(locks.withLock(locksDir, "dream.lock", () => Effect.fail("boom")))
      expect(Exit.isFailure(failed)).toBe(true)
      expect(existsSync(join(locksDir, "dream.lock"))).toBe(false)

      const started = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(locks.withLock(locksDir, "dream.lock", () =>
        Deferred.succeed(started, undefined).pipe(Effect.zipRight(Effect.never))))
      yield* Deferred.await(started)
      expect(existsSync(join(locksDir, "dream.lock"))).toBe(true)
      yield* Fiber.interrupt(fiber)
      expect(existsSync(join(locksDir, "dream.lock"))).toBe(false)
    }).pipe(Effect.provide(withService())))

  it.effect("the heartbeat refreshes the file's mtime every heartbeat period while held", () =>
    Effect.gen(function*() {
      // TestClock drives the heartbeat; the file system reports each refresh, so the test waits for the I/O.
      using dir = tempDir("lock")
      const { events, locks } = yield* clockedLocks({ failReads: 0, reason: "Busy" }, { timeoutMs: TIMEOUT, heartbeatMs: 40 })
      const locksDir = join(dir.path, "locks")
      yield* locks.withLock(locksDir, "extract.lock", () =>
        Effect.gen(function*() {
          for (let beat = 1; beat <= 3; beat++) {
            yield* untilSleeping
            yield* TestClock.adjust(40)
            yield* expectEvent(events, "read")
            yield* expectEvent(events, "touched")
            expect(Math.round(statSync(join(locksDir, "extract.lock")).mtimeMs)).toBe(T0 + beat * 40)
          }
        }))
    }))

  it.live("a lost lock interrupts the work under withLock", () =>
    Effect.gen(function*() {
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      // The work never ends by itself: only the heartbeat seeing the file gone can stop it.
      const exit = yield* Effect.exit(locks.withLock(locksDir, "extract.lock", () =>
        Effect.sync(() => unlinkSync(join(locksDir, "extract.lock"))).pipe(Effect.zipRight(Effect.never))))
      expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "LockLost", reason: "missing" } } })
    }).pipe(Effect.provide(withService())))

  it.live("ensureHeld fails when the token changed, and release leaves the other file alone", () =>
    Effect.gen(function*() {
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      const path = join(locksDir, "extract.lock")
      const exit = yield* Effect.exit(locks.withLock(locksDir, "extract.lock", (lock) =>
        Effect.gen(function*() {
          expect(yield* lock.verify).toBe(true)
          yield* lock.ensureHeld
          writeFileSync(path, record(process.pid, "someone-else"))
          expect(yield* lock.verify).toBe(false)
          yield* lock.ensureHeld
          return "unreachable"
        })))
      expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "LockLost", reason: "token-changed" } } })
      expect(JSON.parse(readFileSync(path, "utf8")).token).toBe("someone-else")
    }).pipe(Effect.provide(withService())))

  it.effect("takeover: fresh files and live holders are never taken; dead and old ones are", () =>
    Effect.gen(function*() {
      yield* clockAtNow
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      mkdirSync(locksDir, { recursive: true })
      const tryOnce = Effect.scoped(Effect.map(locks.acquire(locksDir, "extract.lock"), (r) => r._tag))

      plant(locksDir, "extract.lock", record(DEAD_PID), TIMEOUT - 150)
      expect(yield* tryOnce).toBe("Busy") // dead holder but younger than the timeout

      plant(locksDir, "extract.lock", record(process.ppid), TIMEOUT * 20)
      expect(yield* tryOnce).toBe("Busy") // old, but the holder process exists

      plant(locksDir, "extract.lock", record(DEAD_PID), TIMEOUT + 150)
      expect(yield* tryOnce).toBe("Acquired")
      expect(existsSync(join(locksDir, "extract.lock.recover"))).toBe(false)
    }).pipe(Effect.provide(withService())))

  it.effect("a file with our PID but a token we do not hold was left by an earlier process", () =>
    Effect.gen(function*() {
      yield* clockAtNow
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      mkdirSync(locksDir, { recursive: true })
      plant(locksDir, "extract.lock", record(process.pid, "previous-life"), TIMEOUT + 100)
      expect((yield* Effect.scoped(locks.acquire(locksDir, "extract.lock")))._tag).toBe("Acquired")
    }).pipe(Effect.provide(withService())))

  it.effect("EPERM counts as alive (through the injected liveness check)", () =>
    Effect.gen(function*() {
      yield* clockAtNow
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      mkdirSync(locksDir, { recursive: true })
      plant(locksDir, "extract.lock", record(1), TIMEOUT * 10) // pid 1 exists; as non-root, kill(1, 0) is EPERM
      expect((yield* Effect.scoped(locks.acquire(locksDir, "extract.lock")))._tag).toBe("Busy")
    }).pipe(Effect.provide(withService())))

  it.effect("unreadable lock files are judged by age", () =>
    Effect.gen(function*() {
      yield* clockAtNow
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      mkdirSync(locksDir, { recursive: true })
      const tryOnce = Effect.scoped(Effect.map(locks.acquire(locksDir, "dream.lock"), (r) => r))
      plant(locksDir, "dream.lock", "{\"pid\":12", TIMEOUT - 150)
      expect(yield* tryOnce).toMatchObject({ _tag: "Busy", holder: undefined })
      plant(locksDir, "dream.lock", "", TIMEOUT + 150)
      expect((yield* tryOnce)._tag).toBe("Acquired")
    }).pipe(Effect.provide(withService())))

  it.effect("a live .recover blocks recovery; a stale one whose creator is gone is cleared", () =>
    Effect.gen(function*() {
      yield* clockAtNow
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      mkdirSync(locksDir, { recursive: true })
      const tryOnce = Effect.scoped(Effect.map(locks.acquire(locksDir, "dream.lock"), (r) => r._tag))
      plant(locksDir, "dream.lock", record(DEAD_PID), TIMEOUT + 500)
      plant(locksDir, "dream.lock.recover", record(process.ppid, "recoverer"), 10_000)
      expect(yield* tryOnce).toBe("Busy") // its recoverer is alive
      plant(locksDir, "dream.lock.recover", record(DEAD_PID, "recoverer"), 50)
      expect(yield* tryOnce).toBe("Busy") // young
      plant(locksDir, "dream.lock.recover", record(DEAD_PID, "recoverer"), 10_000)
      expect(yield* tryOnce).toBe("Busy") // this attempt clears it...
      expect(existsSync(join(locksDir, "dream.lock.recover"))).toBe(false)
      expect(yield* tryOnce).toBe("Acquired") // ...and the next one recovers
    }).pipe(Effect.provide(withService())))

  it.effect("many concurrent recoverers of one stale lock: exactly one wins", () =>
    Effect.gen(function*() {
      yield* clockAtNow
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      mkdirSync(locksDir, { recursive: true })
      for (let round = 0; round < 5; round++) {
        plant(locksDir, "extract.lock", record(DEAD_PID, `stale-${round}`), TIMEOUT + 500)
        const results = yield* Effect.scoped(
          Effect.all(Array.from({ length: 12 }, () => locks.acquire(locksDir, "extract.lock")), { concurrency: "unbounded" })
        )
        expect(results.filter((r) => r._tag === "Acquired")).toHaveLength(1)
      }
    }).pipe(Effect.provide(withService())))

  it.live("acquireOrWait waits for a release, and gives up after maxWaitMs", () =>
    Effect.gen(function*() {
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      // The holder keeps the lock until told to release it: no timing decides who is first.
      const held = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(locks.withLock(locksDir, "extract.lock", () =>
        Deferred.succeed(held, undefined).pipe(Effect.zipRight(Deferred.await(release)))))
      yield* Deferred.await(held)
      const gaveUp = yield* Effect.scoped(locks.acquireOrWait(locksDir, "extract.lock", { maxWaitMs: 100 }))
      expect(gaveUp._tag).toBe("Busy")
      const waiter = yield* Effect.fork(locks.withLock(locksDir, "extract.lock", () => Effect.succeed("ran"), { maxWaitMs: 60_000 }))
      yield* Deferred.succeed(release, undefined)
      expect(yield* Fiber.join(waiter)).toEqual({ _tag: "Done", value: "ran" })
      yield* Fiber.join(holder)
    }).pipe(Effect.provide(withService())))

  it.effect("inspect shows the holder and the judgement", () =>
    Effect.gen(function*() {
      yield* clockAtNow
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      expect(yield* locks.inspect(locksDir, "dream.lock")).toBeUndefined()
      yield* locks.withLock(locksDir, "dream.lock", () =>
        Effect.gen(function*() {
          const status = yield* locks.inspect(locksDir, "dream.lock")
          expect(status).toMatchObject({ name: "dream.lock", holder: { pid: process.pid }, judgement: "fresh" })
        }))
    }).pipe(Effect.provide(withService())))

  it("the default layer uses the spec timeouts", () =>
    Effect.runPromise(Effect.gen(function*() {
      const locks = yield* LockService
      expect(locks.timeoutOf("extract.lock")).toBe(15 * 60_000)
      expect(locks.timeoutOf("dream.lock")).toBe(60 * 60_000)
      expect(locks.timeoutOf("last-dream-at.lock")).toBe(60_000)
    }).pipe(Effect.provide(LockService.layer.pipe(Layer.provide(FileSystem.layer))))))
})

