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
 * This module is the service's interface; the task itself (ExtractorTask.ts) is imported at the first extraction.
 */
import type { PiToolkit } from "./PiToolkit.ts"
import type { Api, Message, Model, Usage } from "@earendil-works/pi-ai"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { BranchEntry, SkipReason } from "../../src/background/cursor.ts"
import type { ProjectLocation } from "../../src/storage/layout.ts"
import type { BashGuard } from "../safety/BashGuard.ts"
import type { Journal } from "../writes/Journal.ts"
import type { LockService } from "../storage/LockService.ts"
import type { LockFailed, LockLost } from "../storage/lockInterface.ts"
import type { MemoryStore } from "../memory/MemoryStore.ts"
import type { MemoryWriter, TaskInvalid } from "../writes/MemoryWriter.ts"
import type { ModelRegistry, ModelRequestFailed } from "../model/ModelRegistry.ts"
import { makeOnFirstUse } from "./onFirstUse.ts"
import type { StopReason } from "./Runner.ts"
import type { CodemodeSettings, MemoryChange, UnsavedChange } from "./TaskTools.ts"

export const EXTRACTOR_MAX_TURNS = 5
export const EXTRACTOR_MAX_TOKENS = 8_192

export class ExtractionFailed extends Data.TaggedError("ExtractionFailed")<{
  readonly reason: string
}> {}

/** The parent's request as last captured (context_with_system, then message_end), frozen at task start. */
export interface ParentRequest {
  readonly messages: ReadonlyArray<Message>
  readonly model: { readonly provider: string; readonly api: string; readonly id: string }
  readonly sessionId: string
}

export interface ExtractionRequest {
  readonly location: ProjectLocation
  /** The parent session's cwd at task start. */
  readonly cwd: string
  /** The branch entries at dispatch: the snapshot the cursor advances over. */
  readonly branch: ReadonlyArray<BranchEntry>
  readonly cursor: string | undefined
  readonly parent: ParentRequest | undefined
  readonly model: Model<Api>
  /** The independent request's own stable cache id. */
  readonly taskSessionId: string
  readonly maxTurns: number
  /** Output tokens per call: a ceiling, lowered to the model's limits. */
  readonly maxTokens: number
  /** Each model call fails after this long without an answer. */
  readonly requestTimeoutMs?: number
  /** Whether a raw tool path (as the main agent wrote it) lands in memory. */
  readonly isMemoryPath: (rawPath: string) => boolean
  /** Task validity (trust, generation, config): checked before every model and tool call. */
  readonly check: Effect.Effect<void, TaskInvalid>
  readonly onChange: (change: MemoryChange) => Effect.Effect<void>
  readonly onUsage: (usage: Usage | undefined) => Effect.Effect<void>
  /** The main session's codemode, when on. */
  readonly codemode?: CodemodeSettings | undefined
  /** Called once the lock is held and the task starts (the status line). */
  readonly onStart?: Effect.Effect<void>
  /** The Pi session the messages come from, for the change journal. */
  readonly sessionId?: string
  /** How long to wait for `extract.lock` held by another process (another session's extraction, a pm forget). */
  readonly lockWaitMs?: number
  /** Called while it waits for `extract.lock`, every few seconds, with who holds it. */
  readonly onLockWait?: (holder: string) => Effect.Effect<void>
}

export type ExtractionOutcome =
  | { readonly status: "skipped"; readonly reason: SkipReason; readonly advanceTo: string | undefined }
  /** `holder`: who held extract.lock when the wait ran out, in words. */
  | { readonly status: "busy"; readonly holder: string; readonly waitedMs: number }
  | {
    readonly status: "ran"
    readonly stop: StopReason
    readonly turns: number
    readonly mode: "fork" | "independent"
    readonly filesChanged: ReadonlyArray<string>
    readonly finalText: string
    readonly errorMessage: string | undefined
    /** Writes that failed for a reason of the system (a full disk): what the model meant to save was not saved. */
    readonly writeFailures?: ReadonlyArray<string>
    readonly advanceTo: string
    /** Changes the task tried and could not make. */
    readonly unsaved?: ReadonlyArray<UnsavedChange>
    /** How the request was shortened to fit the model's context window, when it was. */
    readonly shortened?: string
  }

export type ExtractionError = ExtractionFailed | TaskInvalid | ModelRequestFailed | LockLost | LockFailed

export interface ExtractorShape {
  readonly extract: (request: ExtractionRequest) => Effect.Effect<ExtractionOutcome, ExtractionError>
}

/** The task's code is imported at the first extraction, not when the service is made. */
const makeExtractorOnFirstUse: Effect.Effect<
  ExtractorShape,
  never,
  ModelRegistry | MemoryStore | MemoryWriter | LockService | BashGuard | Journal | PiToolkit
> = makeOnFirstUse(
  () => import("./ExtractorTask.ts").then((m) => m.makeExtractor),
  (get) => ({ extract: (request) => Effect.flatMap(get, (extractor) => extractor.extract(request)) })
)

export class Extractor extends Context.Tag("pm/Extractor")<Extractor, ExtractorShape>() {
  static readonly make = makeExtractorOnFirstUse
  static readonly layer: Layer.Layer<Extractor, never, ModelRegistry | MemoryStore | MemoryWriter | LockService | BashGuard | Journal | PiToolkit> =
    Layer.effect(Extractor, makeExtractorOnFirstUse)
}
