/**
 * The words of a text as the topic ranking counts them: lowercase runs of letters and digits (so `snake_case`
 * is two words, and a camelCase identifier also gives its parts), common English words left out, and a light stemming that folds plurals
 * and -ing/-ed forms onto one stem (`releases`, `releasing`, `released` -> `releas`). Pure and bounded by the text.
 */

/** Words too common to tell topics apart (and the filler of a request to an agent). */
const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below between both " +
    "but by can could did do does doing done down during each few for from further get got had has have having he her " +
    "here hers him his how i if in into is it its itself just let like me more most my no nor not now of off on once " +
    "only or other our ours out over own please same she should so some such than that the their theirs them then there " +
    "these they this those through to too under until up us very was we were what when where which while who whom why " +
    "will with would you your yours yourself md"
  ).split(" ")
)

/** Longer runs are hashes, keys or noise, not words. */
const MAX_WORD = 40

const RUN = /[\p{L}\p{N}]+/gu
const CAMEL_PART = /\p{Lu}?\p{Ll}+|\p{Lu}+(?!\p{Ll})|\p{N}+/gu

const doubled = (w: string): boolean => w.length >= 2 && w[w.length - 1] === w[w.length - 2] && !/[lsz]/.test(w[w.length - 1]!)

/** Light stemming: plurals, then -ing / -ed, then a final -e, so each form of a word meets the others. */
export const stem = (word: string): string => {
  let w = word
  if (w.length <= 3 || /\p{N}/u.test(w)) return w
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`
  else if (w.endsWith("sses")) w = w.slice(0, -2)
  else if (/(?:x|ch|sh|z)es$/.test(w)) w = w.slice(0, -2)
  else if (w.endsWith("s") && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1)
  if (w.endsWith("ing") && w.length >= 6) {
    w = w.slice(0, -3)
    if (doubled(w)) w = w.slice(0, -1)
  } else if (w.endsWith("ed") && w.length >= 5) {
    w = w.slice(0, -2)
    if (doubled(w)) w = w.slice(0, -1)
  }
  if (w.endsWith("e") && w.length > 4) w = w.slice(0, -1)
  return w
}

const keep = (word: string): boolean => word.length >= 2 && word.length <= MAX_WORD && !STOPWORDS.has(word)

/** Calls `each` with every counted word of `text`, in order (repeats included). */
export const forEachTerm = (text: string, each: (term: string) => void): void => {
  for (const match of text.matchAll(RUN)) {
    const raw = match[0]
    const lower = raw.toLowerCase()
    if (keep(lower)) each(stem(lower))
    if (raw !== lower && raw.length <= MAX_WORD) {
      // camelCase and ALLCaps parts: `ReleaseBranch` also counts as `release` and `branch`.
      const parts = raw.match(CAMEL_PART)
      if (parts !== null && parts.length > 1) for (const part of parts) if (keep(part.toLowerCase())) each(stem(part.toLowerCase()))
    }
  }
}

/** The counted words of `text`, repeats included. */
export const termsOf = (text: string): Array<string> => {
  const out: Array<string> = []
  forEachTerm(text, (t) => out.push(t))
  return out
}
