/**
 * MemorySession's interface: what the extension entry calls on a host event and what it gets back (a tool block, a
 * tool result's patch, a request's sections and recall, the status and context the commands show). Types and the
 * hidden message's name only; the Tag is in MemorySession.ts.
 */
import type * as Effect from "effect/Effect"
import type { EffectiveSwitches, Feature } from "../../src/project/config.ts"
import type { ContextPart } from "../../src/session/memoryContext.ts"
import type { ProjectLocation } from "../../src/storage/layout.ts"
import type { UsageTotals } from "../../src/model/usage.ts"
import type { UndoResult } from "../writes/journalUndo.ts"

/** The hidden message type of recalled memories (excluded from recall's own input). */
export const RECALL_MESSAGE = "pm-memory-recall"

export interface ToolBlock {
  readonly block: true
  readonly reason: string
}

export interface ToolResultPatch {
  readonly content: ReadonlyArray<{ readonly type: string }>
}

export interface ToolResultEvent {
  readonly toolName: string
  readonly input: Record<string, unknown>
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly details: unknown
  readonly isError: boolean
}

export interface BeforeAgentStartInput {
  readonly prompt: string
  /** Pi's `systemPromptOptions.sections`, edited in place (the cache-friendly way to extend the prompt). */
  readonly sections: Record<string, string>
}

export interface SessionStatus {
  readonly active: boolean
  readonly reason: string | undefined
  readonly location: ProjectLocation | undefined
  readonly topics: number
  readonly indexLines: number
  readonly indexChars: number
  readonly budgetUsed: number
  /** What recall injected on the current branch since the last compaction: each user message and its topics. */
  readonly recalled?: ReadonlyArray<{ readonly query: string; readonly selected: ReadonlyArray<string> }>
  readonly usage: UsageTotals
  readonly generation: number
  /** Epoch ms of the last consolidation attempt, from the shared state. */
  readonly lastDreamAt: number | null
  /** The memory history and its sync, in words (layers/history/syncStatus.ts); absent while memory is inactive. */
  readonly historyLines?: ReadonlyArray<string>
  /** The switches in force for this project, as config.json says now. */
  readonly switches?: EffectiveSwitches
  /** The project root they were resolved for (undefined: not known, the global switches). */
  readonly projectRoot?: string | undefined
  /** What in config.json cannot be used, one line each (the background keys' too). */
  readonly configProblems?: ReadonlyArray<string>
}

/** What memory adds to the next request of this session (`/memory context`). */
export interface MemoryContext {
  readonly active: boolean
  readonly reason: string | undefined
  readonly parts: ReadonlyArray<ContextPart>
  /** Whether the next message is sent to recall (memory active, trusted, recall on). */
  readonly recallOn: boolean
  readonly switches?: EffectiveSwitches
}

export interface MemorySessionShape {
  readonly start: Effect.Effect<void>
  /** Compaction: drop the prompt snapshot, rebuild the branch state from entries. */
  readonly rebuild: Effect.Effect<void>
  /**
   * Branch navigation: as `rebuild`, and prefetches still running for messages of the branch left behind are
   * interrupted, so their results are neither delivered into nor charged to the new branch.
   */
  readonly branchChanged: Effect.Effect<void>
  /** Config reload or switch: a new generation, without a new session. */
  readonly reconfigure: Effect.Effect<void>
  readonly shutdown: Effect.Effect<void>
  readonly beforeAgentStart: (input: BeforeAgentStartInput) => Effect.Effect<{ readonly content: string } | undefined>
  /** A user message that entered the session (queued or streamed): prefetch for it, deliver by steer. */
  readonly userMessageEntered: (text: string) => Effect.Effect<void>
  /** The agent settled: a pending "already prefetched" mark is stale now; an aborted run also ends its prefetches. */
  readonly settled: (aborted: boolean) => Effect.Effect<void>
  readonly toolCall: (toolName: string, input: Record<string, unknown>) => Effect.Effect<ToolBlock | undefined>
  readonly toolResult: (event: ToolResultEvent) => Effect.Effect<ToolResultPatch | undefined>
  readonly status: Effect.Effect<SessionStatus>
  /** Waits until no prefetch is running (delivered, dropped or interrupted): an event to wait on instead of a time. */
  readonly prefetchesDone: Effect.Effect<void>
  readonly setEnabled: (enabled: boolean) => Effect.Effect<void, unknown>
  /**
   * `/memory on|off [FEATURE] [--project]`: sets one switch in config.json, globally or for this project, and starts
   * a new generation with it. Returns the project root a project switch was saved for.
   */
  readonly setSwitch: (what: "memory" | Feature, on: boolean, scope: "global" | "project") => Effect.Effect<string | undefined, unknown>
  /** `/memory context`: the sections the next request carries and the last recall of this session, as sent. */
  readonly context: Effect.Effect<MemoryContext>
  /** `/memory undo [TASK]`: the newest task not yet undone (or TASK) back to its previous bytes, journaled. */
  readonly undo: (task?: string) => Effect.Effect<UndoResult, unknown>
}
