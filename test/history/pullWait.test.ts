/**
 * The first recall's wait for the session's pull is bounded by SYNC_PULL_WAIT_MS exactly: a pull still running
 * holds it until that much time has passed, not a millisecond longer; a pull that ends earlier releases it at once.
 * Time is Effect's TestClock.
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { describe, expect, it } from "vitest"
import { awaitStartPull, pullAtStart } from "../../layers/history/autoSync.ts"
import { SYNC_PULL_WAIT_MS } from "../../src/limits.ts"

const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect.pipe(Effect.provide(TestContext.TestContext)))

describe("the first recall's wait for the pull", () => {
  it("waits for a pull that does not end, up to SYNC_PULL_WAIT_MS and no longer", async () => {
    const root = `/nowhere/${Math.random()}`
    pullAtStart({ memoryRootDir: root, memoryDir: "/nowhere/memory" }, () => new Promise(() => undefined))
    await run(Effect.gen(function*() {
      const waiting = yield* Effect.fork(awaitStartPull(root))
      yield* Effect.yieldNow()
      yield* TestClock.adjust(SYNC_PULL_WAIT_MS - 1)
      yield* Effect.yieldNow()
      expect(yield* Fiber.poll(waiting)).toMatchObject({ _tag: "None" })
      yield* TestClock.adjust(1)
      yield* Effect.yieldNow()
      expect(yield* Fiber.poll(waiting)).toMatchObject({ _tag: "Some" })
    }))
  })

  it("ends as soon as the pull ends, and does not wait at all without a pull", async () => {
    const root = `/nowhere/${Math.random()}`
    let finish: () => void = () => undefined
    pullAtStart({ memoryRootDir: root, memoryDir: "/nowhere/memory" }, () => new Promise<void>((r) => (finish = r)))
    await run(Effect.gen(function*() {
      const waiting = yield* Effect.fork(awaitStartPull(root))
      yield* TestClock.adjust(SYNC_PULL_WAIT_MS / 2)
      finish()
      yield* Fiber.join(waiting)
      yield* awaitStartPull("/no/pull/here")
    }))
  })
})
