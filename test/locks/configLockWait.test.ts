/**
 * CONFIG_LOCK_WAIT_MS at its edge, under Effect's TestClock over the real file system: a change of config.json made
 * while another holds `config.lock` is still waiting 1 ms before the bound, fails as "busy" at the bound without
 * touching the file, and goes through when the holder lets go before it.
 */
import { it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer, Option, TestClock } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect } from "vitest"
import { CONFIG_LOCK_WAIT_MS, ConfigService } from "../../layers/project/ConfigService.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { tempAgent } from "../support/tmp.ts"
import { pendingSleeps, T0 } from "./clocked.ts"

/** Lets every fiber that woke finish its file I/O and go back to sleep: each pending wake-up lies in the future. */
const settle = (sleepers: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 100_000; i++) {
      const now = yield* TestClock.currentTimeMillis
      const sleeps = yield* pendingSleeps
      if (sleeps.length >= sleepers && sleeps.every((t) => t > now)) return
      yield* Effect.promise(() => new Promise((r) => setImmediate(r)))
    }
    throw new Error("the fibers never went back to sleep")
  })

/** The fiber's exit once it ends without the clock moving, or None when it does not (it is waiting on the clock). */
const endsWithoutTime = <A, E>(fiber: Fiber.Fiber<A, E>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 10_000; i++) {
      const done = yield* Fiber.poll(fiber)
      if (Option.isSome(done)) return done
      yield* Effect.promise(() => new Promise((r) => setImmediate(r)))
    }
    return Option.none()
  })

/** Moves the clock to `target` one wake-up at a time, letting each woken fiber run before the next. */
const advanceTo = (target: number, sleepers: number) =>
  Effect.gen(function*() {
    for (;;) {
      yield* settle(sleepers)
      const next = (yield* pendingSleeps)[0]!
      if (next > target) break
      yield* TestClock.setTime(next)
    }
    yield* TestClock.setTime(target)
  })

const setup = Effect.gen(function*() {
  const agent = tempAgent()
  yield* TestClock.setTime(T0)
  // A 1 s back-off instead of 20 ms: thirty attempts rather than 1,500 to reach the bound, the bound itself unchanged.
  const locks = yield* Effect.provide(LockService, LockService.layerWith({ backoff: { baseMs: 1_000, capMs: 1_000 } }).pipe(Layer.provide(FileSystem.layer)))
  const config = yield* Effect.provide(
    ConfigService,
    ConfigService.layerWith({ agentDir: agent.agentDir, home: agent.home, locks }).pipe(Layer.provide(FileSystem.layer))
  )
  const release = yield* Deferred.make<void>()
  const held = yield* Deferred.make<void>()
  const holder = yield* Effect.fork(
    locks.withLock(join(agent.storageRoot, "locks"), "config.lock", () => Deferred.succeed(held, undefined).pipe(Effect.zipRight(Deferred.await(release))))
  )
  yield* Deferred.await(held)
  return { agent, config, release, holder }
})

describe("CONFIG_LOCK_WAIT_MS", () => {
  it.effect("still waiting 1 ms before the bound; busy at the bound, config.json untouched", () =>
    Effect.gen(function*() {
      const { agent, config, release, holder } = yield* setup
      const change = yield* Effect.fork(config.setKey("enabled", false))
      // The holder's heartbeat and the waiter's back-off: two sleepers.
      yield* advanceTo(T0 + CONFIG_LOCK_WAIT_MS - 1, 2)
      yield* settle(2)
      expect(Option.isNone(yield* Fiber.poll(change))).toBe(true)
      yield* TestClock.setTime(T0 + CONFIG_LOCK_WAIT_MS)
      const ended = yield* endsWithoutTime(change)
      expect(Option.isSome(ended)).toBe(true)
      const exit = Option.getOrThrow(ended)
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(JSON.stringify(exit.cause)).toContain('"reason":"busy"')
      expect(existsSync(join(agent.storageRoot, "config.json"))).toBe(false)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
    }))

  it.effect("goes through when the holder lets go 1 ms before the bound", () =>
    Effect.gen(function*() {
      const { agent, config, release, holder } = yield* setup
      const change = yield* Effect.fork(config.setKey("enabled", false))
      yield* advanceTo(T0 + CONFIG_LOCK_WAIT_MS - 1, 2)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      // The waiter's last sleep ends at the bound at the latest: there it takes the free lock.
      yield* TestClock.setTime(T0 + CONFIG_LOCK_WAIT_MS)
      const ended = yield* endsWithoutTime(change)
      expect(Option.isSome(ended) && Exit.isSuccess(ended.value)).toBe(true)
      expect(JSON.parse(readFileSync(join(agent.storageRoot, "config.json"), "utf8"))).toMatchObject({ enabled: false })
    }))
})
