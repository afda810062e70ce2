/**
 * A selector conversation keeps its first message (the list and the first query) byte for byte from request to
 * request, so the provider serves that prefix, and the history after it, from its cache. The list is the whole
 * memory, or for a memory too large for that its newest topics; the topics near a request's text beside those go in
 * that request's own message, and so does what changed in the list since it was given (a topic saved, changed or
 * gone), cumulative against the first list. The list is given anew (the first message rebuilt from the current
 * list, as a conversation with no memory of what was sent does) when the way it is shown changed (whole or newest),
 * the history is not the one that was sent (a branch moved, a compaction reset it), or the changes outgrow
 * SELECTOR_CHANGES_MAX_SHARE of the list or the catalog budget with the near topics. Pure.
 */
import { catalogLine, catalogOf, type CatalogTopic } from "../memory/catalog.ts"
import { SELECTOR_CATALOG_MAX_CHARS, SELECTOR_CHANGES_MAX_SHARE } from "../limits.ts"
import { answerText, catalogMessage, queryMessage, type SelectorMessage, selectorMessages, type SelectorTurn } from "./selectorPrompt.ts"

/** What one selector conversation was sent: its first list, and each user message's text, with the query it holds. */
export interface SentCatalog {
  /** The memory was shown whole in the first list (else its newest topics). */
  readonly whole: boolean
  /** The first list's line of each topic, by file name, in the list's order. */
  readonly baseLines: ReadonlyMap<string, string>
  readonly queries: ReadonlyArray<string>
  readonly texts: ReadonlyArray<string>
}

export const CHANGES_HEADING = "Changed since the list above (a line here replaces that file's earlier line):"

export const NEAR_HEADING = "Also in memory, near this message:"

/** The lines of the topics near a request: "" when none. */
export const nearBlock = (near: ReadonlyArray<CatalogTopic>): string =>
  near.length === 0 ? "" : `${NEAR_HEADING}\n${catalogOf(near)}`

/**
 * The changes of `topics` against the first list: "" when none, undefined when they are too large to send (beside
 * `alongside` characters of near topics in the same message).
 */
export const catalogChanges = (sent: SentCatalog, topics: ReadonlyArray<CatalogTopic>, alongside = 0): string | undefined => {
  const lines = topics.filter((t) => sent.baseLines.get(t.filename) !== catalogLine(t)).map(catalogLine)
  const names = new Set(topics.map((t) => t.filename))
  const gone = [...sent.baseLines.keys()].filter((f) => !names.has(f))
  if (lines.length === 0 && gone.length === 0) return ""
  // The list's characters: its lines and the line breaks between them.
  const baseLength = [...sent.baseLines.values()].reduce((n, line) => n + line.length + 1, -1)
  const note = [CHANGES_HEADING, ...lines, ...(gone.length === 0 ? [] : [`No longer listed: ${gone.join(", ")}`])].join("\n")
  const fits = note.length <= baseLength * SELECTOR_CHANGES_MAX_SHARE && baseLength + note.length + alongside <= SELECTOR_CATALOG_MAX_CHARS
  return fits ? note : undefined
}

/** The request's messages, and what the conversation has been sent once it goes out. */
export const stableSelectorMessages = (
  sent: SentCatalog | undefined,
  shown: { readonly listed: ReadonlyArray<CatalogTopic>; readonly near: ReadonlyArray<CatalogTopic> },
  whole: boolean,
  history: ReadonlyArray<SelectorTurn>,
  query: string
): { readonly messages: ReadonlyArray<SelectorMessage>; readonly sent: SentCatalog } => {
  const queries = [...history.map((t) => t.query), query]
  const near = nearBlock(shown.near)
  const withQuery = (...before: ReadonlyArray<string>) => [...before.filter((p) => p !== ""), queryMessage(query)].join("\n\n")
  const continues = sent !== undefined && sent.whole === whole && history.length > 0 && sent.texts.length >= history.length &&
    history.every((t, i) => sent.queries[i] === t.query)
  const note = continues ? catalogChanges(sent, shown.listed, near.length) : undefined
  if (continues && note !== undefined) {
    const texts = [...sent.texts.slice(0, history.length), withQuery(note, near)]
    const messages: Array<SelectorMessage> = []
    history.forEach((turn, i) => {
      messages.push({ role: "user", text: texts[i]! })
      messages.push({ role: "assistant", text: answerText(turn.selected) })
    })
    messages.push({ role: "user", text: texts.at(-1)! })
    return { messages, sent: { ...sent, queries, texts } }
  }
  const base = catalogOf(shown.listed)
  const plain = selectorMessages(base, history, query)
  // The near topics go with the new query, after the list when it is the first message.
  const messages = near === ""
    ? plain
    : [...plain.slice(0, -1), { role: "user" as const, text: history.length === 0 ? `${catalogMessage(base)}\n\n${withQuery(near)}` : withQuery(near) }]
  return {
    messages,
    sent: {
      whole,
      baseLines: new Map(shown.listed.map((t) => [t.filename, catalogLine(t)])),
      queries,
      texts: messages.filter((m) => m.role === "user").map((m) => m.text)
    }
  }
}
