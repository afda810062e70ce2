/**
 * Lexical search over the topics for `pm search` and `/memory search`: every query word must occur in a topic's name,
 * description or body; hits are ranked by weighted occurrences and point at the first body line that matches. Pure.
 */
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
