/**
 * The fibers of a task's tools. Every effect a tool runs (the check, reads' baselines, writes, deletes, the guard)
 * runs as a fiber of the task's runtime, so the task's clock, services and fiber refs apply, and is tracked until it
 * ends, so that closing the tools (the task ended, or was interrupted) ends them too: `settle` interrupts each and
 * waits for it. A change to memory (`change`) is not interrupted but awaited: the task's check, stopped before the
 * tools close (stoppableCheck in ./TaskTools.ts), fails at its last step before publishing, so a write under way
 * ends without landing, never later. Once `dead` is set, no new effect starts. It decides nothing about what a tool
 * may do.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import { TaskInvalid } from "../../writes/writeErrors.ts"

export interface ToolRuntime {
  /** Why the tools are dead (no tool may run any more), once they are. */
  dead: string | undefined
  /** An effect of a tool; its failure is thrown. */
  readonly runEffect: <A, E>(effect: Effect.Effect<A, E>, change?: boolean) => Promise<A>
  /** Runs a writer effect for Pi's tool; the error keeps its tag (`PublishFailed`: the disk, not the model, failed). */
  readonly run: <A, E extends { readonly message: string }>(effect: Effect.Effect<A, E>) => Promise<A>
  /** Ends what the tools still run: changes under way are awaited, the rest is interrupted. */
  readonly settle: () => Promise<void>
}

export const makeToolRuntime = (runtime: Runtime.Runtime<never> = Runtime.defaultRuntime): ToolRuntime => {
  const inFlight = new Map<Fiber.RuntimeFiber<unknown, unknown>, boolean>()
  const track = <A, E>(effect: Effect.Effect<A, E>, change: boolean): Promise<Exit.Exit<A, E>> =>
    new Promise((resume) => {
      if (self.dead !== undefined) return resume(Exit.fail(new TaskInvalid({ reason: self.dead }) as E))
      const fiber = Runtime.runFork(runtime)(effect)
      inFlight.set(fiber, change)
      fiber.addObserver((exit) => {
        inFlight.delete(fiber)
        resume(exit)
      })
    })
  const runEffect = async <A, E>(effect: Effect.Effect<A, E>, change = false): Promise<A> => {
    const exit = await track(effect, change)
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    if (Option.isSome(failure)) throw failure.value
    throw new Error(Cause.isInterruptedOnly(exit.cause) ? "the background task was stopped" : Cause.pretty(exit.cause).split("\n")[0])
  }
  const self: ToolRuntime = {
    dead: undefined,
    runEffect,
    run: async <A, E extends { readonly message: string }>(effect: Effect.Effect<A, E>): Promise<A> =>
      runEffect(effect, true).catch((e: unknown) => {
        const tag = (e as { _tag?: string })._tag
        throw Object.assign(new Error(e instanceof Error || typeof (e as { message?: unknown }).message === "string" ? (e as Error).message : String(e)), { tag })
      }),
    settle: async () => {
      await Promise.all([...inFlight].map(([fiber, change]) => Runtime.runPromise(runtime)(change ? Fiber.await(fiber) : Fiber.interrupt(fiber))))
    }
  }
  return self
}
