/**
 * What memory adds to the next request (`/memory context`, `pm context`): the system-prompt sections as Pi wraps them
 * and the last recall, each with its size in characters and in tokens as every budget here estimates them
 * (characters / 4, rounded up). Pure formatting.
 */
import { EMPTY_INDEX_TEXT, memoryRulesPrompt } from "./memoryRules.ts"
import { tokensOfChars } from "../model/requestFit.ts"
import { sanitizeMemoryText } from "../safety/sanitize.ts"

/**
 * The two system-prompt sections from the memory directory and the index as read: the rules, and the index
 * sanitized (DECISIONS D5; the directory's path too, which reaches the model like memory text). One function for the
 * session's snapshot and `pm context`, so what is shown is what is sent.
 */
export const memorySections = (memoryDir: string, indexText: string): { readonly rules: string; readonly indexSection: string } => {
  const clean = sanitizeMemoryText(indexText).trim()
  return { rules: memoryRulesPrompt(sanitizeMemoryText(memoryDir)), indexSection: clean === "" ? EMPTY_INDEX_TEXT : clean }
}

export interface ContextPart {
  /** `auto_memory`, `auto_memory_index`, `auto_memory_date`, `auto_memory_notice`, or "recall" for the last recall's message. */
  readonly name: string
  /** Where it goes: a system-prompt section, or a hidden message beside the user's. */
  readonly where: "system prompt" | "message"
  /** Exactly what is sent. */
  readonly text: string
  /** A line about it (what message the recall answered), shown above the text. */
  readonly note?: string
}

/** A section as Pi writes it into the system prompt. */
export const wrapSection = (name: string, content: string): string => `<${name}>\n${content}\n</${name}>`

const n = (x: number): string => x.toLocaleString("en-US")

export const sizeOf = (text: string): { readonly chars: number; readonly tokens: number } => ({ chars: text.length, tokens: tokensOfChars(text.length) })

export interface ContextSummary {
  readonly parts: ReadonlyArray<ContextPart & { readonly chars: number; readonly tokens: number }>
  readonly chars: number
  readonly tokens: number
}

export const summarizeContext = (parts: ReadonlyArray<ContextPart>): ContextSummary => {
  const sized = parts.map((p) => ({ ...p, ...sizeOf(p.text) }))
  const chars = sized.reduce((t, p) => t + p.chars, 0)
  return { parts: sized, chars, tokens: tokensOfChars(chars) }
}

/** The report: a size line per part, the text under it (unless `brief`), and the total; `notes` follow the total. */
export const formatContext = (summary: ContextSummary, notes: ReadonlyArray<string>, brief = false): string => {
  const lines: Array<string> = []
  for (const p of summary.parts) {
    lines.push(`${p.name} (${p.where}): ${n(p.chars)} characters, about ${n(p.tokens)} tokens${p.note === undefined ? "" : ` — ${p.note}`}`)
    if (!brief) lines.push(p.text, "")
  }
  lines.push(`Total: ${n(summary.chars)} characters, about ${n(summary.tokens)} tokens (estimated at 4 characters per token).`)
  return [...lines, ...notes].join("\n")
}
