/**
 * One rule's matches in a text: exactly those of one global pass of its pattern, in order. A rule whose every match
 * holds one of its triggers at a known distance from its start (`triggerAt`) is tried only at the starts that
 * distance allows around each place a trigger occurs, with a sticky copy of its pattern. A pattern that opens with a
 * character class (`[a-f0-9]{24}:`) otherwise costs a match attempt at every character; the triggers are found with
 * `indexOf`, far faster. The positions skipped are those no match can start at, so the matches are the same.
 * Pure; linear: each position is tried at most once.
 */
import type { Rule } from "./rule.ts"

const stickyCopies = new WeakMap<Rule, RegExp>()

const stickyOf = (rule: Rule): RegExp => {
  let sticky = stickyCopies.get(rule)
  if (sticky === undefined) {
    sticky = new RegExp(rule.pattern.source, rule.pattern.flags.replace("g", "") + "y")
    stickyCopies.set(rule, sticky)
  }
  return sticky
}

/** Where any of `triggers` starts in `text`, in increasing order. */
const triggerPlaces = (text: string, triggers: ReadonlyArray<string>): Array<number> => {
  const places: Array<number> = []
  for (const t of triggers) {
    for (let at = text.indexOf(t); at !== -1; at = text.indexOf(t, at + 1)) places.push(at)
  }
  if (triggers.length > 1) places.sort((a, b) => a - b)
  return places
}

/**
 * Calls `visit` with each match of `rule` in `text`, as `rule.pattern` (global) would find them from the start.
 * Returns how many characters it read, for the detector's work count.
 */
export const forEachMatch = (rule: Rule, text: string, visit: (m: RegExpExecArray) => void): number => {
  const at = rule.triggerAt
  if (at === undefined || rule.triggers === undefined) {
    // Rules hold global patterns; lastIndex is reset per run (detection is synchronous, so never shared mid-run).
    const pattern = rule.pattern
    pattern.lastIndex = 0
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      if (m[0].length === 0) pattern.lastIndex++
      visit(m)
    }
    return text.length
  }
  const [nearest, farthest] = at
  const sticky = stickyOf(rule)
  // The first position not yet tried (or inside a match already found).
  let next = 0
  for (const place of triggerPlaces(text, rule.triggers)) {
    let p = Math.max(next, place - farthest)
    for (; p <= place - nearest; p++) {
      sticky.lastIndex = p
      const m = sticky.exec(text)
      if (m !== null) {
        visit(m)
        p = Math.max(p + 1, m.index + m[0].length) - 1
      }
    }
    next = Math.max(next, p)
  }
  return text.length * rule.triggers.length
}
