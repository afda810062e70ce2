/**
 * What the guard answers about one command, and what it is told: the verdict (`read-only`, `delete` with its exact
 * targets, or `rejected` with a reason), the context of a classification, and the rejection of a check that ran past
 * its budget. Types and constants only; the rules that produce a verdict are in classify.ts and the files it names.
 */
import type { ReadPlan } from "./reads.ts"

export interface ClassifyContext {
  /** The memory directory (absolute). Without it nothing can be deleted. */
  readonly memoryDir?: string | undefined
  /** The working directory the command runs in; used to suggest absolute paths. */
  readonly cwd: string
  /**
   * Also work out what a read-only command may open (`reads` on the verdict), with `~` as this home directory: the
   * background shell checks those paths against the protected list.
   */
  readonly reads?: { readonly home: string } | undefined
  /** Asked now and then during a long classification: true once its CPU budget is spent (the command is rejected). */
  readonly overBudget?: (() => boolean) | undefined
}

/** The rejection of a command whose checking ran past its budget. */
export const OVER_BUDGET = "the command is too large or too complex to check in its time budget; split it into smaller commands"

export interface DeleteVerdict {
  readonly verdict: "delete"
  /** Absolute, normalized paths inside the memory directory, without duplicates, in command order. */
  readonly targets: ReadonlyArray<string>
  /** `-f`/`--force`: a missing target is not an error. */
  readonly force: boolean
}

export type Verdict =
  | {
    readonly verdict: "read-only"
    /** With `reads` in the context: what the command may open. */
    readonly reads?: ReadPlan
    /** The text to run, when it differs from the command (a trailing comment removed). */
    readonly run?: string
  }
  | DeleteVerdict
  | { readonly verdict: "rejected"; readonly reason: string }

export const READ_ONLY: Verdict = { verdict: "read-only" }
export const rejected = (reason: string): Verdict => ({ verdict: "rejected", reason })
