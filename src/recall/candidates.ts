/**
 * Which topics the selector is shown for one request: the topics the ranking found for the user's text, best first,
 * then the newest of the others, while they fit: at most SCAN_MAX_TOPICS lines and SELECTOR_CATALOG_MAX_CHARS
 * characters of catalog (each line with its line break; a line too long for what is left is passed over). When the
 * whole memory fits, every topic is shown, so a small memory gives the same catalog on every request. The chosen
 * topics are listed newest first, the catalog's one order. Pure.
 */
import { catalogLine, type CatalogTopic } from "../memory/catalog.ts"
import { SCAN_MAX_TOPICS, SELECTOR_CATALOG_MAX_CHARS } from "../limits.ts"

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
 * at all (asked only of the topics looked at, so the cost follows what is chosen, not the size of the memory). The
 * result's catalog (`catalogOf`) is at most SELECTOR_CATALOG_MAX_CHARS long.
 */
export const chooseCandidates = <T extends CandidateTopic>(
  ranked: ReadonlyArray<T>,
  newest: ReadonlyArray<T>,
  shown: (topic: T) => boolean = () => true
): ReadonlyArray<T> => {
  const chosen: Array<T> = []
  const seen = new Set<string>()
  // The catalog joins its lines with "\n": the first line has none before it.
  let used = -1
  const offer = (t: T): boolean => {
    if (seen.has(t.filename) || !shown(t)) return true
    const cost = catalogLine(t).length + 1
    if (used + cost <= SELECTOR_CATALOG_MAX_CHARS) {
      seen.add(t.filename)
      chosen.push(t)
      used += cost
    }
    return chosen.length < SCAN_MAX_TOPICS && SELECTOR_CATALOG_MAX_CHARS - used >= SHORTEST_LINE
  }
  let open = true
  for (let i = 0; open && i < ranked.length; i++) open = offer(ranked[i]!)
  for (let i = 0; open && i < newest.length; i++) open = offer(newest[i]!)
  return chosen.sort(newestFirst)
}
