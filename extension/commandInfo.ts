/**
 * What `/memory` is, before any of its code is loaded: the description the entry registers, and the subcommands with
 * what each does (the completion's popup and `/memory help` show the same lines), and the same commands' words for a
 * person at a shell.
 */
export const MEMORY_COMMAND_DESCRIPTION =
  "Project memory: status | on | off | open | extract | dream | undo | list | show | search | forget | recalled | remember | review | context | help"

export interface Subcommand {
  readonly value: string
  readonly label: string
  readonly description: string
}

export const SUBCOMMANDS: ReadonlyArray<Subcommand> = [
  { value: "status", label: "status", description: "Memory directory, topics, recall budget, model usage" },
  { value: "on", label: "on", description: "Turn memory on (all projects); on extraction|dream|recall [--project]: one part, or this project only" },
  { value: "off", label: "off", description: "Turn memory off (all projects); off extraction|dream|recall [--project]: one part, or this project only" },
  { value: "remember", label: "remember", description: "Save a memory now: /memory remember [--allow-risky] [--type user|feedback|project|reference] TEXT" },
  { value: "review", label: "review", description: "Background writes held for review (their words came from outside text): review, review approve ID, review drop ID" },
  { value: "context", label: "context", description: "What memory adds to the next request, with its size in characters and tokens" },
  { value: "open", label: "open", description: "Show the memory directory's path" },
  { value: "extract", label: "extract", description: "Extract memories from this conversation now" },
  { value: "dream", label: "dream", description: "Consolidate the memory directory now, whatever the schedule says" },
  { value: "undo", label: "undo", description: "Undo the newest change to memory (or: undo TASK; pm log lists them)" },
  { value: "list", label: "list", description: "Topics with type, age, description and index link" },
  { value: "show", label: "show", description: "Print one topic: /memory show NAME" },
  { value: "search", label: "search", description: "Search topics: /memory search WORDS" },
  { value: "forget", label: "forget", description: "Delete topics and their index lines: /memory forget NAME..." },
  { value: "recalled", label: "recalled", description: "What recall injected on this branch, and the budget left" },
  { value: "help", label: "help", description: "These subcommands and what each does" }
]

/** `/memory help`: one subcommand a line, its description beside it. */
export const memoryHelp = (): string => {
  const width = Math.max(...SUBCOMMANDS.map((c) => c.value.length))
  return [
    "/memory SUBCOMMAND (without one: status). In a shell, pm does the same (pm help lists its subcommands).",
    ...SUBCOMMANDS.map((c) => `  ${c.value.padEnd(width)}  ${c.description}`)
  ].join("\n")
}

/** The `/memory` commands `pm` has under the same name. */
const IN_PM = ["undo", "status", "list", "show", "search", "forget", "remember", "review", "context", "on", "off"]

/**
 * `text` for a person at a shell (print mode, `pi -p`): a `/memory` command that `pm` has too is named as `pm`'s
 * ("/memory undo takes it back" becomes "pm undo takes it back").
 */
export const inShellWords = (text: string): string =>
  text.replace(new RegExp(`/memory (${IN_PM.join("|")})\\b`, "g"), "pm $1")

