/**
 * Host: what the memory session needs from Pi, as a service. The extension implements it over the `pi` API and
 * the latest handler context; tests implement it with plain arrays.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { EntryLike } from "../../src/recall/recallState.ts"

export type Delivery = "steer" | "nextTurn" | "followUp"

export interface HostShape {
  readonly cwd: Effect.Effect<string>
  readonly sessionId: Effect.Effect<string>
  /** Pi 1.x trust (DECISIONS D8): false means memory is off limits for this project right now. */
  readonly isTrusted: Effect.Effect<boolean>
  readonly isIdle: Effect.Effect<boolean>
  /** The active branch's entries, root first. */
  readonly branch: Effect.Effect<ReadonlyArray<EntryLike>>
  /** Every entry of the session, all branches (with `id` and `parentId`); the branch alone when not given. */
  readonly entries?: Effect.Effect<ReadonlyArray<EntryLike>>
  readonly notify: (message: string, level: "info" | "warning" | "error") => Effect.Effect<void>
  /** A custom entry: persisted, never sent to the model. */
  readonly appendEntry: (customType: string, data: unknown) => Effect.Effect<void>
  /** A hidden message that reaches the model. */
  readonly sendHidden: (customType: string, content: string, deliverAs: Delivery) => Effect.Effect<void>
}

export class Host extends Context.Tag("pm/Host")<Host, HostShape>() {}
