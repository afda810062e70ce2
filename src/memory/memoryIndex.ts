/** MEMORY.md: the window injected into the system prompt, and the backfilled index. Pure. */
import {
  BACKFILL_MAX_LINES,
  BACKFILL_MAX_UNITS,
  INDEX_LINE_MAX_CHARS,
  INDEX_MAX_LINES,
  INDEX_MAX_UNITS,
  INDEX_TRUNCATION_WARNING
} from "../limits.ts"
import { grouped } from "./counts.ts"

export interface IndexWindow {
  readonly text: string
  readonly lines: number
  readonly chars: number
  readonly truncated: boolean
}

/**
 * Keep whole lines while both limits hold; the first limit reached wins. `chars` counts UTF-16 units of the kept
 * text, line breaks between kept lines included. The warning is appended after the cut and is not counted.
 */
export const fitLines = (
  lines: ReadonlyArray<string>,
  maxLines: number,
  maxUnits: number
): { readonly kept: ReadonlyArray<string>; readonly truncated: boolean } => {
  const kept: Array<string> = []
  let units = 0
  for (const line of lines) {
    const cost = line.length + (kept.length > 0 ? 1 : 0)
    if (kept.length >= maxLines || units + cost > maxUnits) return { kept, truncated: true }
    kept.push(line)
    units += cost
  }
  return { kept, truncated: false }
}

export const trimIndex = (raw: string): IndexWindow => {
  const trimmed = raw.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").trim()
  if (trimmed === "") return { text: "", lines: 0, chars: 0, truncated: false }
  const { kept, truncated } = fitLines(trimmed.split("\n"), INDEX_MAX_LINES, INDEX_MAX_UNITS)
  const body = kept.join("\n")
  const text = truncated ? `${body}\n\n${INDEX_TRUNCATION_WARNING} (over ${INDEX_MAX_LINES} lines or ${INDEX_MAX_UNITS} characters); only the part above was loaded.` : body
  return { text, lines: kept.length, chars: body.length, truncated }
}

export interface IndexEntry {
  /** Path relative to the memory directory, with forward slashes. */
  readonly filename: string
  readonly title: string
  readonly description: string | undefined
}

/** Markdown link target: spaces and parentheses would break `[..](..)`, so they are percent-encoded. */
const linkTarget = (filename: string): string => filename.replace(/[ ()<>%]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`)

const oneLine = (s: string): string => s.replace(/\s+/g, " ").replace(/[[\]]/g, "").trim()

/** Never cut a surrogate pair: a lone half would be written to disk as U+FFFD. */
const cutTo = (s: string, max: number): string =>
  s.length <= max ? s : `${s.slice(0, max - 1).replace(/[\uD800-\uDBFF]$/, "").trimEnd()}…`

/** One index line: a single link with a short hook, kept under the 150-character lint limit where possible. */
export const indexLine = (entry: IndexEntry): string => {
  const target = linkTarget(entry.filename)
  // A long title is shortened first: the link must fit even when the hook has no room left.
  const titleRoom = INDEX_LINE_MAX_CHARS - `- []()`.length - target.length
  const title = cutTo(oneLine(entry.title) || entry.filename, Math.max(12, titleRoom))
  const head = `- [${title}](${target})`
  const hook = entry.description === undefined ? "" : oneLine(entry.description)
  if (hook === "") return head
  const room = INDEX_LINE_MAX_CHARS - head.length - 3
  if (room < 12) return head
  return `${head} - ${cutTo(hook, room)}`
}

/** A topic may be linked when its name is a safe relative path: no control characters and no `]`/newline. */
export const isLinkable = (filename: string): boolean =>
  filename.endsWith(".md") && !/[\u0000-\u001F\u007F\]\[]/.test(filename) && !filename.startsWith("/")

/** The backfilled index, within 80% of the window (160 lines, 20,000 units). Entries newest first. */
export const buildBackfillIndex = (entries: ReadonlyArray<IndexEntry>): string => {
  const lines = entries.filter((e) => isLinkable(e.filename)).map(indexLine)
  const { kept } = fitLines(lines, BACKFILL_MAX_LINES, BACKFILL_MAX_UNITS)
  return kept.length === 0 ? "" : `${kept.join("\n")}\n`
}

/**
 * Whether a session loads `line` of the index `text`: it is among the lines the window keeps (the first
 * INDEX_MAX_LINES lines or INDEX_MAX_UNITS units of the trimmed text). A line appended past the window is saved but
 * not in the system prompt; the caller says so.
 */
export const lineInWindow = (text: string, line: string): boolean => {
  const trimmed = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").trim()
  const { kept } = fitLines(trimmed.split("\n"), INDEX_MAX_LINES, INDEX_MAX_UNITS)
  return kept.includes(line)
}

/** What `remember` tells the person when its new index line lies past what a session loads. */
export const outsideWindowNote = (file: string): string =>
  `MEMORY.md is longer than a session loads (its first ${INDEX_MAX_LINES} lines or ${grouped(INDEX_MAX_UNITS)} characters), ` +
  `so the line for ${file} is past what a session reads at its start; recall still finds the topic by its words. ` +
  `Shorten MEMORY.md (edit it, or let the dream consolidate it) to bring the line inside.`
