/** LockService in one process, on real files: scope, heartbeat, loss, takeover rules and arbitration. */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer, TestClock } from "effect"
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { FsError } from "../../layers/storage/FsError.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { type LockServiceConfig } from "../../layers/storage/lockInterface.ts"
import { machineOf, processStartOf } from "../../layers/storage/lockProcess.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
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
/** A record written on this machine, as a current release writes it. */
const ours = (pid: number, start: string, token = "theirs") =>
  JSON.stringify({ pid, token, acquiredAt: NOW - 10_000, host: hostname(), machine: machineOf(), start, kind: "pm forget" })
const GRACE = 5_000

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
        // The holder's identity: host, process table and start time, so a dead holder is recognised at once.
        expect(content).toMatchObject({ host: hostname(), machine: machineOf(), start: processStartOf(process.pid), kind: "a pm process" })
        expect(Object.keys(content).sort()).toEqual(["acquiredAt", "host", "kind", "machine", "pid", "start", "token"])
        const second = yield* Effect.scoped(locks.acquire(join(dir.path, "locks"), "extract.lock"))
        expect(second).toMatchObject({ _tag: "Busy", holder: { pid: process.pid } })
      }))
      expect(existsSync(path)).toBe(false)
    }).pipe(Effect.provide(withService())))

  it.live("a lock another fiber of this process has just published is Busy to a second caller, never taken over", () =>
    Effect.gen(function*() {
      // The first caller stops right after its lock file appears: a second caller in this process reads a file that
      // names our own pid, and must see a lock held here, not one left by an earlier process with our pid.
      using dir = tempDir("lock")
      const locksDir = join(dir.path, "locks")
      const linked = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const real = makeNodeFileSystem()
      let first = true
      const paused = FileSystem.layerWith({
        link: (existing, newPath) =>
          real.link(existing, newPath).pipe(Effect.tap(() => {
            if (!first || !newPath.endsWith("extract.lock")) return Effect.void
            first = false
            return Deferred.succeed(linked, undefined).pipe(Effect.zipRight(Deferred.await(release)))
          }))
      })
      const service = LockService.layerWith({
        timeouts: { "extract.lock": TIMEOUT, "dream.lock": TIMEOUT, "last-dream-at.lock": TIMEOUT },
        heartbeatMs: 40,
        recoverStaleMs: 200
      }).pipe(Layer.provide(paused))
      yield* Effect.gen(function*() {
        const locks = yield* LockService
        const holder = yield* Effect.fork(locks.withLock(locksDir, "extract.lock", () => Effect.succeed("held")))
        yield* Deferred.await(linked)
        const second = yield* Effect.scoped(Effect.map(locks.acquire(locksDir, "extract.lock"), (r) => r._tag))
        yield* Deferred.succeed(release, undefined)
        const held = yield* Effect.exit(Fiber.join(holder))
        expect(second).toBe("Busy")
        expect(held).toEqual(Exit.succeed({ _tag: "Done", value: "held" }))
      }).pipe(Effect.provide(service))
    }))

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

  it.effect("unreadable and empty lock files are stale once older than the grace, not the lock's timeout", () =>
    Effect.gen(function*() {
      yield* clockAtNow
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      mkdirSync(locksDir, { recursive: true })
      const tryOnce = Effect.scoped(Effect.map(locks.acquire(locksDir, "dream.lock"), (r) => r))
      plant(locksDir, "dream.lock", "{\"pid\":12", GRACE - 1)
      expect(yield* tryOnce).toMatchObject({ _tag: "Busy", holder: undefined })
      plant(locksDir, "dream.lock", "{\"pid\":12", GRACE + 1)
      expect((yield* tryOnce)._tag).toBe("Acquired")
      plant(locksDir, "dream.lock", "", GRACE - 1)
      expect((yield* tryOnce)._tag).toBe("Busy")
      plant(locksDir, "dream.lock", "", GRACE + 1)
      expect((yield* tryOnce)._tag).toBe("Acquired")
    }).pipe(Effect.provide(withService({ timeouts: { "dream.lock": 3_600_000 } }))))

  it.effect("a holder on this machine is judged by its pid and start time before the lock's age", () =>
    Effect.gen(function*() {
      yield* clockAtNow
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      mkdirSync(locksDir, { recursive: true })
      const tryOnce = Effect.scoped(Effect.map(locks.acquire(locksDir, "dream.lock"), (r) => r))
      const parent = { pid: process.ppid, start: processStartOf(process.ppid)! }
      // Fresh (1 s of an hour), but the pid is gone: taken at once.
      plant(locksDir, "dream.lock", ours(DEAD_PID, "1"), 1_000)
      expect((yield* tryOnce)._tag).toBe("Acquired")
      // Fresh, the pid exists but started at another time: a reused pid, the holder is gone.
      plant(locksDir, "dream.lock", ours(parent.pid, `${Number(parent.start) + 1}`), 1_000)
      expect((yield* tryOnce)._tag).toBe("Acquired")
      // The real live process: busy, and past its timeout still never taken.
      plant(locksDir, "dream.lock", ours(parent.pid, parent.start), 1_000)
      expect(yield* tryOnce).toMatchObject({ _tag: "Busy", holder: { pid: parent.pid } })
      plant(locksDir, "dream.lock", ours(parent.pid, parent.start), 7_200_000)
      expect((yield* tryOnce)._tag).toBe("Busy")
      expect(yield* locks.inspect(locksDir, "dream.lock")).toMatchObject({ judgement: "holder-alive" })
      // Another machine's record: the age decides first, as before.
      plant(locksDir, "dream.lock", JSON.stringify({ ...JSON.parse(ours(DEAD_PID, "1")), machine: "elsewhere" }), 1_000)
      expect((yield* tryOnce)._tag).toBe("Busy")
    }).pipe(Effect.provide(withService({ timeouts: { "dream.lock": 3_600_000 } }))))

  it.effect("a time stamped in the future counts as now, and a dead holder's future lock is taken at once", () =>
    Effect.gen(function*() {
      yield* clockAtNow
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      mkdirSync(locksDir, { recursive: true })
      const tryOnce = Effect.scoped(Effect.map(locks.acquire(locksDir, "dream.lock"), (r) => r._tag))
      plant(locksDir, "dream.lock", ours(DEAD_PID, "1"), -3_600_000) // an hour ahead
      expect(yield* tryOnce).toBe("Acquired")
      // Garbage stamped an hour ahead: busy now, its mtime set back to now, and stale once the grace has passed.
      plant(locksDir, "dream.lock", "garbage", -3_600_000)
      expect(yield* tryOnce).toBe("Busy")
      expect(Math.round(statSync(join(locksDir, "dream.lock")).mtimeMs)).toBe(NOW)
      const status = yield* locks.inspect(locksDir, "dream.lock")
      expect(status).toMatchObject({ judgement: "fresh" })
      expect(Math.round(status!.ageMs)).toBe(0)
      yield* TestClock.adjust(GRACE + 1)
      expect(yield* tryOnce).toBe("Acquired")
    }).pipe(Effect.provide(withService({ timeouts: { "dream.lock": 3_600_000 } }))))

  it.effect("an acquirer whose clock runs an hour behind still takes over a dead holder's lock", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW - 3_600_000)
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      mkdirSync(locksDir, { recursive: true })
      plant(locksDir, "extract.lock", ours(DEAD_PID, "1"), 0)
      expect((yield* Effect.scoped(locks.acquire(locksDir, "extract.lock")))._tag).toBe("Acquired")
    }).pipe(Effect.provide(withService())))

  it.effect("Busy names the holder's kind, pid, host and time held", () =>
    Effect.gen(function*() {
      yield* clockAtNow
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      yield* Effect.scoped(Effect.gen(function*() {
        expect((yield* locks.acquire(locksDir, "extract.lock", { kind: "pm forget" }))._tag).toBe("Acquired")
        yield* TestClock.adjust(12_000)
        const second = yield* Effect.scoped(locks.acquire(locksDir, "extract.lock"))
        expect(second).toMatchObject({ _tag: "Busy", description: `pm forget, pid ${process.pid} on ${hostname()}, for 12 s` })
      }))
    }).pipe(Effect.provide(withService({ timeouts: { "extract.lock": 3_600_000 } }))))

  it.effect("inspectAll reports every file in the locks directory, known or not, judged", () =>
    Effect.gen(function*() {
      yield* clockAtNow
      using dir = tempDir("lock")
      const locks = yield* LockService
      const locksDir = join(dir.path, "locks")
      expect(yield* locks.inspectAll(locksDir)).toEqual([])
      mkdirSync(locksDir, { recursive: true })
      plant(locksDir, "dream.lock", ours(DEAD_PID, "1"), 1_000)
      plant(locksDir, "journal.lock", "", GRACE + 1)
      plant(locksDir, "journal.lock.recover", "", 10)
      plant(locksDir, "future.lock", ours(process.ppid, processStartOf(process.ppid)!), 1_000)
      plant(locksDir, "extract.lock.123.tmp", "", 10) // a create in progress: not a lock
      const all = yield* locks.inspectAll(locksDir)
      expect(all.map((l) => [l.name, l.judgement])).toEqual([
        ["dream.lock", "stale"],
        ["future.lock", "fresh"],
        ["journal.lock", "stale"],
        ["journal.lock.recover", "fresh"]
      ])
    }).pipe(Effect.provide(withService())))

  it.effect("a full disk fails the acquisition with its reason and leaves no lock file behind", () =>
    Effect.gen(function*() {
      using dir = tempDir("lock")
      const locksDir = join(dir.path, "locks")
      mkdirSync(locksDir, { recursive: true })
      const full = FileSystem.layerWith({
        writeFile: (path) => Effect.fail(new FsError({ op: "write", path, reason: "NoSpace", detail: "ENOSPC" }))
      })
      const locks = yield* Effect.provide(LockService, LockService.layer.pipe(Layer.provide(full)))
      const exit = yield* Effect.exit(Effect.scoped(locks.acquire(locksDir, "dream.lock")))
      expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "LockFailed", reason: "NoSpace" } } })
      expect(String((exit as { cause: { error: Error } }).cause.error.message)).toContain("no space left on the device (ENOSPC)")
      expect(readdirSync(locksDir)).toEqual([])
    }))

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

