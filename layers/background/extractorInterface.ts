/**
 * The Extractor's interface: its request, its outcomes, its errors and the service's shape. Both the service's Tag
 * (Extractor.ts) and the task behind it (ExtractorTask.ts) import it, so neither imports the other's code back; it
 * holds no implementation and loads no task code.
 */
import type { Message } from "@earendil-works/pi-ai"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type { BranchEntry, SkipReason } from "../../src/background/cursor.ts"
import type { LockFailed, LockLost } from "../storage/lockInterface.ts"
import type { TaskInvalid } from "../writes/writeErrors.ts"
import type { ModelRequestFailed } from "../model/ModelRegistry.ts"
import type { SandboxMode } from "../../src/safety/sandbox.ts"
import type { StopReason } from "./Runner.ts"
import type { BackgroundTaskRequest } from "./taskRequest.ts"
import type { CodemodeSettings, UnsavedChange } from "./tools/taskTool.ts"

export class ExtractionFailed extends Data.TaggedError("ExtractionFailed")<{
  readonly reason: string
}> {}

/** The parent's request as last captured (context_with_system, then message_end), frozen at task start. */
export interface ParentRequest {
  readonly messages: ReadonlyArray<Message>
  readonly model: { readonly provider: string; readonly api: string; readonly id: string }
  readonly sessionId: string
}

export interface ExtractionRequest extends BackgroundTaskRequest {
  /** The branch entries at dispatch: the snapshot the cursor advances over. */
  readonly branch: ReadonlyArray<BranchEntry>
  readonly cursor: string | undefined
  readonly parent: ParentRequest | undefined
  /** Whether a raw tool path (as the main agent wrote it) lands in memory. */
  readonly isMemoryPath: (rawPath: string) => boolean
  /** Skip (and step over) messages that hold a tool result: config.json's `extractor.skipExternalContext`. */
  readonly skipExternalContext?: boolean
  /** The main session's codemode, when on. */
  readonly codemode?: CodemodeSettings | undefined
  /** How long to wait for `extract.lock` held by another process (another session's extraction, a pm forget). */
  readonly lockWaitMs?: number
  /** Called when it starts to wait for `extract.lock`, then every few seconds while it waits, with who holds it. */
  readonly onLockWait?: (holder: string) => Effect.Effect<void>
  /** What the lock file says holds it (default: "extraction in a pi session"). */
  readonly lockKind?: string
  /**
   * A run ended by the model's error takes back what it saved (default: keeps it, as the cursor moves on): for a
   * queued job that will be tried again, so the retry saves nothing twice.
   */
  readonly rollBackOnModelError?: boolean
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
    /** How the task's bash ran (its tools'): in the OS sandbox, refused, or behind the guard alone. */
    readonly sandbox?: SandboxMode
  }

export type ExtractionError = ExtractionFailed | TaskInvalid | ModelRequestFailed | LockLost | LockFailed

export interface ExtractorShape {
  readonly extract: (request: ExtractionRequest) => Effect.Effect<ExtractionOutcome, ExtractionError>
}
