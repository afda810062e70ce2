/**
 * Extractor: after a settled turn, a background agent writes new memories from the conversation.
 * The interface is fixed here; the live implementation arrives with the extraction issue.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { NotImplementedYet } from "./NotImplemented.ts"

export class ExtractionFailed extends Schema.TaggedError<ExtractionFailed>()("ExtractionFailed", {
  reason: Schema.String
}) {}

export interface ExtractionOutcome {
  readonly status: "ran" | "skipped" | "busy"
  readonly filesChanged: ReadonlyArray<string>
  /** Cursor position (entry id) after the run; unchanged when the run must be retried. */
  readonly cursor: string | undefined
}

export interface ExtractorShape {
  /** Runs one extraction over the messages after `cursor` for the project at `cwd`. */
  readonly extract: (request: { readonly cwd: string; readonly cursor: string | undefined }) => Effect.Effect<ExtractionOutcome, ExtractionFailed | NotImplementedYet>
}

export class Extractor extends Context.Tag("pm/Extractor")<Extractor, ExtractorShape>() {
  static readonly layerNotImplemented: Layer.Layer<Extractor> = Layer.succeed(Extractor, {
    extract: () => Effect.fail(new NotImplementedYet({ service: "Extractor" }))
  })
}
