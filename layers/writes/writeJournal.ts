/**
 * The writer's journal hook: the contract between MemoryWriter (which publishes) and Journal (which records). The
 * writer runs each publish inside `around`, calls `intend` right before its rename or unlink with the bytes it is
 * about to replace, and says afterwards, from the publish's exit, whether the bytes were published.
 *
 * Apart from the writer so that the journal, which the core loads for every command, needs only these types and never
 * loads the writer itself.
 */
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type { PublishFailed } from "../storage/PublishFailed.ts"

/** One change as the writer is about to make it; the path is relative to the real memory directory. */
export interface IntendedChange {
  readonly file: string
  /** The bytes being replaced (null: the file is created) and the new ones (null: it is deleted). */
  readonly before: Uint8Array | null
  readonly after: Uint8Array | null
  /** Permission bits of the file being replaced. */
  readonly mode?: number
  /** Where the new content came from (src/writes/provenance.ts); absent when not judged. */
  readonly source?: string
}

/** What became of a journaled change: published, not published, or not known (a step after the rename failed). */
export type PublishState = "done" | "failed" | "unknown"

/**
 * The writer's journal hook: `around` runs one publish while holding whatever the journal needs (its lock); the
 * publish calls `intend` right before its rename or unlink (a failure there publishes nothing), and `settle` says,
 * from the publish's exit, what to record as its outcome.
 */
export interface WriteJournal {
  readonly around: <A, E>(
    publish: (intend: (change: IntendedChange) => Effect.Effect<void, PublishFailed>) => Effect.Effect<A, E>,
    settle: (exit: Exit.Exit<A, E>) => PublishState
  ) => Effect.Effect<A, E | PublishFailed>
}

/** Publishes without journaling. */
export const unjournaled: WriteJournal = { around: (publish) => publish(() => Effect.void) }
