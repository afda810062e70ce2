/**
 * The selector's view of one topic: `- [type] filename (day of last change, ISO): description`, the description on one line and
 * cut to CATALOG_DESCRIPTION_MAX_CHARS. Pure.
 */
import type { MemoryType } from "./frontmatter.ts"
import { CATALOG_DESCRIPTION_MAX_CHARS } from "../limits.ts"
import { sanitizeMemoryText } from "../safety/sanitize.ts"

export interface CatalogTopic {
  readonly filename: string
  readonly type: MemoryType | undefined
  readonly description: string | undefined
  readonly mtimeMs: number
}

/** The day of the last change (UTC, ISO 8601): a day is as much as a choice needs, and each line costs tokens. */
const isoTime = (ms: number): string => (Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString().slice(0, 10) : "unknown time")

/**
 * A description on one line, at most CATALOG_DESCRIPTION_MAX_CHARS long: a longer one keeps its start and ends with
 * "…" (never half of a surrogate pair).
 */
export const catalogDescription = (description: string): string => {
  const line = sanitizeMemoryText(description).replace(/\s+/g, " ").trim()
  if (line.length <= CATALOG_DESCRIPTION_MAX_CHARS) return line
  let end = CATALOG_DESCRIPTION_MAX_CHARS - 1
  const last = line.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${line.slice(0, end).trimEnd()}…`
}

/**
 * The filename stays as it is (the model must copy it back exactly); the description is memory text like any other,
 * so it is sanitized before it reaches the selector model.
 */
const lineOf = (t: CatalogTopic): string =>
  `- ${t.type === undefined ? "" : `[${t.type}] `}${t.filename} (${isoTime(t.mtimeMs)}): ${catalogDescription(t.description ?? "")}`

/**
 * Lines already built, by topic. A scan hands out an unchanged topic as the same (immutable) object on every request,
 * so each line is built once, not once per request.
 */
const builtLines = new WeakMap<CatalogTopic, string>()

export const catalogLine = (t: CatalogTopic): string => {
  let line = builtLines.get(t)
  if (line === undefined) {
    line = lineOf(t)
    builtLines.set(t, line)
  }
  return line
}

export const catalogOf = (topics: ReadonlyArray<CatalogTopic>): string => topics.map(catalogLine).join("\n")
