/**
 * What a rule of the allowlist is, and the few ways rules are built: from an option spec (with an optional check of
 * the parsed words), and with xargs forbidden. A rule says two things: whether the fixed words are read-only, and how
 * `xargs` may feed the command more words (never; at any position; or only where it no longer reads options, which
 * the rule locates). The rules themselves are in commands.ts and the family files it imports.
 */
import { isRejected, scanOptions, type OptionSpec, type ParsedArgs } from "./options.ts"
import type { Word } from "./words.ts"

/** How xargs may add words: "any" position, only after the returned index (options closed there; -1 = never closed),
 *  or never. */
export type XargsPolicy = "any" | number | { readonly never: string }

export interface CommandRule {
  readonly check: (cmd: string, args: ReadonlyArray<Word>) => string | undefined
  readonly xargs: (args: ReadonlyArray<Word>) => XargsPolicy
}

/** xargs may add words only after the `--` that surely ends the options (-1: never closed). */
export const closedAtBy =
  (spec: OptionSpec) =>
  (args: ReadonlyArray<Word>): XargsPolicy => {
    const p = scanOptions("", args, spec)
    return isRejected(p) ? -1 : p.closedAt
  }

export const ANY = (): XargsPolicy => "any"

/** A rule from an option spec plus an optional check of the parsed words. */
export const specRule = (spec: OptionSpec, extra?: (cmd: string, parsed: ParsedArgs) => string | undefined): CommandRule => {
  const risky = spec.risky ?? (spec.badShort !== undefined || spec.badLong !== undefined)
  return {
    check: (cmd, args) => {
      const parsed = scanOptions(cmd, args, spec)
      if (isRejected(parsed)) return parsed.reject
      return extra?.(cmd, parsed)
    },
    xargs: risky ? closedAtBy(spec) : ANY
  }
}

/** A rule under which xargs may never add words, and why. */
export const never = (rule: Omit<CommandRule, "xargs">, why: string): CommandRule => ({ ...rule, xargs: () => ({ never: why }) })

/** A rule from an option spec alone. */
export const simple = (spec: OptionSpec = {}): CommandRule => specRule(spec)
