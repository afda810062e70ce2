/**
 * What a BashGuard offers: the service's interface, implemented by the parser-backed guard (BashParser.ts) and by the
 * stand-ins of BashGuard.ts (on first use, constant). A module of its own so that both sides name it without
 * importing each other.
 */
import type * as Effect from "effect/Effect"
import type { ClassifyContext, Verdict } from "../../src/safety/bash/verdict.ts"

export interface BashGuardShape {
  /** Classifies one command. Never fails: a command that cannot be parsed is a rejection. */
  readonly classify: (command: string, context: ClassifyContext) => Effect.Effect<Verdict>
  /** The same, synchronously. */
  readonly classifySync: (command: string, context: ClassifyContext) => Verdict
  /** Parses and frees the tree without classifying: the bench's baseline. */
  readonly parseOnly: (command: string) => void
}
