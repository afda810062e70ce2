/**
 * The reading commands run most often (`scan`, `status`, `list`, `search`) in their plain forms, run without the
 * command-line library: @effect/cli is not even loaded, which is most of what such a command costs beyond its work.
 *
 * A plain form is the subcommand first, then its own options, each at most once, as `--name value` (or `--json`
 * alone), and for `search` its words. Whatever else a command line holds is left to the full command line
 * (cli/general.ts), whose answer and messages are then @effect/cli's as always: help and the other built-in options,
 * `--name=value`, an option given twice or in other letter case, an option of another subcommand, a value or word
 * that starts with a dash, `--`, a word after `--json` that could be its value (`true`, `no`, ...), an unexpected
 * word, a path that is not an existing directory where the option wants one, a count not written as plain digits.
 * What runs is what @effect/cli would run for the same line: the subcommand's handler, with the browse service for
 * `list` and `search`, over the core (layers/app/Core.ts).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { statSync } from "node:fs"
import type { Core } from "../layers/app/Core.ts"
import { noteCommitted } from "./committedPlaces.ts"

/** What an option's value must be: an existing directory (checked as @effect/cli checks it), any text, a count. */
type ValueKind = "directory" | "text" | "count"

interface Form {
  readonly values: Readonly<Record<string, ValueKind>>
  /** Whether the subcommand takes words (then at least one). */
  readonly words: boolean
}

const FORMS: Readonly<Record<string, Form>> = {
  scan: { values: { "--cwd": "directory", "--memory-dir": "directory" }, words: false },
  status: { values: { "--cwd": "directory", "--memory-dir": "directory" }, words: false },
  list: { values: { "--cwd": "directory", "--memory-dir": "text", "--limit": "count", "--offset": "count" }, words: false },
  search: { values: { "--cwd": "directory", "--memory-dir": "text" }, words: true }
}

/** The words @effect/cli would take as the value of a boolean option that precedes them. */
const BOOLEAN_WORDS = new Set(["true", "1", "y", "yes", "on", "false", "0", "n", "no", "off"])
const COUNT = /^(?:0|[1-9][0-9]*)$/

const isDirectory = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true

/** The options and words of a plain form, or undefined when the line is not one. */
export const plainForm = (
  words: ReadonlyArray<string>
): { readonly command: string; readonly values: ReadonlyMap<string, string>; readonly json: boolean; readonly words: ReadonlyArray<string> } | undefined => {
  const [command, ...rest] = words
  if (command === undefined || !Object.hasOwn(FORMS, command)) return undefined
  const form = FORMS[command]!
  const values = new Map<string, string>()
  const free: Array<string> = []
  let json = false
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!
    if (word === "--json") {
      if (json) return undefined
      json = true
      const next = rest[i + 1]
      if (next !== undefined && BOOLEAN_WORDS.has(next.toLowerCase())) return undefined
      continue
    }
    const kind = form.values[word]
    if (kind !== undefined) {
      const value = rest[i + 1]
      if (values.has(word) || value === undefined || value === "" || value.startsWith("-")) return undefined
      if (kind === "directory" && !isDirectory(value)) return undefined
      if (kind === "count" && !(COUNT.test(value) && Number.isSafeInteger(Number(value)))) return undefined
      values.set(word, value)
      i++
      continue
    }
    if (word.startsWith("-") || !form.words) return undefined
    free.push(word)
  }
  if (form.words && free.length === 0) return undefined
  return { command, values, json, words: free }
}

const optional = (value: string | undefined): Option.Option<string> => (value === undefined ? Option.none() : Option.some(value))

/**
 * The run of a plain form, or undefined when `words` (the command line after `pm`) is not one. The run needs no
 * service: the core and the browse service are made inside it, as @effect/cli's run of the same line makes them.
 */
export const fastRun = (words: ReadonlyArray<string>): Effect.Effect<void, unknown> | undefined => {
  const plain = plainForm(words)
  if (plain === undefined) return undefined
  const common = { cwd: plain.values.get("--cwd") ?? ".", json: plain.json, memoryDir: optional(plain.values.get("--memory-dir")) }
  const handler = (): Effect.Effect<void, unknown, Core> => {
    switch (plain.command) {
      case "scan":
        return load(() => import("./inspect.ts"), (m) => m.scan(common))
      case "status":
        return load(() => import("./status.ts"), (m) => m.status(common))
      case "list":
        return browsing(load(() => import("./memoryCommands.ts"), (m) =>
          m.list({ ...common, limit: Number(plain.values.get("--limit") ?? 200), offset: Number(plain.values.get("--offset") ?? 0) })))
      default:
        return browsing(load(() => import("./memoryCommands.ts"), (m) =>
          m.search({ ...common, query: plain.words as [string, ...Array<string>] })))
    }
  }
  // The core around the handler, made in its fiber (as cli/App.ts's transform of the command tree does).
  return load(() => import("../layers/app/Core.ts"), (m) => m.withCore(handler(), {}, noteCommitted))
}

const load = <M, A, E, R>(module: () => Promise<M>, run: (m: M) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.promise(module), run)

/** The browse service (list, search), built over the core when the handler runs, as cli/App.ts provides it. */
const browsing = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provide(effect, Layer.unwrapEffect(Effect.map(Effect.promise(() => import("../layers/app/App.ts")), (m) => m.browseLayer)))
