/**
 * The extractor's cursor machine (pure). The cursor is the id of the last session entry an extraction has already
 * covered. On each dispatch the entries after it decide: skip and advance (nothing new, the main agent already wrote
 * memory, or no user message of at least three words), or run over the messages after it and advance to the end of
 * this snapshot when the task returns.
 */
import { noticeCount } from "./notices.ts"

/** The part of a Pi session entry the machine looks at. */
export interface BranchEntry {
  readonly type: string
  readonly id: string
  readonly customType?: string
  readonly message?: {
    readonly role: string
    readonly content?: unknown
    readonly toolCallId?: string
    readonly isError?: boolean
  }
}

export type SkipReason = "nothing-new" | "main-agent-wrote" | "too-few-words" | "outside-content"

export type CursorDecision =
  | { readonly _tag: "Skip"; readonly reason: SkipReason; readonly advanceTo: string | undefined }
  | {
    readonly _tag: "Run"
    /** The model-visible entries after the cursor (messages and custom messages), in order. */
    readonly entries: ReadonlyArray<BranchEntry>
    /** The last entry of the snapshot: where the cursor goes when the task returns. */
    readonly advanceTo: string
    /** How many messages the model sees after the cursor: these entries and the change notices among them. */
    readonly messageCount: number
  }

/** Words of a string: split on runs of whitespace, empty pieces dropped (no merging across blocks or messages). */
export const wordCount = (text: string): number => text.split(/\s+/).filter((w) => w !== "").length

export const MIN_USER_WORDS = 3

/** A real user message counts when its content is a string, or exactly one text block, of at least 3 words. */
export const isSubstantialUserMessage = (message: BranchEntry["message"]): boolean => {
  if (message === undefined || message.role !== "user") return false
  const content = message.content
  if (typeof content === "string") return wordCount(content) >= MIN_USER_WORDS
  if (Array.isArray(content) && content.length === 1) {
    const block = content[0] as { type?: unknown; text?: unknown }
    return block.type === "text" && typeof block.text === "string" && wordCount(block.text) >= MIN_USER_WORDS
  }
  return false
}

/** A message the model reads: Pi's own system entries (the prompt and its patches, often empty) are not. */
export const isModelVisible = (e: BranchEntry): boolean =>
  (e.type === "message" && e.message?.role !== "system") || e.type === "custom_message"

/** The entries after the cursor; when the cursor is not on this branch, everything after the last compaction. */
export const entriesAfter = (branch: ReadonlyArray<BranchEntry>, cursor: string | undefined): ReadonlyArray<BranchEntry> => {
  const at = cursor === undefined ? -1 : branch.findIndex((e) => e.id === cursor)
  if (at >= 0) return branch.slice(at + 1)
  const compaction = branch.findLastIndex((e) => e.type === "compaction")
  return branch.slice(compaction + 1)
}

interface ToolCallBlock {
  readonly type: "toolCall"
  readonly id: string
  readonly name: string
  readonly arguments?: Record<string, unknown>
}

/**
 * A successful main-agent `write` or `edit` whose path lands in memory. Failed calls (an error result, or no result
 * at all) and writes elsewhere do not count.
 */
export const mainAgentWroteMemory = (
  entries: ReadonlyArray<BranchEntry>,
  isMemoryPath: (rawPath: string) => boolean
): boolean => {
  const calls = new Set<string>()
  for (const e of entries) {
    const m = e.message
    if (e.type !== "message" || m === undefined) continue
    if (m.role === "assistant" && Array.isArray(m.content)) {
      for (const block of m.content as ReadonlyArray<ToolCallBlock>) {
        if (block.type !== "toolCall" || (block.name !== "write" && block.name !== "edit")) continue
        const path = block.arguments?.["path"]
        if (typeof path === "string" && isMemoryPath(path)) calls.add(block.id)
      }
    } else if (m.role === "toolResult" && m.toolCallId !== undefined && calls.has(m.toolCallId) && m.isError !== true) {
      return true
    }
  }
  return false
}

/**
 * Whether the entries hold a tool result other than a write or edit: the turns brought outside content in (a file
 * read, a command's output, a page fetched). What config.json's `extractor.skipExternalContext` skips.
 */
export const broughtOutsideContent = (entries: ReadonlyArray<BranchEntry>): boolean => {
  const writes = new Set<string>()
  for (const e of entries) {
    const m = e.message
    if (e.type !== "message" || m === undefined) continue
    if (m.role === "assistant" && Array.isArray(m.content)) {
      for (const block of m.content as ReadonlyArray<ToolCallBlock>) {
        if (block.type === "toolCall" && (block.name === "write" || block.name === "edit")) writes.add(block.id)
      }
    } else if (m.role === "toolResult" && !(m.toolCallId !== undefined && writes.has(m.toolCallId))) {
      return true
    }
  }
  return false
}

export const decideExtraction = (
  branch: ReadonlyArray<BranchEntry>,
  cursor: string | undefined,
  isMemoryPath: (rawPath: string) => boolean,
  options: { readonly skipExternalContext?: boolean } = {}
): CursorDecision => {
  const after = entriesAfter(branch, cursor)
  const advanceTo = branch.at(-1)?.id ?? cursor
  const visible = after.filter(isModelVisible)
  // Nothing the model could see: stay put rather than step over our own bookkeeping entries.
  if (visible.length === 0) return { _tag: "Skip", reason: "nothing-new", advanceTo: cursor }
  if (mainAgentWroteMemory(after, isMemoryPath)) return { _tag: "Skip", reason: "main-agent-wrote", advanceTo }
  if (options.skipExternalContext === true && broughtOutsideContent(after)) return { _tag: "Skip", reason: "outside-content", advanceTo }
  if (!visible.some((e) => e.type === "message" && isSubstantialUserMessage(e.message))) {
    return { _tag: "Skip", reason: "too-few-words", advanceTo }
  }
  return { _tag: "Run", entries: visible, advanceTo: advanceTo!, messageCount: visible.length + noticeCount(after) }
}

/** Custom entry holding the cursor, appended on each advance; the last one on the branch wins. */
export const CURSOR_ENTRY = "pm-extract-cursor"

export interface CursorEntryData {
  readonly cursor: string
}

export const cursorFromBranch = (branch: ReadonlyArray<BranchEntry & { readonly data?: unknown }>): string | undefined => {
  for (let i = branch.length - 1; i >= 0; i--) {
    const e = branch[i]!
    if (e.type === "custom" && e.customType === CURSOR_ENTRY) {
      const data = e.data as Partial<CursorEntryData> | undefined
      if (typeof data?.cursor === "string") return data.cursor
    }
  }
  return undefined
}

/** A session entry with its place in the tree (Pi's `parentId`). */
export interface TreeEntry extends BranchEntry {
  readonly parentId?: string | null
  readonly data?: unknown
}

/**
 * The cursor as it applies to `branch`: the deepest entry of the branch that an extraction has covered, on this
 * branch or on any other. An extraction covers the entry its cursor names and every ancestor of it, so after `/tree`
 * the shared part of two branches counts as done once, and what only the new branch holds is still to do. `entries`
 * is the whole session (every branch); `known` adds cursors not yet on record (the one held in memory).
 */
export const cursorOnBranch = (
  branch: ReadonlyArray<TreeEntry>,
  entries: ReadonlyArray<TreeEntry>,
  known: ReadonlyArray<string | undefined> = []
): string | undefined => {
  const parent = new Map<string, string | null | undefined>()
  for (const e of entries) parent.set(e.id, e.parentId)
  for (const e of branch) if (!parent.has(e.id)) parent.set(e.id, e.parentId)
  const targets = new Set<string>()
  for (const list of [entries, branch]) {
    for (const e of list) {
      if (e.type !== "custom" || e.customType !== CURSOR_ENTRY) continue
      const data = e.data as Partial<CursorEntryData> | undefined
      if (typeof data?.cursor === "string") targets.add(data.cursor)
    }
  }
  for (const k of known) if (k !== undefined) targets.add(k)
  const covered = new Set<string>()
  for (const target of targets) {
    let id: string | null | undefined = target
    while (id !== undefined && id !== null && !covered.has(id) && parent.has(id)) {
      covered.add(id)
      id = parent.get(id)
    }
  }
  for (let i = branch.length - 1; i >= 0; i--) if (covered.has(branch[i]!.id)) return branch[i]!.id
  return undefined
}
