/**
 * The conversation a background task was given, as the labelled evidence its writes are judged against
 * (src/writes/provenance.ts): each user message's text, each assistant message's text, and each tool result's text
 * with the tool and what it read, named from the call that asked for it (`read README.md`, `bash: cat notes.txt`,
 * `web_fetch https://…`). Reasoning, images and messages of other extensions are no evidence. Pure.
 */
import type { Evidence } from "../writes/provenance.ts"

export interface EvidenceMessage {
  readonly role: string
  readonly content?: unknown
  readonly toolCallId?: string
  readonly toolName?: string
}

const LABEL_MAX = 100

const short = (s: string): string => {
  const one = s.replace(/\s+/g, " ").trim()
  return one.length <= LABEL_MAX ? one : `${one.slice(0, LABEL_MAX - 1)}…`
}

/** A tool call named for a person: the tool and the path, command, address or pattern it was given. */
export const toolLabel = (tool: string, args: Readonly<Record<string, unknown>>): string => {
  const pick = (...keys: ReadonlyArray<string>) => keys.map((k) => args[k]).find((v): v is string => typeof v === "string" && v !== "")
  if (tool === "bash") {
    const command = pick("command")
    return command === undefined ? "bash" : `bash: ${short(command)}`
  }
  const what = pick("path", "file_path", "url", "uri", "query", "pattern")
  return what === undefined ? short(tool) : short(`${tool} ${what}`)
}

const textParts = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((p: unknown) => {
      const part = p as { type?: unknown; text?: unknown }
      return part !== null && typeof part === "object" && part.type === "text" && typeof part.text === "string" ? part.text : ""
    }).filter((t) => t !== "").join("\n")
    : ""

/**
 * The evidence of `messages`, in order. A `read` of a memory file (`isMemoryPath` of its path) is memory already, not
 * outside text: its result is left out.
 */
export const evidenceOf = (messages: ReadonlyArray<EvidenceMessage>, isMemoryPath: (rawPath: string) => boolean = () => false): Array<Evidence> => {
  const calls = new Map<string, string>()
  const memoryReads = new Set<string>()
  const out: Array<Evidence> = []
  for (const m of messages) {
    if (m.role === "assistant" && Array.isArray(m.content)) {
      for (const p of m.content as ReadonlyArray<{ type?: unknown; id?: unknown; name?: unknown; arguments?: unknown }>) {
        if (p?.type === "toolCall" && typeof p.id === "string" && typeof p.name === "string") {
          const args = (typeof p.arguments === "object" && p.arguments !== null ? p.arguments : {}) as Record<string, unknown>
          calls.set(p.id, toolLabel(p.name, args))
          if (p.name === "read" && typeof args["path"] === "string" && isMemoryPath(args["path"])) memoryReads.add(p.id)
        }
      }
    }
    const text = textParts(m.content)
    if (text === "") continue
    if (m.role === "user") {
      // What the extension itself added to a user's message (recalled memory, notices) is not the user's words.
      const own = text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, "").trim()
      if (own !== "") out.push({ kind: "user", label: "user", text: own })
    }
    else if (m.role === "assistant") out.push({ kind: "assistant", label: "assistant", text })
    else if (m.role === "toolResult" && !(m.toolCallId !== undefined && memoryReads.has(m.toolCallId))) {
      const label = (m.toolCallId === undefined ? undefined : calls.get(m.toolCallId)) ?? m.toolName ?? "a tool"
      out.push({ kind: "tool", label, text })
    }
  }
  return out
}

/** Whether `messages` hold a tool result: the turn brought outside content (a file, a command's output, a page) in. */
export const bringsOutsideContent = (messages: ReadonlyArray<EvidenceMessage>): boolean => messages.some((m) => m.role === "toolResult")
