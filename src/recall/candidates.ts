/**
 * Which topics the selector is shown for one request. When the whole memory fits (at most SCAN_MAX_TOPICS lines and
 * SELECTOR_CATALOG_MAX_CHARS characters of catalog, each line with its line break), every topic is shown, so a small
 * memory gives the same catalog on every request and the selector can match a request to a topic by meaning alone.
 * A larger memory shows its SELECTOR_NEWEST_MAX_TOPICS newest topics and, beside them, the others near the user's
 * text (a ranking score of at least RECALL_NEAR_MIN_SCORE), best first, within the same budgets (a line too long for
 * what is left is passed over); when no topic is near, nothing, and the selector is not asked. The chosen topics are
 * listed newest first, the catalog's one order. Pure.
 */
import { catalogLine, type CatalogTopic } from "../memory/catalog.ts"
import { RECALL_NEAR_MIN_SCORE, SCAN_MAX_TOPICS, SELECTOR_CATALOG_MAX_CHARS, SELECTOR_NEWEST_MAX_TOPICS } from "../limits.ts"

export interface CandidateTopic extends CatalogTopic {
  /** The file's mtime: the catalog's order (newest first), ties by filename. */
  readonly fileMtimeMs: number
}

export const newestFirst = (a: CandidateTopic, b: CandidateTopic): number =>
  b.fileMtimeMs - a.fileMtimeMs || (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0)

/** The shortest catalog line with its line break (`- a.md (unknown time): `): once less is left, nothing more fits. */
const SHORTEST_LINE = 24

/**
 * `ranked`: the ranking's hits, best first. `newest`: every topic, newest first. `shown`: whether a topic may be shown
 * at all (asked only of the topics looked at, so the cost follows what is chosen, not the size of the memory).
 * `maxTopics`: the most lines (SCAN_MAX_TOPICS for the selector; fewer for the extractor, EXTRACT_CATALOG_MAX_TOPICS);
 * `maxNewest`: the most of them taken from `newest`. The result's catalog (`catalogOf`) is at most
 * SELECTOR_CATALOG_MAX_CHARS long.
 */
export const chooseCandidates = <T extends CandidateTopic>(
  ranked: ReadonlyArray<T>,
  newest: ReadonlyArray<T>,
  shown: (topic: T) => boolean = () => true,
  maxTopics: number = SCAN_MAX_TOPICS,
  maxNewest: number = maxTopics,
  budget: number = SELECTOR_CATALOG_MAX_CHARS
): ReadonlyArray<T> => {
  const chosen: Array<T> = []
  const seen = new Set<string>()
  // The catalog joins its lines with "\n": the first line has none before it.
  let used = -1
  const offer = (t: T): boolean => {
    if (seen.has(t.filename) || !shown(t)) return true
    const cost = catalogLine(t).length + 1
    if (used + cost <= budget) {
      seen.add(t.filename)
      chosen.push(t)
      used += cost
    }
    return chosen.length < maxTopics && budget - used >= SHORTEST_LINE
  }
  let open = maxTopics > 0
  for (let i = 0; open && i < ranked.length; i++) open = offer(ranked[i]!)
  const fromRanked = chosen.length
  for (let i = 0; open && i < newest.length; i++) open = offer(newest[i]!) && chosen.length - fromRanked < maxNewest
  return chosen.sort(newestFirst)
}

/** How many of a ranking's scores (best first) are near the text: at least RECALL_NEAR_MIN_SCORE. */
export const nearCount = (scores: ReadonlyArray<number>): number => {
  let n = 0
  while (n < scores.length && scores[n]! >= RECALL_NEAR_MIN_SCORE) n++
  return n
}

/** The selector's candidates, and how they are shown: the whole memory, or the newest and those near the text. */
export interface SelectorParts<T> {
  /** Every topic shown, newest first; none when the selector is not asked. */
  readonly topics: ReadonlyArray<T>
  /** Every topic of the memory is among them. */
  readonly whole: boolean
  /** Of `topics`, those shown for being near this text (not among the newest): said with the text, not in the list. */
  readonly near: ReadonlySet<string>
}

/**
 * The selector's candidates (the rule above). `ranked` and `scores`: the ranking's hits for the text, best first;
 * `newest`: every topic, newest first. A memory too large to be shown whole shows its SELECTOR_NEWEST_MAX_TOPICS
 * newest (a list that changes only when memory does) and the near topics besides them within what the budget leaves.
 */
export const selectorParts = <T extends CandidateTopic>(
  ranked: ReadonlyArray<T>,
  scores: ReadonlyArray<number>,
  newest: ReadonlyArray<T>,
  shown: (topic: T) => boolean = () => true
): SelectorParts<T> => {
  // Whole: every topic that may be shown fits (only a memory of at most SCAN_MAX_TOPICS topics can).
  if (newest.length <= SCAN_MAX_TOPICS) {
    const all = chooseCandidates([], newest, shown)
    if (all.length === newest.filter(shown).length) return { topics: all, whole: all.length > 0, near: new Set() }
  }
  const count = nearCount(scores)
  if (count === 0) return { topics: [], whole: false, near: new Set() }
  const listed = chooseCandidates([], newest, shown, SELECTOR_NEWEST_MAX_TOPICS)
  const listedNames = new Set(listed.map((t) => t.filename))
  const listedChars = listed.reduce((n, t) => n + catalogLine(t).length + 1, 0)
  const near = chooseCandidates(
    ranked.slice(0, count).filter((t) => !listedNames.has(t.filename)),
    [],
    shown,
    SCAN_MAX_TOPICS - listed.length,
    0,
    SELECTOR_CATALOG_MAX_CHARS - listedChars
  )
  return { topics: [...listed, ...near].sort(newestFirst), whole: false, near: new Set(near.map((t) => t.filename)) }
}
