/**
 * What every background task is given, the extraction's and the dream's alike: where memory is, the model and its
 * limits, the validity check, and the callbacks for changes, usage and the status line. Each task's own request
 * (extractorInterface.ts, dreamInterface.ts) adds what only it needs. Types only: importing it loads no task code.
 */
import type { Api, Model, Usage } from "@earendil-works/pi-ai"
import type * as Effect from "effect/Effect"
import type { ProjectLocation } from "../../src/storage/layout.ts"
import type { TaskInvalid } from "../writes/writeErrors.ts"
import type { MemoryChange } from "./tools/taskTool.ts"

export interface BackgroundTaskRequest {
  readonly location: ProjectLocation
  /** The parent session's cwd at task start. */
  readonly cwd: string
  readonly model: Model<Api>
  /** The task's own independent request's stable cache id. */
  readonly taskSessionId: string
  /** The Pi session the task runs for, for the change journal. */
  readonly sessionId?: string
  readonly maxTurns: number
  /** Output tokens per call: a ceiling, lowered to the model's limits. */
  readonly maxTokens: number
  /** Each model call fails after this long without an answer. */
  readonly requestTimeoutMs?: number
  /** Task validity (trust, generation, config; the dream's lock too): checked before every model and tool call. */
  readonly check: Effect.Effect<void, TaskInvalid>
  readonly onChange: (change: MemoryChange) => Effect.Effect<void>
  readonly onUsage: (usage: Usage | undefined) => Effect.Effect<void>
  /** Called once the task starts (the status line); for the extraction, once extract.lock is held. */
  readonly onStart?: Effect.Effect<void>
}
