/**
 * The text of a conversation the extractor's catalog is ranked against: what the user and the assistant wrote (text
 * parts only: no tool results, no reasoning), in order, its last RANK_CONVERSATION_MAX_CHARS characters. Pure.
 */
import { RANK_CONVERSATION_MAX_CHARS } from "../limits.ts"

export interface ConversationMessage {
  readonly role: string
  readonly content?: unknown
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((part: unknown) =>
      typeof part === "object" && part !== null && (part as { type?: unknown }).type === "text" && typeof (part as { text?: unknown }).text === "string"
        ? (part as { text: string }).text
        : ""
    ).filter((t) => t !== "").join("\n")
    : ""

export const conversationText = (messages: ReadonlyArray<ConversationMessage>): string => {
  const text = messages.filter((m) => m.role === "user" || m.role === "assistant").map((m) => textOf(m.content)).filter((t) => t !== "").join("\n")
  return text.length <= RANK_CONVERSATION_MAX_CHARS ? text : text.slice(text.length - RANK_CONVERSATION_MAX_CHARS)
}
