/**
 * What `pm list|show|search|forget` and `/memory list|show|search|forget` share: finding a topic by the name a person
 * types, which topics the index links, lexical search, and the index without a topic's line. Pure.
 */
import { indexLinkTargets } from "./lint.ts"

export interface NamedTopic {
  /** Path relative to the memory directory, `/`-separated. */
  readonly filename: string
  /** The frontmatter `name`, when there is one. */
  readonly name: string | undefined
}

/** Why a name given to `show` or `forget` does not denote a topic. */
export type NameProblem = "outside-memory" | "index" | "unknown"

export type NameResolution =
  | { readonly _tag: "Found"; readonly filename: string }
  | { readonly _tag: "Refused"; readonly name: string; readonly problem: NameProblem; readonly reason: string }

/** A link target as a file name: `./` dropped, percent-escapes (spaces, parentheses) decoded. */
export const decodeTarget = (target: string): string => {
  let decoded = target
  try {
    decoded = decodeURIComponent(target)
  } catch {
    // A lone `%` is a literal character of the name.
  }
  return decoded.replace(/^(?:\.\/)+/, "")
}

/** The files the index links, as file names relative to the memory directory. */
export const indexLinkedFiles = (index: string): ReadonlySet<string> => new Set(indexLinkTargets(index).map(decodeTarget))

/**
 * Topic files a new index links that the old one did not and that do not exist: an index line for a topic that was
 * never written (its write failed or was refused). Links elsewhere (URLs, anchors) are not topics.
 */
export const newDanglingLinks = (before: string, after: string, exists: (file: string) => boolean): ReadonlyArray<string> => {
  const old = indexLinkedFiles(before)
  return [...indexLinkedFiles(after)].filter((f) => !old.has(f) && f.endsWith(".md") && !f.includes("://") && !f.startsWith("/") && !exists(f))
}

/**
 * NAME is a file name with or without `.md`, or a frontmatter name (case-insensitive when nothing matches exactly).
 * A name that leaves the memory directory (absolute, `..`) is refused with a reason, as is the index itself.
 */
export const resolveTopicName = (raw: string, topics: ReadonlyArray<NamedTopic>): NameResolution => {
  const name = raw.trim().replace(/\\/g, "/")
  const refuse = (problem: NameProblem, reason: string): NameResolution => ({ _tag: "Refused", name: raw, problem, reason })
  if (name === "") return refuse("unknown", "an empty name is not a topic")
  if (name.startsWith("/") || /^[A-Za-z]:\//.test(name) || name.split("/").includes("..") || name.startsWith("~")) {
    return refuse("outside-memory", `${raw} is outside the memory directory; only topic files inside it can be named`)
  }
  const relative = name.replace(/^(?:\.\/)+/, "")
  if (relative === "MEMORY.md" || relative === "MEMORY") {
    return refuse("index", "MEMORY.md is the index, not a topic; its lines go when their topics are forgotten")
  }
  const files = topics.map((t) => t.filename)
  for (const candidate of [relative, `${relative}.md`]) if (files.includes(candidate)) return { _tag: "Found", filename: candidate }
  const byName = topics.filter((t) => t.name === name)
  if (byName.length === 1) return { _tag: "Found", filename: byName[0]!.filename }
  const lower = relative.toLowerCase()
  const loose = topics.filter(
    (t) => t.filename.toLowerCase() === lower || t.filename.toLowerCase() === `${lower}.md` || t.name?.toLowerCase() === lower
  )
  if (loose.length === 1) return { _tag: "Found", filename: loose[0]!.filename }
  if (byName.length > 1 || loose.length > 1) {
    const all = (byName.length > 1 ? byName : loose).map((t) => t.filename).join(", ")
    return refuse("unknown", `${raw} names more than one topic (${all}); give the file name`)
  }
  return refuse("unknown", `no topic named ${raw} (give a file name from \`pm list\` or a frontmatter name)`)
}

/** The index without the lines that link `filename`; other lines (headings, other links) stay byte for byte. */
export const removeIndexLinks = (index: string, filenames: ReadonlyArray<string>): { readonly text: string; readonly removed: number } => {
  const gone = new Set(filenames)
  const lines = index.split("\n")
  const kept = lines.filter((line) => !indexLinkTargets(line).some((t) => gone.has(decodeTarget(t))))
  return { text: kept.join("\n"), removed: lines.length - kept.length }
}

export interface SearchDocument {
  readonly filename: string
  readonly name: string | undefined
  readonly description: string | undefined
  /** The whole file (header and body). */
  readonly content: string
}

export interface SearchHit {
  readonly filename: string
  readonly score: number
  /** 1-based line of the first body line holding a query word (the description's line when only it matches). */
  readonly line: number
  readonly text: string
}

/** Query words: lowercase runs of letters and digits (so `api-key` is `api` and `key`). */
export const queryTerms = (query: string): ReadonlyArray<string> =>
  [...new Set(query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])]

const count = (haystack: string, term: string): number => {
  let n = 0
  for (let i = haystack.indexOf(term); i !== -1; i = haystack.indexOf(term, i + term.length)) n++
  return n
}

/** Weights: a word in the name or file name counts most, then the description, then each body occurrence (capped). */
const NAME_WEIGHT = 5
const DESCRIPTION_WEIGHT = 3
const BODY_CAP = 5

/**
 * Lexical search over name, description and body. A topic matches when every query word occurs somewhere in it;
 * ranked by weighted occurrences, ties by file name. Nothing matches an empty query.
 */
export const searchDocuments = (query: string, documents: ReadonlyArray<SearchDocument>): ReadonlyArray<SearchHit> => {
  const terms = queryTerms(query)
  if (terms.length === 0) return []
  const hits: Array<SearchHit> = []
  for (const doc of documents) {
    const nameText = `${doc.filename} ${doc.name ?? ""}`.toLowerCase()
    const description = (doc.description ?? "").toLowerCase()
    const lines = doc.content.split("\n")
    const lowerLines = lines.map((l) => l.toLowerCase())
    let score = 0
    let all = true
    for (const term of terms) {
      const inName = nameText.includes(term) ? NAME_WEIGHT : 0
      const inDescription = description.includes(term) ? DESCRIPTION_WEIGHT : 0
      const inBody = Math.min(BODY_CAP, lowerLines.reduce((n, l) => n + count(l, term), 0))
      if (inName + inDescription + inBody === 0) all = false
      score += inName + inDescription + inBody
    }
    if (!all) continue
    const bodyStart = headerEnd(lines)
    let at = lowerLines.findIndex((l, i) => i >= bodyStart && terms.some((t) => l.includes(t)))
    if (at === -1) at = lowerLines.findIndex((l) => terms.some((t) => l.includes(t)))
    hits.push({ filename: doc.filename, score, line: at + 1, text: at === -1 ? "" : (lines[at] ?? "").trim() })
  }
  return hits.sort((a, b) => b.score - a.score || (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0))
}

/** Index of the first line after a `---` header (0 when there is none). */
const headerEnd = (lines: ReadonlyArray<string>): number => {
  if (lines[0]?.trim() !== "---") return 0
  const close = lines.findIndex((l, i) => i > 0 && l.trim() === "---")
  return close === -1 ? 0 : close + 1
}
