/**
 * A service whose implementation module is imported when the service is first used, not when it is made: the
 * extension's session start makes the background services without loading the task code (the runner, the six
 * tools, the secrets detector, the prompts) until a task runs.
 */
import * as Effect from "effect/Effect"

/**
 * `load` imports the module and returns its constructor; `forward` builds the service from `get`, which yields the
 * constructed implementation (built once, over the context the service was made in).
 */
export const makeOnFirstUse = <S, R>(
  load: () => Promise<Effect.Effect<S, never, R>>,
  forward: (get: Effect.Effect<S>) => S
): Effect.Effect<S, never, R> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<R>()
    let built: S | undefined
    const get: Effect.Effect<S> = Effect.suspend(() =>
      built !== undefined
        ? Effect.succeed(built)
        : Effect.promise(load).pipe(
          Effect.flatMap((make) => make),
          Effect.provide(context),
          Effect.tap((service) => Effect.sync(() => void (built ??= service)))
        )
    )
    return forward(get)
  })

