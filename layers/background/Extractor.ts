/**
 * Extractor: after a settled turn, a background agent saves what the conversation taught into memory.
 *
 * One extraction: the cursor machine decides (skip and advance, or run over the messages after the cursor); a run
 * takes `extract.lock` (busy: it waits its turn, up to `lockWaitMs`; still busy then: cursor unchanged, so the same
 * messages are extracted by the next run; see docs/concurrency.md), opens a MemoryWriter task and the six restricted tools, builds
 * a fork of the parent's request when it is compatible (else an independent request), and runs the tool loop. The
 * cursor advances to the end of the snapshot when the task returns (API error and `maxTurns` included) and stays on
 * a throw, an interruption or invalidation: the caller applies `advanceTo` only from a returned outcome.
 *
 * This module is the service's Tag; its interface is extractorInterface.ts, and the task itself (ExtractorTask.ts) is
 * imported at the first extraction.
 */
import type { PiToolkit } from "./PiToolkit.ts"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { BashGuard } from "../safety/BashGuard.ts"
import type { Journal } from "../writes/Journal.ts"
import type { LockService } from "../storage/LockService.ts"
import type { MemoryStore } from "../memory/MemoryStore.ts"
import type { MemoryWriter } from "../writes/MemoryWriter.ts"
import type { ModelRegistry } from "../model/ModelRegistry.ts"
import type { ExtractorShape } from "./extractorInterface.ts"
import { makeOnFirstUse } from "./onFirstUse.ts"

export const EXTRACTOR_MAX_TURNS = 5
export const EXTRACTOR_MAX_TOKENS = 8_192

/** The task's code is imported at the first extraction, not when the service is made. */
const makeExtractorOnFirstUse: Effect.Effect<
  ExtractorShape,
  never,
  ModelRegistry | MemoryStore | MemoryWriter | LockService | BashGuard | Journal | PiToolkit
> = makeOnFirstUse("extract", () => import("./ExtractorTask.ts").then((m) => m.makeExtractor))

export class Extractor extends Context.Tag("pm/Extractor")<Extractor, ExtractorShape>() {
  static readonly make = makeExtractorOnFirstUse
  static readonly layer: Layer.Layer<Extractor, never, ModelRegistry | MemoryStore | MemoryWriter | LockService | BashGuard | Journal | PiToolkit> =
    Layer.effect(Extractor, makeExtractorOnFirstUse)
}
