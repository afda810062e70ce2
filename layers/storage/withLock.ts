/**
 * `withLock`: runs the work while holding the lock and releases the lock only once the work has really ended,
 * finalizers included. The work is interrupted when the lock is lost, and the whole effect then fails with
 * LockLost; a busy lock is returned as Busy, never run.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type { LockName } from "../../src/limits.ts"
import type { makeAcquireLoop } from "./lockAcquire.ts"
import type { HeldLock, LockFailed, LockLost, LockOutcome, WaitOptions } from "./lockInterface.ts"

export const makeWithLock = (acquireLoop: ReturnType<typeof makeAcquireLoop>) => {
  const withLock = <A, E, R>(
    locksDir: string,
    name: LockName,
    use: (lock: HeldLock) => Effect.Effect<A, E, R>,
    options?: Partial<WaitOptions>
  ): Effect.Effect<LockOutcome<A>, E | LockLost | LockFailed, R> =>
    Effect.scoped(
      Effect.gen(function*() {
        const result = yield* acquireLoop(locksDir, name, options?.maxWaitMs ?? 0, options)
        if (result._tag === "Busy") return result
        // `use` runs as a fiber this one waits for, and interrupts (waiting for its end) when it is interrupted
        // itself or the lock is lost: the lock is released only once `use` has really ended, finalizers included.
        const work = yield* Effect.fork(use(result.lock))
        let lost: LockLost | undefined
        yield* Effect.forkScoped(result.lock.lost.pipe(
          Effect.catchAll((e) => Effect.sync(() => void (lost = e)).pipe(Effect.zipRight(Fiber.interrupt(work))))
        ))
        const exit = yield* Fiber.await(work).pipe(Effect.onInterrupt(() => Fiber.interrupt(work)))
        if (lost !== undefined && Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)) return yield* Effect.fail(lost)
        const value = yield* exit
        return { _tag: "Done", value } as const
      })
    ).pipe(Effect.withSpan("LockService.withLock", { attributes: { name } }))

  return withLock
}
