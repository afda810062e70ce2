/**
 * The scan: every rule over a text, then over its normalised views (only around what a view changed) and its decoded
 * runs, each hit mapped back to where it sits in the text as written. The rules run in one fixed order (key
 * material, tokens, context, settings), which the ordering of findings depends on. Reports raw hits; merging and
 * naming them is the entry's (secrets.ts).
 */
import { CONTEXT_RULES } from "./contextRules.ts"
import { KEY_RULES } from "./keyRules.ts"
import { forEachMatch } from "./matches.ts"
import type { SecretKind } from "./kinds.ts"
import type { Rule } from "./rule.ts"
import { SETTING_RULES } from "./settingRules.ts"
import { TOKEN_RULES } from "./tokenRules.ts"
import { triggerIndex } from "./triggers.ts"
import { characterView, decodedRuns, joinedView, percentView } from "./views.ts"
import { changedWindows } from "./windows.ts"

export const RULES: ReadonlyArray<Rule> = [...KEY_RULES, ...TOKEN_RULES, ...CONTEXT_RULES, ...SETTING_RULES]

export interface Hit {
  readonly kind: SecretKind
  readonly start: number
  readonly end: number
  readonly generic: boolean
}

/** [start, end) of each line holding a match of `word` (a global pattern). */
const lineSpansHolding = (text: string, word: RegExp): Array<readonly [number, number]> => {
  const spans: Array<readonly [number, number]> = []
  word.lastIndex = 0
  for (let m = word.exec(text); m !== null; m = word.exec(text)) {
    const start = text.lastIndexOf("\n", m.index) + 1
    const newline = text.indexOf("\n", m.index)
    const end = newline === -1 ? text.length : newline
    spans.push([start, end])
    word.lastIndex = end
  }
  return spans
}

/** Every distinct trigger of the rules, and for each rule the numbers of its own (none: the rule always runs). */
const TRIGGERS: ReadonlyArray<string> = [...new Set(RULES.flatMap((r) => r.triggers ?? []))]
const RULE_TRIGGERS: ReadonlyArray<ReadonlyArray<number> | undefined> = RULES.map((r) => r.triggers?.map((t) => TRIGGERS.indexOf(t)))
const index = triggerIndex(TRIGGERS)

/**
 * The detector's work in characters, counted as it scans: each rule's pass over a text or a line adds its length, the
 * trigger pass and each view add the length they read. Grows with every scan; a caller compares two readings. The
 * linear-time tests count with it instead of timing (work that grows faster than the text is a regression).
 */
export const scanWork = { characters: 0 }

/** Lines of the text being scanned, cut once for every rule that runs on them. */
interface Lines {
  readonly starts: ReadonlyArray<number>
  readonly texts: ReadonlyArray<string>
}

/** Hits of every rule in `text`, in `text`'s offsets. */
/** Which rules a scan runs: all, those that match within one line, or those that reach past it (rule.ts). */
type Reach = "all" | "line" | "lines"

const scan = (text: string, hits: Array<Hit>, toOriginal: (start: number, end: number) => readonly [number, number], reach: Reach): void => {
  let lower: string | undefined
  const linesByWord = new Map<RegExp, Lines>()
  const run = (rule: Rule, segment: string, base: number): void => {
    scanWork.characters += forEachMatch(rule, segment, (m) => {
      if (rule.accept !== undefined && !rule.accept(m, segment)) return
      const kind = typeof rule.kind === "function" ? rule.kind(m) : rule.kind
      const end = rule.end === undefined ? m.index + m[0].length : rule.end(m)
      const [s, e] = toOriginal(base + m.index, base + Math.max(end, m.index + 1))
      hits.push({ kind, start: s, end: e, generic: rule.generic === true })
    })
  }
  index.scan(text)
  scanWork.characters += text.length
  const present = (triggers: ReadonlyArray<string>, within: string): boolean => {
    for (const t of triggers) if (within.includes(t)) return true
    return false
  }
  const triggered = (ids: ReadonlyArray<number>): boolean => {
    for (const id of ids) if (index.has(id)) return true
    return false
  }
  for (let r = 0; r < RULES.length; r++) {
    const rule = RULES[r]!
    if (reach !== "all" && (rule.spansLines === true) !== (reach === "lines")) continue
    const ids = RULE_TRIGGERS[r]
    if (ids !== undefined && !triggered(ids)) continue
    if (rule.lowerTriggers !== undefined) {
      lower ??= text.toLowerCase()
      if (!present(rule.lowerTriggers, lower)) continue
    }
    if (rule.lines !== undefined) {
      let lines = linesByWord.get(rule.lines)
      if (lines === undefined) {
        const spans = lineSpansHolding(text, rule.lines)
        scanWork.characters += text.length
        lines = { starts: spans.map(([start]) => start), texts: spans.map(([start, end]) => text.slice(start, end)) }
        linesByWord.set(rule.lines, lines)
      }
      for (let i = 0; i < lines.texts.length; i++) run(rule, lines.texts[i]!, lines.starts[i]!)
    } else {
      run(rule, text, 0)
    }
  }
}

/** How many times decoded text is decoded again (base64 inside percent-encoding, say). */
const MAX_DECODE_DEPTH = 2

/**
 * Hits in `text` as written, in its normalised view, and in its decoded runs, all in `text`'s offsets. A hit in a
 * decoded run covers the whole encoded run.
 */
export const collect = (text: string, depth: number, hits: Array<Hit>): void => {
  const identity = (s: number, e: number): readonly [number, number] => [s, e]
  scan(text, hits, identity, "all")
  // Views, each over the one before: normalised, then percent-decoded. `back` maps the last one to `text`.
  let current = text
  let back = identity
  // Percent-decoding twice undoes a doubly encoded value (`%252D` is `-`).
  for (const make of [characterView, joinedView, percentView, percentView]) {
    const view = make(current)
    if (view === undefined) continue
    const map = view.map!
    scanWork.characters += current.length
    const outer = back
    const viewBack = (s: number, e: number): readonly [number, number] =>
      outer(map[Math.min(s, map.length - 1)]!, map[Math.max(0, Math.min(e, map.length) - 1)]! + 1)
    // Only the stretches around what the view changed can hold a finding the text before it did not (windows.ts):
    // to the end of a change's line for the rules that match within a line, and for every rule over the rejoined
    // view; the wide windows for the few rules that read past a line (key material after its header).
    const joined = make === joinedView
    for (const [from, to] of changedWindows(current, view, true)) {
      scan(view.text.slice(from, to), hits, (s, e) => viewBack(s + from, e + from), joined ? "all" : "line")
    }
    if (!joined) {
      for (const [from, to] of changedWindows(current, view, false)) {
        scan(view.text.slice(from, to), hits, (s, e) => viewBack(s + from, e + from), "lines")
      }
    }
    back = viewBack
    current = view.text
  }
  if (depth >= MAX_DECODE_DEPTH) return
  scanWork.characters += current.length
  for (const run of decodedRuns(current)) {
    const inner: Array<Hit> = []
    collect(run.text, depth + 1, inner)
    if (inner.length === 0) continue
    const [s, e] = back(run.start, run.end)
    const kinds = new Set<SecretKind>()
    for (const h of inner) if (!h.generic || !inner.some((o) => !o.generic)) kinds.add(h.kind)
    for (const kind of kinds) hits.push({ kind, start: s, end: e, generic: inner.every((h) => h.kind !== kind || h.generic) })
  }
}
