/**
 * Dream: the consolidation task itself. A background agent on the same runner as the extractor (the six restricted
 * tools, a MemoryWriter task, validity checks before every model and tool call, change and usage callbacks) works
 * through the memory directory with the recent sessions' transcripts at hand, and ends with a consolidated MEMORY.md.
 *
 * When a dream is due, `dream.lock` and the attempt time are DreamAttempt's; this module runs one task. It always sends
 * an independent request (our system prompt, the memory rules, the tools section): the conversation that happened to
 * trigger it is not what a dream works on.
 *
 * This module is the service's interface; the task itself (DreamTask.ts) is imported at the first dream.
 */
import type { PiToolkit } from "./PiToolkit.ts"
import type { Api, Model, Usage } from "@earendil-works/pi-ai"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { BACKFILL_MAX_LINES, BACKFILL_MAX_UNITS } from "../../src/limits.ts"
import type { ProjectLocation } from "../../src/storage/layout.ts"
import type { BashGuard } from "../safety/BashGuard.ts"
import type { FileSystem } from "../storage/FileSystem.ts"
import type { Journal } from "../writes/Journal.ts"
import type { MemoryStore } from "../memory/MemoryStore.ts"
import type { MemoryWriter } from "../writes/MemoryWriter.ts"
import type { TaskInvalid } from "../writes/writeErrors.ts"
import type { ModelRegistry } from "../model/ModelRegistry.ts"
import type { DreamTaskFailed } from "./DreamAttempt.ts"
import { makeOnFirstUse } from "./onFirstUse.ts"
import type { StopReason } from "./Runner.ts"
import type { MemoryChange, UnsavedChange } from "./tools/taskTool.ts"

export const DREAM_MAX_TURNS = 50
export const DREAM_MAX_TOKENS = 16_384

export interface DreamTaskRequest {
  readonly location: ProjectLocation
  /** The parent session's cwd at task start. */
  readonly cwd: string
  /** The project's Pi session directory, given to the task verbatim (it reads transcripts there, read-only). */
  readonly sessionDir: string
  /** The other sessions updated since the last dream, newest first. */
  readonly sessionIds: ReadonlyArray<string>
  readonly model: Model<Api>
  /** The request's own stable cache id. */
  readonly taskSessionId: string
  /** The Pi session the dream runs from, for the change journal. */
  readonly sessionId?: string
  readonly maxTurns: number
  /** Output tokens per call: a ceiling, lowered to the model's limits. */
  readonly maxTokens: number
  /** Each model call fails after this long without an answer. */
  readonly requestTimeoutMs?: number
  /** Task validity (trust, generation, config, the lock): checked before every model and tool call. */
  readonly check: Effect.Effect<void, TaskInvalid>
  readonly onChange: (change: MemoryChange) => Effect.Effect<void>
  readonly onUsage: (usage: Usage | undefined) => Effect.Effect<void>
  /** Called once the task starts (the status line). */
  readonly onStart?: Effect.Effect<void>
}

/** MEMORY.md as the task left it, against the size the prompt asked for. */
export interface DreamIndexSize {
  readonly exists: boolean
  readonly lines: number
  readonly chars: number
  /** Over 160 lines or 20,000 characters: later additions may be cut off when the index is loaded. */
  readonly overTarget: boolean
}

export interface DreamTaskResult {
  readonly stop: StopReason
  readonly turns: number
  readonly filesChanged: ReadonlyArray<string>
  readonly finalText: string
  readonly errorMessage: string | undefined
  readonly index: DreamIndexSize
  /** Deletes refused by the delete cap (the files stay), and the topic count the cap was based on. */
  readonly deletesRefused: ReadonlyArray<string>
  readonly topicsAtStart?: number
  /** Changes the task tried and could not make. */
  readonly unsaved?: ReadonlyArray<UnsavedChange>
  /** Writes that failed for a reason of the system (a full disk): what the task meant to save was not saved. */
  readonly writeFailures?: ReadonlyArray<string>
}

export interface DreamShape {
  /**
   * One consolidation task. An invalidated task (memory off, trust revoked, a new generation, the lock lost) ends as
   * an interruption, like an abort; anything else that throws while the agent works fails in the "fork" phase, and a
   * failure while checking the result afterwards in the "completion" phase.
   */
  readonly consolidate: (request: DreamTaskRequest) => Effect.Effect<DreamTaskResult, DreamTaskFailed>
}

/** Lines as a reader counts them: a final newline does not open another line. */
export const indexSize = (text: string | undefined): DreamIndexSize => {
  if (text === undefined) return { exists: false, lines: 0, chars: 0, overTarget: false }
  const lines = text.length === 0 ? 0 : text.replace(/\n$/, "").split("\n").length
  return { exists: true, lines, chars: text.length, overTarget: lines > BACKFILL_MAX_LINES || text.length > BACKFILL_MAX_UNITS }
}

/** The task's code is imported at the first dream, not when the service is made. */
const makeDreamOnFirstUse: Effect.Effect<
  DreamShape,
  never,
  ModelRegistry | MemoryStore | MemoryWriter | BashGuard | FileSystem | Journal | PiToolkit
> = makeOnFirstUse(
  () => import("./DreamTask.ts").then((m) => m.makeDream),
  (get) => ({ consolidate: (request) => Effect.flatMap(get, (dream) => dream.consolidate(request)) })
)

export class Dream extends Context.Tag("pm/Dream")<Dream, DreamShape>() {
  static readonly make = makeDreamOnFirstUse
  static readonly layer: Layer.Layer<Dream, never, ModelRegistry | MemoryStore | MemoryWriter | BashGuard | FileSystem | Journal | PiToolkit> =
    Layer.effect(Dream, makeDreamOnFirstUse)
}
