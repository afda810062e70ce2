/**
 * The credential detector: finds what looks like a secret in text bound for memory (background writes, the main
 * agent's writes into the memory directory, `pm lint`). Pure, no I/O. A finding names the kind and where it starts,
 * never the value, so no caller can leak it into a message, a log or a model's context.
 *
 * Linear time: every pattern uses bounded quantifiers only, and every unanchored pattern starts behind a negative
 * lookbehind of its own character class, so a match attempt begins only at the start of a run and a failed attempt
 * costs at most its bound. `SECRET_PATTERNS` exposes the sources so a test can check that.
 *
 * Three kinds of rule: provider token formats (src/safety/secrets/providers.ts and secrets/tokenRules.ts), key
 * material in its several wrappings (secrets/keyRules.ts), and generic rules that need no provider: a secret-looking
 * value under a secret-looking name in any syntax (secrets/settingRules.ts), credentials in URLs, headers and
 * command lines (secrets/contextRules.ts). The text is scanned as written, then as a normalised view
 * (secrets/views.ts: NFKC, invisible characters dropped, look-alike letters mapped, cut lines rejoined), then each
 * base64 or percent-encoded run is decoded and scanned again (secrets/scan.ts); every finding is reported where it
 * sits in the text as written. This module merges the hits into findings and words the refusal; `detectSecretSpans`
 * gives the unmerged stretches instead, for redaction (src/safety/redact.ts), which must cover every one of them.
 */
import { secretKindLabel, type SecretFinding, type SecretKind } from "./secrets/kinds.ts"
import { collect, type Hit, RULES } from "./secrets/scan.ts"
import { TEXT_PATTERNS } from "./secrets/views.ts"

/** The pattern sources, for the test that checks every quantifier is bounded. */
export const SECRET_PATTERNS: ReadonlyArray<RegExp> = [...RULES.map((r) => r.pattern), ...TEXT_PATTERNS]

const lineStarts = (text: string): Array<number> => {
  const starts = [0]
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1)
  return starts
}

const positionOf = (starts: ReadonlyArray<number>, offset: number): { line: number; column: number } => {
  let lo = 0
  let hi = starts.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (starts[mid]! <= offset) lo = mid
    else hi = mid - 1
  }
  return { line: lo + 1, column: offset - starts[lo]! + 1 }
}

/** How many of `sorted` (ordered by start) start before `end`: a bisection, for the overlap checks. */
export const startsBefore = (sorted: ReadonlyArray<{ readonly start: number }>, end: number): number => {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (sorted[mid]!.start < end) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Where one hit of the detector sits in the text as written: [start, end) in UTF-16 units. */
export interface SecretSpan {
  readonly kind: SecretKind
  readonly start: number
  readonly end: number
  /** Found by a generic rule (a secret-named setting, a URL password) rather than a provider's format. */
  readonly generic: boolean
}

/**
 * Every stretch of `text` a rule matched, unmerged (overlapping ones included), in order of start. Positions only:
 * the caller cuts them out; never the values.
 */
export const detectSecretSpans = (text: string): Array<SecretSpan> => {
  const hits: Array<Hit> = []
  collect(text, 0, hits)
  return hits.sort((a, b) => a.start - b.start || b.end - a.end)
}

/** Every credential-looking thing in `text`, in order of position. Never returns the values. */
export const detectSecrets = (text: string): Array<SecretFinding> => {
  const hits: Array<Hit> = []
  collect(text, 0, hits)
  // A generic finding inside or around a specific one is the same secret: keep the specific name.
  const specific = hits.filter((h) => !h.generic).sort((a, b) => a.start - b.start)
  const overlapsSpecific = (h: Hit): boolean => {
    // Specific hits are short and rarely overlap one another, so the scan back from the first start past h.end is brief.
    const lo = startsBefore(specific, h.end)
    for (let i = lo - 1; i >= 0 && i >= lo - 8; i--) if (specific[i]!.end > h.start) return true
    return false
  }
  const kept = hits.filter((h) => !h.generic || !overlapsSpecific(h)).sort((a, b) => a.start - b.start || b.end - a.end)
  const starts = lineStarts(text)
  const seen = new Set<string>()
  const findings: Array<SecretFinding> = []
  // Two generic rules matching the same setting (`export A_TOKEN=...` is both a line and an inline assignment), and
  // one secret seen in several views: the first finding stands for the others.
  let genericEnd = -1
  const kindEnd = new Map<SecretKind, number>()
  for (const h of kept) {
    if (h.generic) {
      if (h.start < genericEnd) continue
      genericEnd = h.end
    }
    if (h.start < (kindEnd.get(h.kind) ?? -1)) continue
    kindEnd.set(h.kind, h.end)
    const { line, column } = positionOf(starts, h.start)
    const key = `${h.kind}:${line}:${column}`
    if (seen.has(key)) continue
    seen.add(key)
    findings.push({ kind: h.kind, line, column })
  }
  return findings
}

const MAX_LISTED = 5

/**
 * The refusal the model reads when it tried to write a credential into memory: which kind, where, and what to do.
 * `fileLabel` names the file as the model knows it (for example "topics/deploy.md").
 */
/** What a finding of `kind` is called in a message ("a GitHub token"): the detector's own label table, read on use. */
export const secretLabel = (kind: SecretKind): string => secretKindLabel[kind]

export const secretRefusalReason = (findings: ReadonlyArray<SecretFinding>, fileLabel: string): string => {
  const listed = findings.slice(0, MAX_LISTED).map((f) => `${secretKindLabel[f.kind]} at line ${f.line}`)
  const more = findings.length > MAX_LISTED ? `, and ${findings.length - MAX_LISTED} more` : ""
  const what = listed.length <= 1 ? (listed[0] ?? "a credential") : `${listed.slice(0, -1).join(", ")} and ${listed.at(-1)}`
  const it = findings.length > 1 ? "them" : "it"
  return `Refused: the content for ${fileLabel} holds what looks like ${what}${more}. Memory must never hold credentials: remove or redact ${it}, and describe where the credential lives instead of its value (for example "the deploy token is the DEPLOY_TOKEN secret of the CI"), then retry. Encoding, splitting or disguising the value does not get it past this check.`
}
