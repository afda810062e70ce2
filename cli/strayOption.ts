/**
 * An option a subcommand does not take, where @effect/cli would not see one: the subcommands whose last argument
 * takes any number of words (remember's TEXT, search's WORDS, forget's NAMEs) take `--bogus` as one more word, so
 * `pm remember --memory-dir DIR text` would save "--memory-dir DIR text" in the current project. A word before `--`
 * that starts with a dash and names none of the subcommand's options is refused instead; text that starts with a dash
 * goes after `--`.
 */
import * as Options from "@effect/cli/Options"
import * as Option from "effect/Option"
import { forgetOptions, rememberOptions, searchOptions } from "./commandOptions.ts"

/** The subcommands whose words are free text, with their declared options. */
const FREE_WORDS: Readonly<Record<string, Record<string, unknown>>> = { remember: rememberOptions, search: searchOptions, forget: forgetOptions }

/** What @effect/cli itself takes on every command (help, version, the wizard, shell completions, the log level). */
const BUILT_IN: ReadonlyArray<readonly [string, boolean]> = [
  ["--help", false], ["-h", false], ["--version", false], ["--wizard", false], ["--completions", true], ["--log-level", true]
]

/** Each declared option's name, and whether a value follows it. */
const declared = (options: Record<string, unknown>): ReadonlyMap<string, boolean> =>
  new Map([
    ...BUILT_IN,
    ...Object.values(options).flatMap((o) => {
      if (!Options.isOptions(o)) return []
      const name = Options.getIdentifier(o)
      return Option.isSome(name) ? [[name.value, !Options.isBool(o)] as const] : []
    })
  ])

/** The first stray option among the words after `subcommand` (its arguments and options), or undefined. */
export const strayOption = (subcommand: string, words: ReadonlyArray<string>): string | undefined => {
  const options = FREE_WORDS[subcommand]
  if (options === undefined) return undefined
  const known = declared(options)
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!
    if (word === "--") return undefined
    if (!/^-[^\d]/.test(word)) continue
    const name = word.split("=")[0]!
    const takesValue = known.get(name)
    if (takesValue === undefined) return name
    if (takesValue && !word.includes("=")) i++
  }
  return undefined
}

/** The usage error for a stray option. */
export const strayOptionMessage = (subcommand: string, option: string): string =>
  `Unknown option ${option} (pm ${subcommand} --help lists its options; a word that starts with a dash goes after --)`
