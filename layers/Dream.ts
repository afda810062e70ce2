/**
 * Dream: the periodic background consolidation of a memory directory across sessions.
 * The interface is fixed here; the live implementation arrives with the dream issue.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { NotImplementedYet } from "./NotImplemented.ts"

export class DreamFailed extends Schema.TaggedError<DreamFailed>()("DreamFailed", {
  reason: Schema.String
}) {}

export interface DreamOutcome {
  readonly status: "ran" | "not-due" | "busy"
  readonly filesChanged: ReadonlyArray<string>
}

export interface DreamShape {
  /** Runs a consolidation when it is due (24 h since the last attempt and 5 other sessions), or when forced. */
  readonly maybeDream: (request: { readonly cwd: string; readonly force: boolean }) => Effect.Effect<DreamOutcome, DreamFailed | NotImplementedYet>
}

export class Dream extends Context.Tag("pm/Dream")<Dream, DreamShape>() {
  static readonly layerNotImplemented: Layer.Layer<Dream> = Layer.succeed(Dream, {
    maybeDream: () => Effect.fail(new NotImplementedYet({ service: "Dream" }))
  })
}
