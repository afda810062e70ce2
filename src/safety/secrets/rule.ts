/**
 * The shape of one detector rule: a global, linear-time pattern, the kind it reports, what must hold for a match to
 * count, and the cheap prefilters (triggers, lines) that let the scan skip it. Also the few helpers every family of
 * rules uses to look around a match. Holds no rule itself.
 */
import type { SecretKind } from "./kinds.ts"
import { isPlaceholder } from "./values.ts"

export interface Rule {
  readonly kind: SecretKind | ((m: RegExpExecArray) => SecretKind)
  readonly pattern: RegExp
  /** Generic rules yield to a specific finding they overlap (GITHUB_TOKEN=ghp_... is one GitHub token). */
  readonly generic?: boolean
  readonly accept?: (m: RegExpExecArray, text: string) => boolean
  /** The rule runs only when the text holds one of these (a cheap scan that skips most rules on most texts). */
  readonly triggers?: ReadonlyArray<string>
  /**
   * Every match holds one of `triggers` starting this many characters after the match starts (from, to inclusive),
   * so the scan tries the pattern only there (matches.ts). For patterns that open with a character class.
   */
  readonly triggerAt?: readonly [number, number]
  /** The same, looked up in the lowercased text. */
  readonly lowerTriggers?: ReadonlyArray<string>
  /** The rule runs only on the lines that hold a match of this global pattern (a secret-naming word, `://`). */
  readonly lines?: RegExp
  /**
   * The rule may match, or decide on what it reads, past the end of the line its match starts on (key material
   * after a header, a netrc entry over several lines). Over a normalised view such a rule reads the wide window
   * after a change; every other rule reads to the end of the change's line (scan.ts).
   */
  readonly spansLines?: boolean
  /** Where the finding ends, when not at the end of the match (a setting ends with its value's first word). */
  readonly end?: (m: RegExpExecArray) => number
}

/** A few hundred characters after `at`, for rules that look at what follows a header. */
export const following = (text: string, at: number, length: number): string => text.slice(at, at + length)
export const preceding = (text: string, at: number, length: number): string => text.slice(Math.max(0, at - length), at)

export const tokenAccepted = (m: RegExpExecArray): boolean => !isPlaceholder(m[0])
