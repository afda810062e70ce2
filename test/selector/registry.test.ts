/** ModelRegistry over a backend loaded on first use (the CLI's pi model runtime): lazy, loaded once, failures typed. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ModelRegistry, type ModelBackend } from "../../layers/model/ModelRegistry.ts"
import { makeFaux, toolReply } from "./faux.ts"

const countingLoader = (result: () => Effect.Effect<ModelBackend, { readonly message: string }>) => {
  let loads = 0
  const load = Effect.suspend(() => {
    loads++
    return result()
  })
  return { layer: ModelRegistry.layerOnFirstUse(load), loads: () => loads }
}

describe("ModelRegistry.layerOnFirstUse", () => {
  it.effect("building the layer loads nothing; the first call loads the backend, later calls reuse it", () =>
    Effect.gen(function* () {
      const faux = makeFaux()
      faux.script(toolReply(["a.md"]))
      const loader = countingLoader(() => Effect.succeed(faux.backend))
      const registry = yield* Effect.provide(ModelRegistry, loader.layer)
      expect(loader.loads()).toBe(0)
      const model = yield* registry.resolve("faux/faux-1")
      expect(loader.loads()).toBe(1)
      yield* registry.resolve(undefined)
      const reply = yield* registry.complete(model, { systemPrompt: "s", messages: [], maxTokens: 10, sessionId: "x" })
      expect(reply.stopReason).toBe("toolUse")
      expect(loader.loads()).toBe(1)
    })
  )

  it.effect("a backend that cannot load fails resolve with ModelUnavailable and complete with ModelRequestFailed, both with its message", () =>
    Effect.gen(function* () {
      const faux = makeFaux()
      const model = faux.backend.find("faux", "faux-1")!
      const loader = countingLoader(() => Effect.fail({ message: "cannot load Pi's model runtime: boom" }))
      const registry = yield* Effect.provide(ModelRegistry, loader.layer)
      const unavailable = yield* Effect.flip(registry.resolve("faux/faux-1"))
      expect(unavailable).toMatchObject({ _tag: "ModelUnavailable", ref: "faux/faux-1", message: "cannot load Pi's model runtime: boom" })
      const byDefault = yield* Effect.flip(registry.resolve(undefined))
      expect(byDefault).toMatchObject({ _tag: "ModelUnavailable", ref: "(default)" })
      const failed = yield* Effect.flip(registry.complete(model, { systemPrompt: "s", messages: [], maxTokens: 10, sessionId: "x" }))
      expect(failed).toMatchObject({ _tag: "ModelRequestFailed", model: "faux/faux-1", message: "cannot load Pi's model runtime: boom" })
      // The failure is remembered: one process, one attempt to load.
      expect(loader.loads()).toBe(1)
      expect((yield* registry.totals).requests).toBe(0)
    })
  )

  it.effect("a layer that is never asked never loads (pm recall --select)", () =>
    Effect.gen(function* () {
      const loader = countingLoader(() => Effect.die("must not load"))
      yield* Effect.provide(Effect.void, loader.layer)
      expect(loader.loads()).toBe(0)
    })
  )
})
