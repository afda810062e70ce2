/**
 * pi-ai's fake provider behind `ModelRegistry.layerWith`: an explicit `Models` collection holds the faux provider,
 * the backend completes through `models.complete`, and every step records the exact request it received (context as
 * the provider sees it, stream options, model). Shared by test/selector and test/recall.
 */
import {
  createModels,
  fauxAssistantMessage,
  fauxProvider,
  fauxText,
  fauxToolCall,
  getSystemMessageText,
  type AssistantMessage,
  type FauxResponseFactory,
  type Model,
  type SimpleStreamOptions,
  type TranscriptContext
} from "@earendil-works/pi-ai"
import { Layer } from "effect"
import { ModelRegistry, type ModelBackend } from "../../layers/model/ModelRegistry.ts"
import { Selector } from "../../layers/recall/Selector.ts"

export interface CapturedRequest {
  readonly context: TranscriptContext
  readonly options: SimpleStreamOptions | undefined
  readonly model: Model<string>
}

/** A reply or a function of the request; both are recorded before they answer. */
export type Step = AssistantMessage | ((request: CapturedRequest) => AssistantMessage | Promise<AssistantMessage>)

export interface FauxHarness {
  readonly backend: ModelBackend
  readonly registry: Layer.Layer<ModelRegistry>
  readonly selector: Layer.Layer<Selector>
  readonly requests: Array<CapturedRequest>
  /** Replaces the queue of replies. */
  readonly script: (...steps: ReadonlyArray<Step>) => void
  readonly callCount: () => number
  readonly pending: () => number
}

export const makeFaux = (options: { readonly api?: string; readonly fallback?: string | undefined } = {}): FauxHarness => {
  const faux = fauxProvider({ models: [{ id: "faux-1" }, { id: "faux-2" }], ...(options.api === undefined ? {} : { api: options.api }) })
  const models = createModels()
  models.setProvider(faux.provider)
  const requests: Array<CapturedRequest> = []
  const fallbackId = "fallback" in options ? options.fallback : "faux-1"
  const backend: ModelBackend = {
    find: (provider, id) => models.getModel(provider, id),
    fallback: () => (fallbackId === undefined ? undefined : models.getModel("faux", fallbackId)),
    complete: (model, context, requestOptions) => models.complete(model, context, requestOptions as never)
  }
  const registry = ModelRegistry.layerWith(backend)
  const toFactory =
    (step: Step): FauxResponseFactory =>
    (context, streamOptions, _state, model) => {
      const request = { context, options: streamOptions, model }
      requests.push(request)
      return typeof step === "function" ? step(request) : step
    }
  return {
    backend,
    registry,
    selector: Selector.layer.pipe(Layer.provide(registry)),
    requests,
    script: (...steps) => faux.setResponses(steps.map(toFactory)),
    callCount: () => faux.state.callCount,
    pending: () => faux.getPendingResponseCount()
  }
}

/** A forced-tool answer naming these files. */
export const toolReply = (names: ReadonlyArray<string>): AssistantMessage =>
  fauxAssistantMessage(fauxToolCall("select_memories", { selected_memories: [...names] }), { stopReason: "toolUse" })

export const textReply = (text: string): AssistantMessage => fauxAssistantMessage(fauxText(text))

export const errorReply = (message: string): AssistantMessage => fauxAssistantMessage([], { stopReason: "error", errorMessage: message })

/** What the provider saw, in plain terms. */
export const systemPromptOf = (r: CapturedRequest): string => {
  const first = r.context.messages[0]
  if (first === undefined || first.role !== "system") throw new Error("the request has no system message first")
  return getSystemMessageText(first)
}

export const toolsOf = (r: CapturedRequest): ReadonlyArray<Record<string, unknown>> => {
  const first = r.context.messages[0] as { toolsAdded?: ReadonlyArray<Record<string, unknown>> } | undefined
  return first?.toolsAdded ?? []
}

export interface PlainMessage {
  readonly role: string
  readonly text: string
}

/** The conversation after the system message, as role + text. */
export const conversationOf = (r: CapturedRequest): ReadonlyArray<PlainMessage> =>
  r.context.messages.slice(1).map((m) => {
    const content = (m as { content: unknown }).content
    const text =
      typeof content === "string"
        ? content
        : (content as ReadonlyArray<{ type: string; text?: string }>)
            .map((c) => (c.type === "text" ? (c.text ?? "") : `<${c.type}>`))
            .join("")
    return { role: m.role, text }
  })
