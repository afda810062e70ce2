/**
 * The memory index a fork's model already holds: the `auto_memory_index` section in effect at the end of the parent's
 * prefix (its leading system message, then each later patch that replaces or removes the section), as the text
 * between the section's tags. Undefined when there is none. Pure.
 */
import type { Message } from "@earendil-works/pi-ai"

const SECTION = "auto_memory_index"
const TAGGED = new RegExp(`<${SECTION}>\\n([\\s\\S]*?)\\n</${SECTION}>`)

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((c) => (c !== null && typeof c === "object" && typeof (c as { text?: unknown }).text === "string" ? (c as { text: string }).text : "")).join("")
    : ""

export const indexInPrefix = (messages: ReadonlyArray<Message>): string | undefined => {
  let section: string | null | undefined
  for (const m of messages) {
    if (m.role !== "system") continue
    const named = m.sections?.[SECTION]
    if (named !== undefined) section = named
    // A leading prompt that carries the section in its text (no named sections) declares it there.
    else if (section === undefined && m.sections === undefined) {
      const inText = TAGGED.exec(textOf(m.content))
      if (inText !== null) section = `<${SECTION}>\n${inText[1]}\n</${SECTION}>`
    }
  }
  if (section === undefined || section === null) return undefined
  const tagged = TAGGED.exec(section)
  return tagged === null ? section : tagged[1]
}
