/**
 * What memory adds to the next request (`/memory context`, `pm context`): the system-prompt sections as Pi wraps them
 * and the last recall, each with its size in characters and in tokens as every budget here estimates them
 * (characters / 4, rounded up). Pure formatting.
 */
import { emptyMemoryRulesPrompt, memoryRulesPrompt } from "./memoryRules.ts"
import { tokensOfChars } from "../model/requestFit.ts"
import { sanitizeMemoryText } from "../safety/sanitize.ts"
import { grouped } from "../memory/counts.ts"

/**
 * The two system-prompt sections from the memory directory and the index as read: the rules, and the index
 * sanitized (DECISIONS D5; the directory's path too, which reaches the model like memory text). One function for the
 * session's snapshot and `pm context`, so what is shown is what is sent. An empty index (nothing saved yet) gives no
 * index section ("") and the rules without their part on using memories: what the agent needs to save its first.
 */
export const memorySections = (memoryDir: string, indexText: string): { readonly rules: string; readonly indexSection: string } => {
  const clean = sanitizeMemoryText(indexText).trim()
  const dir = sanitizeMemoryText(memoryDir)
  return clean === "" ? { rules: emptyMemoryRulesPrompt(dir), indexSection: "" } : { rules: memoryRulesPrompt(dir), indexSection: clean }
}

/** The system-prompt parts of `memorySections` as Pi writes them; an empty section is left out, as Pi leaves it. */
export const systemParts = (sections: { readonly rules: string; readonly indexSection: string }): Array<ContextPart> => [
  { name: "auto_memory", where: "system prompt", text: wrapSection("auto_memory", sections.rules) },
  ...(sections.indexSection === "" ? [] : [{ name: "auto_memory_index", where: "system prompt" as const, text: wrapSection("auto_memory_index", sections.indexSection) }])
]

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

const n = (x: number): string => grouped(x)

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
