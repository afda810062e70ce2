/**
 * Views of a text for the credential detector: the same text with evasions undone, each with a map from its
 * offsets back to the original, so a finding is reported where the writer put it.
 *
 * - `characterView`: Unicode NFKC (fullwidth and mathematical letters become ASCII), zero-width, bidi and
 *   combining characters removed, Cyrillic and Greek look-alikes mapped to the Latin letters they imitate, shell
 *   continuation lines (`\` at the end of a line) joined.
 * - `joinedView`: a long token cut at a line break rejoined (not when the next line starts a new setting).
 * - `percentView`: percent-encoded ASCII (`%67%68%70%5F`) decoded in place, so a token keeps the name before it.
 * - `decodedRuns`: base64 runs, decoded when they decode to text.
 * Pure, no I/O; linear in the text.
 */

export interface View {
  readonly text: string
  /** Original offset of each view offset; undefined when the view is the original. */
  readonly map: Int32Array | undefined
  /**
   * View offsets, ascending, where the view may differ from the text: each unit the view put in place of others,
   * and the first unit after something was left out. Every other unit is the text's own, in its place.
   */
  readonly changes: ReadonlyArray<number>
}

/** Characters with no width or only a direction: removed. */
const isInvisible = (c: number): boolean =>
  c === 0x00ad ||
  c === 0x034f ||
  c === 0x061c ||
  c === 0x180e ||
  (c >= 0x200b && c <= 0x200f) ||
  (c >= 0x202a && c <= 0x202e) ||
  (c >= 0x2060 && c <= 0x2069) ||
  c === 0xfeff ||
  (c >= 0xfe00 && c <= 0xfe0f) ||
  (c >= 0x0300 && c <= 0x036f)

/** Cyrillic and Greek letters that look like Latin ones. */
const CONFUSABLES: ReadonlyMap<number, string> = new Map(
  Object.entries({
    "\u0430": "a", "\u0432": "b", "\u0441": "c", "\u0435": "e", "\u043d": "h", "\u0456": "i", "\u0458": "j",
    "\u043a": "k", "\u043c": "m", "\u043e": "o", "\u0440": "p", "\u0455": "s", "\u0442": "t", "\u0445": "x",
    "\u0443": "y", "\u0501": "d", "\u051b": "q", "\u051d": "w", "\u04bb": "h", "\u0410": "A", "\u0412": "B",
    "\u0421": "C", "\u0415": "E", "\u041d": "H", "\u0406": "I", "\u0408": "J", "\u041a": "K", "\u041c": "M",
    "\u041e": "O", "\u0420": "P", "\u0405": "S", "\u0422": "T", "\u0425": "X", "\u0423": "Y", "\u04ae": "Y",
    "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H", "\u0399": "I", "\u039a": "K",
    "\u039c": "M", "\u039d": "N", "\u039f": "O", "\u03a1": "P", "\u03a4": "T", "\u03a5": "Y", "\u03a7": "X",
    "\u03bf": "o", "\u03b1": "a", "\u03ba": "k", "\u03c1": "p", "\u03c5": "u", "\u03bd": "v", "\u0399\u0308": "I"
  }).map(([k, v]) => [k.codePointAt(0)!, v])
)

const isTokenChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 43 || c === 47 || c === 61 || c === 37

/** Does the run of token characters ending at `end` (exclusive) look like part of a token: long and mixed? */
const tokenTail = (s: string, end: number): boolean => {
  let i = end - 1
  let lower = 0
  let upper = 0
  let digit = 0
  while (i >= 0 && end - i <= 64) {
    const c = s.charCodeAt(i)
    if (!isTokenChar(c)) break
    if (c >= 97 && c <= 122) lower = 1
    else if (c >= 65 && c <= 90) upper = 1
    else if (c >= 48 && c <= 57) digit = 1
    i--
  }
  return end - 1 - i >= 8 && lower + upper + digit >= 2
}

const NON_ASCII = /[^\x00-\x7f]/

/** A line break inside a token: a long mixed run of token characters before it, a token character after it, and
 * not the start of a new setting (`name: ...`, `name=...`) after it. */
const cutAt = (text: string, nl: number): boolean => {
  const before = text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl
  return isTokenChar(text.charCodeAt(nl + 1)) && tokenTail(text, before) && !NEW_SETTING.test(text.slice(nl + 1, nl + 66))
}
const NEW_SETTING = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}[ \t]?[:=]/

/** Anything the character view would change: non-ASCII, a continuation line. */
const needsCharacterView = (text: string): boolean => NON_ASCII.test(text) || /\\\r?\n/.test(text)

/** Any line break inside a token. */
const needsJoinedView = (text: string): boolean => {
  for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", nl + 1)) if (cutAt(text, nl)) return true
  return false
}

/** The character view (NFKC, invisible characters dropped, look-alikes mapped, continuation lines joined), or undefined when it would equal the text. */
export const characterView = (text: string): View | undefined => (needsCharacterView(text) ? buildView(text, false) : undefined)

/** The text with each token cut by a line break rejoined, or undefined when it has none. */
export const joinedView = (text: string): View | undefined => (needsJoinedView(text) ? buildView(text, true) : undefined)

/** What a non-ASCII code point reads as, or undefined when it stays itself. Cached: texts repeat their letters. */
const replacements = new Map<number, string | undefined>()
const replacementOf = (cp: number): string | undefined => {
  if (replacements.has(cp)) return replacements.get(cp)
  let replacement: string | undefined
  if (isInvisible(cp)) replacement = ""
  else {
    const confusable = CONFUSABLES.get(cp)
    if (confusable !== undefined) replacement = confusable
    else {
      const original = String.fromCodePoint(cp)
      const folded = original.normalize("NFKC")
      // NFKC can yield a look-alike letter too (a fullwidth Cyrillic letter, say).
      const again = folded.length === 1 ? CONFUSABLES.get(folded.charCodeAt(0)) : undefined
      replacement = again ?? (folded === original ? undefined : folded)
    }
  }
  if (replacements.size >= 8192) replacements.clear()
  replacements.set(cp, replacement)
  return replacement
}

const UTF16 = new TextDecoder("utf-16le")

const buildView = (text: string, join: boolean): View | undefined => {
  const n = text.length
  // The view's UTF-16 units and, for each, its offset in the text; grown together.
  let units = new Uint16Array(n + 64)
  let map = new Int32Array(n + 64)
  let length = 0
  const room = (more: number): void => {
    if (length + more <= map.length) return
    const size = Math.max(map.length * 2, length + more)
    const biggerMap = new Int32Array(size)
    biggerMap.set(map)
    map = biggerMap
    const biggerUnits = new Uint16Array(size)
    biggerUnits.set(units)
    units = biggerUnits
  }
  const changes: Array<number> = []
  // Text is copied in unchanged runs: `from` is where the pending run starts.
  let from = 0
  const flush = (to: number): void => {
    if (to <= from) return
    if (length === 0 ? from !== 0 : map[length - 1]! + 1 !== from) changes.push(length)
    room(to - from)
    for (let k = from; k < to; k++) {
      units[length] = text.charCodeAt(k)
      map[length++] = k
    }
  }
  const emit = (s: string, at: number): void => {
    room(s.length)
    for (let k = 0; k < s.length; k++) {
      changes.push(length)
      units[length] = s.charCodeAt(k)
      map[length++] = at
    }
  }
  let changed = false
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) {
      if (!join && c === 92 /* \ */ && (text.charCodeAt(i + 1) === 10 || (text.charCodeAt(i + 1) === 13 && text.charCodeAt(i + 2) === 10))) {
        // A continuation line: drop the backslash, the line break and the next line's indentation.
        flush(i)
        i += text.charCodeAt(i + 1) === 13 ? 2 : 1
        while (i + 1 < n && (text.charCodeAt(i + 1) === 32 || text.charCodeAt(i + 1) === 9)) i++
        from = i + 1
        changed = true
      } else if (join && (c === 10 || (c === 13 && text.charCodeAt(i + 1) === 10))) {
        const nl = c === 13 ? i + 1 : i
        if (cutAt(text, nl)) {
          // A token cut at the line break: rejoin its halves.
          flush(i)
          i = nl
          from = nl + 1
          changed = true
        }
      }
      continue
    }
    if (join) continue
    const cp = text.codePointAt(i)!
    const width = cp > 0xffff ? 2 : 1
    const replacement = replacementOf(cp)
    if (replacement !== undefined) {
      flush(i)
      emit(replacement, i)
      from = i + width
      changed = true
    }
    i += width - 1
  }
  if (!changed) return undefined
  flush(n)
  return { text: UTF16.decode(units.subarray(0, length)), map: map.subarray(0, length), changes }
}

const PERCENT_ESCAPE = /%[0-7][0-9A-Fa-f]/g

const hexValue = (c: number): number => (c <= 57 ? c - 48 : (c | 32) - 87)

/** The text with each percent-escaped ASCII character decoded in place, or undefined when it has none. */
export const percentView = (text: string): View | undefined => {
  PERCENT_ESCAPE.lastIndex = 0
  if (!PERCENT_ESCAPE.test(text)) return undefined
  let out = ""
  const map = new Int32Array(text.length)
  const changes: Array<number> = []
  let n = 0
  let from = 0
  // A copied run starts with a change when an escape (three characters read as one) came just before it.
  const copy = (to: number): void => {
    if (to > from && n > 0 && map[n - 1]! + 1 !== from) changes.push(n)
    for (let i = from; i < to; i++) map[n++] = i
    out += text.slice(from, to)
  }
  PERCENT_ESCAPE.lastIndex = 0
  for (let m = PERCENT_ESCAPE.exec(text); m !== null; m = PERCENT_ESCAPE.exec(text)) {
    copy(m.index)
    out += String.fromCharCode(hexValue(text.charCodeAt(m.index + 1)) * 16 + hexValue(text.charCodeAt(m.index + 2)))
    changes.push(n)
    map[n++] = m.index
    from = m.index + 3
  }
  copy(text.length)
  return { text: out, map: map.subarray(0, n), changes }
}

export interface DecodedRun {
  /** Where the encoded run starts and ends in the text it was found in. */
  readonly start: number
  readonly end: number
  readonly text: string
}

const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{20,65536}={0,2}/g

/** Is this decoded text text (printable ASCII or UTF-8 letters), not binary? */
const isText = (s: string): boolean => {
  if (s.length < 8) return false
  let bad = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 0xfffd || (c >= 0x7f && c < 0xa0)) bad++
  }
  return bad <= s.length * 0.02
}

const hexOnly = /^[0-9a-fA-F]{1,65536}$/

/** Base64 runs of `text` that decode to text, decoded. */
export const decodedRuns = (text: string): Array<DecodedRun> => {
  const runs: Array<DecodedRun> = []
  BASE64_RUN.lastIndex = 0
  for (let m = BASE64_RUN.exec(text); m !== null; m = BASE64_RUN.exec(text)) {
    const run = m[0]
    // Hex digests, words and identifiers decode to noise: skip them without decoding.
    if (hexOnly.test(run) || !/[A-Z]/.test(run) || !/[a-z]/.test(run)) continue
    const decoded = Buffer.from(run, "base64").toString("utf8")
    if (isText(decoded)) runs.push({ start: m.index, end: m.index + run.length, text: decoded })
  }
  return runs
}

/** The pattern sources, for the linear-time checks. */
export const TEXT_PATTERNS: ReadonlyArray<RegExp> = [BASE64_RUN, PERCENT_ESCAPE]
