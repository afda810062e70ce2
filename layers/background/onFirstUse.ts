/**
 * A service whose implementation module is imported when the service is first used, not when it is made: the
 * extension's session start makes the background services without loading the task code (the runner, the six
 * tools, the secrets detector, the prompts) until a task runs. The Extractor and the Dream are made this way: each
 * has one method, which waits for the implementation and then calls it.
 */
import * as Effect from "effect/Effect"

/** A service of one method `K` taking `I`: the shape of both background tasks. */
export type OneMethod<K extends string, I, A, E> = { readonly [P in K]: (input: I) => Effect.Effect<A, E> }

/**
 * `load` imports the module and returns its constructor; the service's `method` builds the implementation on its
 * first call (once, over the context the service was made in) and forwards every call to it.
 */
export const makeOnFirstUse = <K extends string, I, A, E, R>(
  method: K,
  load: () => Promise<Effect.Effect<OneMethod<K, I, A, E>, never, R>>
): Effect.Effect<OneMethod<K, I, A, E>, never, R> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<R>()
    let built: OneMethod<K, I, A, E> | undefined
    const get: Effect.Effect<OneMethod<K, I, A, E>> = Effect.suspend(() =>
      built !== undefined
        ? Effect.succeed(built)
        : Effect.promise(load).pipe(
          Effect.flatMap((make) => make),
          Effect.provide(context),
          Effect.tap((service) => Effect.sync(() => void (built ??= service)))
        )
    )
    const forward = (input: I): Effect.Effect<A, E> => Effect.flatMap(get, (service) => service[method](input))
    // A key computed from a type parameter widens to a string index: the object has exactly the one method `K`.
    return { [method]: forward } as OneMethod<K, I, A, E>
  })
