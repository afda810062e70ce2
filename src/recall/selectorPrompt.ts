/**
 * The selector's request: our own prompt (DECISIONS D6), the catalog, the branch's query/answer history and the
 * forced `select_memories` tool. Pure: it builds plain data that the ModelRegistry sends.
 */
import { SELECTOR_MAX_FILES } from "../limits.ts"

export const SELECTOR_TOOL_NAME = "select_memories"

/** The exact output schema (alignment §4). */
export const SELECTOR_SCHEMA = {
  type: "object",
  properties: { selected_memories: { type: "array", items: { type: "string" } } },
  required: ["selected_memories"],
  additionalProperties: false
} as const

export const SELECTOR_SYSTEM_PROMPT = `You pick which saved memories a coding agent should see before it answers the user's next message.

Memories come one per line as "- [type] filename (last modified): description", then the user's message; a later message may first add lines (memories changed since the list, or more near that message). Return the filenames of those that will clearly help with that message: at most ${SELECTOR_MAX_FILES}, fewer rather than pad the list, none when nothing fits.
- Judge each memory by its description alone, against what the user asks right now; a vague topical overlap is not enough.
- Reference material about a tool is not useful merely because the user works with that tool; its warnings, known problems or gotchas about what they are doing are.
- Earlier requests and your answers are shown for context: do not pick a memory again unless the new message needs it for a new reason.
- Copy filenames exactly as listed, without the [type] label.

Answer with a JSON object of the form {"selected_memories": ["file.md", ...]}.
Call the ${SELECTOR_TOOL_NAME} tool exactly once with the JSON object you would otherwise return.`

export const SELECTOR_TOOL_DESCRIPTION =
  "Report the filenames of the memories that are relevant to the user's current message (at most 5; an empty list when none are)."

export interface SelectorTurn {
  readonly query: string
  readonly selected: ReadonlyArray<string>
}

/** The first user message: the catalog. Kept apart from queries so its bytes change only when the catalog does. */
export const catalogMessage = (catalog: string): string =>
  catalog === "" ? "Available memories: none." : `Available memories:\n${catalog}`

export const queryMessage = (query: string): string => `User message:\n${query}`

export const answerText = (selected: ReadonlyArray<string>): string => JSON.stringify({ selected_memories: selected })

export interface SelectorMessage {
  readonly role: "user" | "assistant"
  readonly text: string
}

/**
 * Catalog, then each earlier query with the answer given, then the new query. Earlier answers are plain text
 * (not tool calls) so the transcript is valid for every provider without synthetic tool results.
 */
export const selectorMessages = (
  catalog: string,
  history: ReadonlyArray<SelectorTurn>,
  query: string
): ReadonlyArray<SelectorMessage> => {
  const messages: Array<SelectorMessage> = []
  history.forEach((turn, i) => {
    messages.push({ role: "user", text: i === 0 ? `${catalogMessage(catalog)}\n\n${queryMessage(turn.query)}` : queryMessage(turn.query) })
    messages.push({ role: "assistant", text: answerText(turn.selected) })
  })
  messages.push({ role: "user", text: history.length === 0 ? `${catalogMessage(catalog)}\n\n${queryMessage(query)}` : queryMessage(query) })
  return messages
}
