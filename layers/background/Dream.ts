/**
 * Dream: the consolidation task itself. A background agent on the same runner as the extractor (the six restricted
 * tools, a MemoryWriter task, validity checks before every model and tool call, change and usage callbacks) works
 * through the memory directory with the recent sessions' transcripts at hand, and ends with a consolidated MEMORY.md.
 *
 * When a dream is due, `dream.lock` and the attempt time are DreamAttempt's; this module runs one task. It always sends
 * an independent request (our system prompt, the memory rules, the tools section): the conversation that happened to
 * trigger it is not what a dream works on.
 *
 * This module is the service's Tag; its interface is dreamInterface.ts, and the task itself (DreamTask.ts) is imported
 * at the first dream.
 */
import type { PiToolkit } from "./PiToolkit.ts"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { BashGuard } from "../safety/BashGuard.ts"
import type { FileSystem } from "../storage/FileSystem.ts"
import type { Journal } from "../writes/Journal.ts"
import type { MemoryStore } from "../memory/MemoryStore.ts"
import type { MemoryWriter } from "../writes/MemoryWriter.ts"
import type { ModelRegistry } from "../model/ModelRegistry.ts"
import type { DreamShape } from "./dreamInterface.ts"
import { makeOnFirstUse } from "./onFirstUse.ts"

export const DREAM_MAX_TURNS = 50
export const DREAM_MAX_TOKENS = 16_384

/** The task's code is imported at the first dream, not when the service is made. */
const makeDreamOnFirstUse: Effect.Effect<
  DreamShape,
  never,
  ModelRegistry | MemoryStore | MemoryWriter | BashGuard | FileSystem | Journal | PiToolkit
> = makeOnFirstUse("consolidate", () => import("./DreamTask.ts").then((m) => m.makeDream))

export class Dream extends Context.Tag("pm/Dream")<Dream, DreamShape>() {
  static readonly make = makeDreamOnFirstUse
  static readonly layer: Layer.Layer<Dream, never, ModelRegistry | MemoryStore | MemoryWriter | BashGuard | FileSystem | Journal | PiToolkit> =
    Layer.effect(Dream, makeDreamOnFirstUse)
}
