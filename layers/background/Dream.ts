/**
 * Dream: the periodic consolidation of a memory directory across sessions. Its interface is set here so it can run
 * on the same runner as the extractor (layers/background/Runner.ts: a task request, `maxTurns` 50, `dream.lock`, a
 * validity check, change and usage callbacks); the live implementation arrives with the dream issue.
 */
import type { Api, Message, Model, Usage } from "@earendil-works/pi-ai"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { ProjectLocation } from "../../src/storage.ts"
import type { TaskInvalid } from "../MemoryWriter.ts"
import { NotImplementedYet } from "../NotImplemented.ts"
import type { StopReason } from "./Runner.ts"
import type { MemoryChange } from "./TaskTools.ts"

export const DREAM_MAX_TURNS = 50

export class DreamFailed extends Schema.TaggedError<DreamFailed>()("DreamFailed", {
  reason: Schema.String
}) {}

export interface DreamRequest {
  readonly location: ProjectLocation
  readonly cwd: string
  /** Run even when not due (24 h and 5 other sessions since the last attempt). */
  readonly force: boolean
  /** The parent's captured request, for prefix reuse; undefined: an independent request. */
  readonly parent: { readonly messages: ReadonlyArray<Message>; readonly model: { provider: string; api: string; id: string }; readonly sessionId: string } | undefined
  readonly model: Model<Api>
  readonly taskSessionId: string
  readonly maxTurns: number
  readonly maxTokens: number
  readonly check: Effect.Effect<void, TaskInvalid>
  readonly onChange: (change: MemoryChange) => Effect.Effect<void>
  readonly onUsage: (usage: Usage | undefined) => Effect.Effect<void>
}

export type DreamOutcome =
  | { readonly status: "not-due" }
  | { readonly status: "busy" }
  | { readonly status: "ran"; readonly stop: StopReason; readonly turns: number; readonly filesChanged: ReadonlyArray<string> }

export interface DreamShape {
  readonly maybeDream: (request: DreamRequest) => Effect.Effect<DreamOutcome, DreamFailed | TaskInvalid | NotImplementedYet>
}

export class Dream extends Context.Tag("pm/Dream")<Dream, DreamShape>() {
  static readonly layerNotImplemented: Layer.Layer<Dream> = Layer.succeed(Dream, {
    maybeDream: () => Effect.fail(new NotImplementedYet({ service: "Dream" }))
  })
}
