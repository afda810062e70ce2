/**
 * ModelRegistry: resolve a model and complete one request, with usage and cost returned on every call and added up
 * per process. Backed by the host inside Pi (`ctx.modelRegistry`, so extension providers work) and by pi's model
 * runtime over the agent directory's auth.json / models.json in the CLI (see cli/PiModelRuntime.ts), which is loaded
 * only when a model is first asked for.
 * Interruption is cancellation: the fiber's abort signal reaches the provider.
 */
import type { Api, AssistantMessage, Context as PiContext, Model, Tool } from "@earendil-works/pi-ai"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Duration from "effect/Duration"
import * as Ref from "effect/Ref"
import { estimateInputTokens, fitRequest } from "../../src/model/requestFit.ts"
import { addUsage, type UsageTotals, zeroUsage } from "../../src/model/usage.ts"

export class ModelUnavailable extends Data.TaggedError("ModelUnavailable")<{
  readonly ref: string
  readonly message: string
}> {}

export class ModelRequestFailed extends Data.TaggedError("ModelRequestFailed")<{
  readonly model: string
  readonly message: string
  /** Set when nothing was sent because the request would not fit the model's limits, or when no answer came in time. */
  readonly kind?: "too-large" | "timeout"
}> {}

/** What a backend must offer: the host's ModelRegistry and pi-ai's ModelRuntime both fit with a thin adapter. */
export interface ModelBackend {
  readonly find: (provider: string, id: string) => Model<Api> | undefined
  /** The model used when neither config nor caller names one (the session's, or the one Pi would start with). */
  readonly fallback: () => Model<Api> | undefined | Promise<Model<Api> | undefined>
  readonly complete: (model: Model<Api>, context: PiContext, options: Record<string, unknown>) => Promise<AssistantMessage>
}

export interface CompletionRequest {
  /** Omitted when `messages` open with their own system message (a background fork of the parent's request). */
  readonly systemPrompt?: string | undefined
  readonly messages: PiContext["messages"]
  readonly tools?: ReadonlyArray<Tool>
  /** Force a call of this tool where the provider's API lets us say so. */
  readonly forceTool?: string
  /** A ceiling: the request asks for at most the model's `maxTokens` and what its context window leaves. */
  readonly maxTokens: number
  readonly sessionId: string
  /** No answer within this many milliseconds (on the Effect clock): the call is aborted and fails. */
  readonly timeoutMs?: number
  /** Background tasks keep their own accounts: their calls stay out of the per-process totals. */
  readonly untracked?: boolean
}

export interface ModelRegistryShape {
  /** `provider/id`, or undefined for the backend's fallback model. */
  readonly resolve: (ref: string | undefined) => Effect.Effect<Model<Api>, ModelUnavailable>
  /** Always resolves to the reply (a provider error is a reply with stopReason "error"), except when the call throws. */
  readonly complete: (model: Model<Api>, request: CompletionRequest) => Effect.Effect<AssistantMessage, ModelRequestFailed>
  readonly totals: Effect.Effect<UsageTotals>
}

/** Provider-specific spellings of "you must call this tool"; APIs not listed get the prompt's instruction only. */
export const forcedToolChoice = (api: string, name: string): unknown => {
  switch (api) {
    case "anthropic-messages":
    case "bedrock-converse-stream":
      return { type: "tool", name }
    case "openai-completions":
      return { type: "function", function: { name } }
    case "openai-responses":
    case "azure-openai-responses":
      return { type: "function", name }
    case "openai-codex-responses":
    case "pi-messages":
      return "required"
    case "mistral-conversations":
      return "any"
    case "google-generative-ai":
    case "google-vertex":
      return "any"
    default:
      return undefined
  }
}

export const parseModelRef = (ref: string): { provider: string; id: string } | undefined => {
  const slash = ref.indexOf("/")
  return slash > 0 && slash < ref.length - 1 ? { provider: ref.slice(0, slash), id: ref.slice(slash + 1) } : undefined
}

/** Why a lazily loaded backend is not there (its message reaches the user as is). */
export interface BackendLoadFailure {
  readonly message: string
}

/** Over a backend that is loaded on first use: a load failure fails that call with the load's message. */
export const makeModelRegistry = (load: Effect.Effect<ModelBackend, BackendLoadFailure>) =>
  Effect.gen(function* () {
    const totals = yield* Ref.make(zeroUsage)
    const loaded = yield* Effect.cached(load)

    const resolve = (ref: string | undefined) =>
      Effect.flatMap(
        Effect.mapError(loaded, (e) => new ModelUnavailable({ ref: ref ?? "(default)", message: e.message })),
        (backend) => resolveWith(backend, ref)
      )

    const resolveWith = (backend: ModelBackend, ref: string | undefined) =>
      Effect.suspend(() => {
        if (ref === undefined) {
          const none = new ModelUnavailable({ ref: "(default)", message: "no model is configured: pass --model provider/id (pm), set selector.model in config.json, or choose a default model in Pi" })
          const model = backend.fallback()
          const found = model instanceof Promise
            ? Effect.tryPromise({ try: () => model, catch: (e) => new ModelUnavailable({ ref: "(default)", message: e instanceof Error ? e.message : String(e) }) })
            : Effect.succeed(model)
          return Effect.flatMap(found, (m) => (m === undefined ? Effect.fail(none) : Effect.succeed(m)))
        }
        const parsed = parseModelRef(ref)
        if (parsed === undefined) return Effect.fail(new ModelUnavailable({ ref, message: `"${ref}" is not of the form provider/model-id` }))
        const model = backend.find(parsed.provider, parsed.id)
        return model === undefined
          ? Effect.fail(new ModelUnavailable({ ref, message: `model ${ref} is not known to Pi (check models.json and the provider's login)` }))
          : Effect.succeed(model)
      })

    // Untraced: the selector calls it on every request, the background agents on every turn.
    const complete = Effect.fnUntraced(function* (model: Model<Api>, request: CompletionRequest) {
      const backend = yield* Effect.mapError(
        loaded,
        (e) => new ModelRequestFailed({ model: `${model.provider}/${model.id}`, message: e.message })
      )
      const name = `${model.provider}/${model.id}`
      // What the provider would refuse is not sent: output above the model's maxTokens, input over its window.
      const fit = fitRequest(model, request.maxTokens, estimateInputTokens(request))
      if (!fit.fits) return yield* Effect.fail(new ModelRequestFailed({ model: name, message: `not sent: ${fit.reason}`, kind: "too-large" }))
      const choice = request.forceTool === undefined ? undefined : forcedToolChoice(model.api, request.forceTool)
      const call = Effect.tryPromise({
        try: (signal) =>
          backend.complete(
            model,
            {
              ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
              messages: request.messages,
              ...(request.tools ? { tools: [...request.tools] } : {})
            },
            {
              signal,
              maxTokens: fit.maxTokens,
              cacheRetention: "short",
              sessionId: request.sessionId,
              ...(choice === undefined ? {} : { toolChoice: choice })
            }
          ),
        catch: (e) => new ModelRequestFailed({ model: name, message: e instanceof Error ? e.message : String(e) })
      })
      // Interrupting the call on the deadline aborts it through its signal.
      const reply = yield* (request.timeoutMs === undefined ? call : call.pipe(
        Effect.timeoutFail({
          duration: Duration.millis(request.timeoutMs),
          onTimeout: () => new ModelRequestFailed({ model: name, message: `no answer within ${request.timeoutMs! / 1000} s`, kind: "timeout" })
        })
      ))
      if (request.untracked !== true) yield* Ref.update(totals, (t) => addUsage(t, reply.usage))
      return reply
    })

    return { resolve, complete, totals: Ref.get(totals) } satisfies ModelRegistryShape
  })

export class ModelRegistry extends Context.Tag("pm/ModelRegistry")<ModelRegistry, ModelRegistryShape>() {
  static readonly layerWith = (backend: ModelBackend): Layer.Layer<ModelRegistry> =>
    Layer.effect(ModelRegistry, makeModelRegistry(Effect.succeed(backend)))
  /**
   * The backend is loaded on the first `resolve` or `complete` and kept (the CLI imports pi's runtime only when a
   * model is really needed); building the layer does nothing.
   */
  static readonly layerOnFirstUse = <R>(load: Effect.Effect<ModelBackend, BackendLoadFailure, R>): Layer.Layer<ModelRegistry, never, R> =>
    Layer.effect(ModelRegistry, Effect.flatMap(Effect.context<R>(), (ctx) => makeModelRegistry(Effect.provide(load, ctx))))
}
