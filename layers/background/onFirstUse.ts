/**
 * A service whose implementation module is imported when the service is first used, not when its layer is built: the
 * extension's session start builds the background layers without loading the task code (the runner, the six tools,
 * the secrets detector, the prompts) until a task runs.
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

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

/** The same, as a layer. */
export const onFirstUse = <I, S, R>(
  tag: Context.Tag<I, S>,
  load: () => Promise<Effect.Effect<S, never, R>>,
  forward: (get: Effect.Effect<S>) => S
): Layer.Layer<I, never, R> => Layer.effect(tag, makeOnFirstUse(load, forward))
