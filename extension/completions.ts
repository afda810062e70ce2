/**
 * `/memory`'s argument completions: the subcommands, the parts and `--project` after on|off, topic names after show
 * and forget (quoted when they hold a space).
 *
 * Pi's editor gives Enter to an open completion popup: Enter accepts the highlighted offer and does not run the
 * command. An offer equal to what is already typed would cost a second Enter for nothing (and text typed after it
 * joins the word: "list/memory"), so when the typed argument is already one of the offers, nothing is offered and
 * one Enter runs it.
 */
import { FEATURES } from "../src/project/config.ts"
import { SUBCOMMANDS } from "./commandInfo.ts"

export interface Completion {
  readonly value: string
  readonly label: string
  readonly description?: string
}

/** Subcommands whose argument is a topic name (completed from the memory directory). */
export const TAKES_NAME: ReadonlySet<string> = new Set(["show", "forget"])

const normal = (text: string): string => text.trim().replace(/\s+/g, " ")

/** The popup for `typed`: null when there is nothing to offer, or when one offer is exactly what is typed. */
export const offer = (items: Array<Completion>, typed: string): Array<Completion> | null =>
  items.length === 0 || items.some((i) => i.value === normal(typed)) ? null : items

/**
 * The completions for the argument text `prefix` (everything after "/memory "); `topicNames` lists the memory
 * directory's topics, undefined when memory is inactive.
 */
export const memoryCompletions = async (
  prefix: string,
  topicNames: () => Promise<ReadonlyArray<string> | undefined>
): Promise<Array<Completion> | null> => {
  const name = /^(\S+)\s+(.*)$/.exec(prefix.trimStart())
  if (name === null) return offer(SUBCOMMANDS.filter((c) => c.value.startsWith(prefix.trim())).map((c) => ({ ...c })), prefix)
  const [sub, rest] = [name[1]!, name[2]!]
  if (sub === "on" || sub === "off") {
    const typed = rest.split(/\s+/).at(-1) ?? ""
    const before = rest.slice(0, rest.length - typed.length)
    return offer([...FEATURES, "--project"].filter((w) => w.startsWith(typed)).map((w) => ({ value: `${sub} ${before}${w}`, label: w })), prefix)
  }
  if (!TAKES_NAME.has(sub)) return null
  const names = await topicNames()
  if (names === undefined) return null
  const typed = rest.replace(/^"/, "")
  const items = names.filter((n) => n.startsWith(typed)).map((n) => ({ value: `${sub} ${/\s/.test(n) ? `"${n}"` : n}`, label: n }))
  return offer(items, prefix)
}
