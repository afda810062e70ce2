/**
 * Selector: one small model call that picks at most five topic files for the user's text. Its failure boundary is
 * total: every failure becomes an empty selection plus its typed error and one warning (none for a cancelled
 * request); nothing escapes.
 */
import type { Api, Message, Model, Tool } from "@earendil-works/pi-ai"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { CatalogTopic } from "../../src/memory/catalog.ts"
import { SELECTOR_MAX_TOKENS, SELECTOR_SENT_MAX_SESSIONS } from "../../src/limits.ts"
import { type SentCatalog, stableSelectorMessages } from "../../src/recall/stableCatalog.ts"
import { isSuppressed, type BranchRecallState } from "../../src/recall/recallState.ts"
import { isSchemaFeatureRejection, normalizeSelection, parseSelectorReply, SelectionFailed } from "../../src/recall/selection.ts"
import {
  SELECTOR_SCHEMA,
  SELECTOR_SYSTEM_PROMPT,
  SELECTOR_TOOL_DESCRIPTION,
  SELECTOR_TOOL_NAME,
  type selectorMessages
} from "../../src/recall/selectorPrompt.ts"
import { ModelRegistry, type CompletionRequest, type ModelUnavailable } from "../model/ModelRegistry.ts"

export { SelectionFailed } from "../../src/recall/selection.ts"

export interface SelectorTopic extends CatalogTopic {
  /** File mtime, for read suppression. */
  readonly fileMtimeMs: number
}

export interface SelectRequest {
  readonly query: string
  readonly topics: ReadonlyArray<SelectorTopic>
  readonly state: BranchRecallState
  /** `provider/id`; undefined uses the registry's fallback model. */
  readonly modelRef: string | undefined
  /** Stable per selector cache (one per session branch). */
  readonly sessionId: string
  /** `topics` is every topic of the memory (shown whole): the conversation may keep its first list and add changes. */
  readonly whole?: boolean
  /** Of `topics`, those shown for being near the query: said with it, not in the list (src/recall/candidates.ts). */
  readonly near?: ReadonlySet<string>
}

/** Why a selection came back empty: the model could not be resolved, or the request or its reply failed. */
export type SelectorFailure = SelectionFailed | ModelUnavailable

export interface SelectOutcome {
  readonly selected: ReadonlyArray<string>
  /** One line for the user when the selection failed for a reason other than cancellation. */
  readonly warning: string | undefined
  readonly requests: number
  /** Present exactly when the selection failed (cancellation included). */
  readonly failure?: SelectorFailure
}

export interface SelectorShape {
  readonly select: (request: SelectRequest) => Effect.Effect<SelectOutcome>
}

export const selectorTool = (constrained: boolean): Tool => ({
  name: SELECTOR_TOOL_NAME,
  description: SELECTOR_TOOL_DESCRIPTION,
  parameters: SELECTOR_SCHEMA as unknown as object,
  ...(constrained ? { constrainedSampling: { type: "json_schema", strict: "prefer" } } : { constrainedSampling: false })
})

const toPiMessages = (model: Model<Api>, messages: ReturnType<typeof selectorMessages>): Array<Message> =>
  messages.map((m, i): Message =>
    m.role === "user"
      ? { role: "user", content: m.text, timestamp: i }
      : {
          role: "assistant",
          content: [{ type: "text", text: m.text }],
          api: model.api,
          provider: model.provider,
          model: model.id,
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
          stopReason: "stop",
          timestamp: i
        }
  )

export const makeSelector = Effect.gen(function* () {
  const registry = yield* ModelRegistry
  /** What each selector conversation was sent (src/recall/stableCatalog.ts), the SELECTOR_SENT_MAX_SESSIONS newest. */
  const sentBySession = new Map<string, SentCatalog>()
  const remember = (sessionId: string, sent: SentCatalog) => {
    sentBySession.delete(sessionId)
    sentBySession.set(sessionId, sent)
    if (sentBySession.size > SELECTOR_SENT_MAX_SESSIONS) sentBySession.delete(sentBySession.keys().next().value!)
  }

  /** The names the model picked; fails with the typed reason when it picked nothing usable. */
  const ask = (request: SelectRequest, count: (requests: number) => void) =>
    Effect.gen(function* () {
      const model = yield* registry.resolve(request.modelRef)
      const near = request.near ?? new Set<string>()
      const { messages, sent } = stableSelectorMessages(
        sentBySession.get(request.sessionId),
        { listed: request.topics.filter((t) => !near.has(t.filename)), near: request.topics.filter((t) => near.has(t.filename)) },
        request.whole === true,
        request.state.history,
        request.query
      )
      remember(request.sessionId, sent)
      const base: Omit<CompletionRequest, "tools"> = {
        systemPrompt: SELECTOR_SYSTEM_PROMPT,
        messages: toPiMessages(model, messages),
        forceTool: SELECTOR_TOOL_NAME,
        maxTokens: SELECTOR_MAX_TOKENS,
        sessionId: request.sessionId
      }
      const attempt = (constrained: boolean, requests: number) =>
        Effect.sync(() => count(requests)).pipe(
          Effect.zipRight(registry.complete(model, { ...base, tools: [selectorTool(constrained)] })),
          Effect.mapError((e) => new SelectionFailed({ reason: "RequestFailed", detail: e.message })),
          Effect.flatMap(parseSelectorReply)
        )
      // A provider that refuses the strict-schema feature gets one more try on the same model without it.
      return yield* attempt(true, 1).pipe(
        Effect.catchIf(
          (e) => e.reason === "RequestFailed" && isSchemaFeatureRejection(e.detail),
          () => attempt(false, 2)
        )
      )
    })

  const select = (request: SelectRequest): Effect.Effect<SelectOutcome> => {
    if (request.topics.length === 0) return Effect.succeed({ selected: [], warning: undefined, requests: 0 })
    let requests = 0
    const failedWith = (failure: SelectorFailure): SelectOutcome => ({
      selected: [],
      warning: failure._tag === "SelectionFailed" && failure.reason === "Aborted" ? undefined : `Memory recall skipped: ${failure.message}.`,
      requests,
      failure
    })
    return ask(request, (n) => (requests = n)).pipe(
      Effect.map((names): SelectOutcome => {
        const mtimes = new Map(request.topics.map((t) => [t.filename, t.fileMtimeMs]))
        const selected = normalizeSelection(names, new Set(mtimes.keys()), (f) => isSuppressed(request.state, f, mtimes.get(f)))
        return { selected, warning: undefined, requests }
      }),
      Effect.catchAll((e) => Effect.succeed(failedWith(e))),
      Effect.catchAllDefect((d) => Effect.succeed(failedWith(new SelectionFailed({ reason: "Unexpected", detail: String(d) }))))
    )
  }

  return { select } satisfies SelectorShape
})

export class Selector extends Context.Tag("pm/Selector")<Selector, SelectorShape>() {
  /** The service's one constructor (its layer's, and the extension graph's). */
  static readonly make = makeSelector
  static readonly layer: Layer.Layer<Selector, never, ModelRegistry> = Layer.effect(Selector, Selector.make)
}
