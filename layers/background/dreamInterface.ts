/**
 * The Dream's interface: its request, its result (with the measure of MEMORY.md it reports) and the service's shape.
 * Both the service's Tag (Dream.ts) and the task behind it (DreamTask.ts) import it, so neither imports the other's
 * code back; it loads no task code. The task's error, DreamTaskFailed, is DreamAttempt's (the attempt rules read it).
 */
import type * as Effect from "effect/Effect"
import { BACKFILL_MAX_LINES, BACKFILL_MAX_UNITS } from "../../src/limits.ts"
import type { DreamTaskFailed } from "./DreamAttempt.ts"
import type { SandboxMode } from "../../src/safety/sandbox.ts"
import type { StopReason } from "./Runner.ts"
import type { BackgroundTaskRequest } from "./taskRequest.ts"
import type { UnsavedChange } from "./tools/taskTool.ts"

export interface DreamTaskRequest extends BackgroundTaskRequest {
  /** The project's Pi session directory, given to the task verbatim (it reads transcripts there, read-only). */
  readonly sessionDir: string
  /** The other sessions updated since the last dream, newest first. */
  readonly sessionIds: ReadonlyArray<string>
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
  /** How the task's bash ran (its tools'): in the OS sandbox, refused, or behind the guard alone. */
  readonly sandbox?: SandboxMode
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
