/**
 * Redaction of what a background model is shown: every stretch the credential detector (./secrets.ts) matches is
 * replaced by a marker naming its kind, `[redacted: GitHub token]`; overlapping or touching stretches become one
 * marker, and every other character stays as it was. Text with nothing to redact comes back as the same string.
 * The detector finds key material by its start (an armour line, a file header, a DER prefix); the redaction runs on
 * to the end of the key (its END line, or the base64 lines that follow when the text was cut), so no key body shows.
 * Pure, no I/O. It catches only what the detector has a rule for (docs/security.md says what it cannot).
 */
import { detectSecretSpans, type SecretSpan, secretLabel, startsBefore } from "./secrets.ts"
import type { SecretKind } from "./secrets/kinds.ts"

export interface Redaction {
  /** The text with each secret replaced by its marker. */
  readonly text: string
  /** How many markers were put in. */
  readonly count: number
  /** The kind each marker names, in order of position. */
  readonly kinds: ReadonlyArray<SecretKind>
}

/** The marker that stands for one secret: its kind's label without the article ("a GitHub token" -> "GitHub token"). */
export const redactionMarker = (kind: SecretKind): string => `[redacted: ${secretLabel(kind).replace(/^an? /, "")}]`

/** The line the model reads after a result in which anything was redacted. */
export const redactionNotice = (count: number): string =>
  `[${count} credential-looking value${count === 1 ? " was" : "s were"} replaced by [redacted: ...] markers; never save a credential to memory, say where it is kept instead.]`

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff

/**
 * [start, end) without the indentation a line-anchored rule takes in, and widened so it never cuts a surrogate pair
 * (the rest of the text stays valid UTF-16, hence valid UTF-8).
 */
const trimmed = (text: string, from: number, end: number): readonly [number, number] => {
  let start = from
  while (start < end - 1 && (text.charCodeAt(start) === 32 || text.charCodeAt(start) === 9)) start++
  return [
    start > 0 && isLow(text.charCodeAt(start)) && isHigh(text.charCodeAt(start - 1)) ? start - 1 : start,
    end < text.length && isLow(text.charCodeAt(end)) && isHigh(text.charCodeAt(end - 1)) ? end + 1 : end
  ]
}

/** Kinds whose finding is the start of a block of key material, not all of it. */
const BLOCK_KINDS: ReadonlySet<SecretKind> = new Set<SecretKind>([
  "rsa-private-key", "ec-private-key", "dsa-private-key", "openssh-private-key", "pkcs8-private-key",
  "encrypted-private-key", "pgp-private-key", "putty-private-key", "ssh2-private-key", "openvpn-static-key"
])

/** How far after its start a key's end is looked for. */
const MAX_BLOCK = 64 * 1024

/** Where a block of key material ends: the armour's END line, the close of an XML key, a PuTTY key's MAC line. */
const BLOCK_END = /-{3,5} ?END [A-Za-z0-9 ]{3,60}?-{3,5}|<\/RSAKeyValue>|Private-(?:MAC|Hash):[ \t]{0,4}[0-9A-Fa-f]{0,128}/g
const BLOCK_START = /BEGIN |PuTTY-User-Key-File-|<RSAKeyValue>/g

/** A line that continues a key body: base64 alone, or a header (`Proc-Type: 4,ENCRYPTED`, `Public-Lines: 6`). */
const BODY_LINE = /^[ \t]{0,8}(?:[A-Za-z0-9+/]{1,128}={0,2}|[A-Za-z][A-Za-z0-9-]{0,40}: [^\n]{0,200})\r?$/

/** Characters of no width or only a direction, which an evasion puts inside a key body (secrets/views.ts drops them). */
const INVISIBLE = /[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g
const isInvisible = (c: number): boolean =>
  c === 0xad || (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x2069) || c === 0xfeff

/** The end of the key body run that starts at `at`: base64 (with JSON's `\n` escapes) on, then whole body lines. */
const bodyEnd = (text: string, at: number): number => {
  let end = at
  const limit = Math.min(text.length, at + MAX_BLOCK)
  for (; end < limit; end++) {
    const c = text.charCodeAt(end)
    const base64 = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47 || c === 61
    if (base64 || isInvisible(c)) continue
    if (c === 92 && text[end + 1] === "n") end++
    else break
  }
  while (end < limit && text.charCodeAt(end) === 10) {
    const next = text.indexOf("\n", end + 1)
    const lineEnd = next === -1 ? text.length : next
    if (lineEnd === end + 1 || !BODY_LINE.test(text.slice(end + 1, lineEnd).replace(INVISIBLE, ""))) break
    end = lineEnd
  }
  return end
}

/**
 * Where the key whose finding is [start, end) ends: at its END line when one comes before another key starts,
 * otherwise after the body lines that follow (a key cut off by a truncated output).
 */
const blockEnd = (text: string, start: number, end: number): number => {
  const window = text.slice(end, Math.min(text.length, end + MAX_BLOCK))
  BLOCK_END.lastIndex = 0
  const close = BLOCK_END.exec(window)
  BLOCK_START.lastIndex = 0
  const next = BLOCK_START.exec(window)
  const armoured = /BEGIN |PuTTY-User-Key-File-|<RSAKeyValue>/.test(text.slice(start, end))
  if (armoured && close !== null && (next === null || next.index > close.index)) return end + close.index + close[0].length
  return bodyEnd(text, end)
}

interface Group {
  start: number
  end: number
  /** The span that names the marker: the first specific one, else the first. */
  named: SecretSpan
}

/**
 * A generic span (a setting, a sentence, a URL) that overlaps a specific one (the token in it) starts where the
 * specific one does, so the name before the value stays readable (`GITHUB_TOKEN=[redacted: GitHub token]`); it still
 * ends where it ended, unless all it held past the specific ones is punctuation (the `@` after a URL's password).
 */
const narrowed = (text: string, spans: ReadonlyArray<SecretSpan>): Array<SecretSpan> => {
  const specific = spans.filter((s) => !s.generic)
  if (specific.length === 0) return [...spans]
  const out: Array<SecretSpan> = []
  for (const span of spans) {
    if (!span.generic) {
      out.push(span)
      continue
    }
    // The specific spans that start before this one ends, found by bisection; few overlap any one span.
    const lo = startsBefore(specific, span.end)
    let first: SecretSpan | undefined
    let lastEnd = -1
    for (let i = lo - 1; i >= 0 && i >= lo - 16; i--) {
      const s = specific[i]!
      if (s.end <= span.start) continue
      first = s
      lastEnd = Math.max(lastEnd, s.end)
    }
    if (first === undefined) {
      out.push(span)
      continue
    }
    const start = Math.max(span.start, first.start)
    const end = lastEnd >= span.end || /[A-Za-z0-9]/.test(text.slice(lastEnd, span.end)) ? span.end : lastEnd
    out.push({ ...span, start, end: Math.max(end, start + 1) })
  }
  return out.sort((a, b) => a.start - b.start || b.end - a.end)
}

export const redactSecrets = (text: string): Redaction => {
  const found = detectSecretSpans(text)
  if (found.length === 0) return { text, count: 0, kinds: [] }
  const spans = narrowed(text, found)
  // Spans come sorted by start: each one that starts before the current group ends joins it.
  const groups: Array<Group> = []
  for (const span of spans) {
    const [start, end] = trimmed(text, span.start, BLOCK_KINDS.has(span.kind) ? blockEnd(text, span.start, span.end) : span.end)
    const last = groups.at(-1)
    if (last !== undefined && start <= last.end) {
      last.end = Math.max(last.end, end)
      if (last.named.generic && !span.generic) last.named = span
    } else {
      groups.push({ start, end, named: span })
    }
  }
  const parts: Array<string> = []
  let at = 0
  for (const g of groups) {
    parts.push(text.slice(at, g.start), redactionMarker(g.named.kind))
    at = g.end
  }
  parts.push(text.slice(at))
  return { text: parts.join(""), count: groups.length, kinds: groups.map((g) => g.named.kind) }
}
