/**
 * Where a normalised view can hold a finding its text did not: [from, to) stretches of the view around each place
 * it differs from the text, widened to line boundaries, merged where they meet. The detector scans only these
 * (scan.ts). Two reaches: wide (WINDOW_BEFORE before a change, twice WINDOW_AFTER after it, for rules that read
 * key material after a header) and to the end of the change's line (for rules that match within a line, and for
 * the rejoined view, whose changes are line breaks taken out: what a rejoined token adds sits on its joined line).
 * Pure; linear: each change costs a few comparisons, each window's widening is bounded, and the line ends are found
 * with one forward search over the view.
 */
import type { View } from "./views.ts"

/** Context kept around a change of a view: enough for a setting's name before it and a key body after it. */
export const WINDOW_BEFORE = 256
export const WINDOW_AFTER = 1536

/** How far a window's edge moves to reach a line boundary. */
export const SNAP = 256

/** Does unit `i` of the view differ from the text: something left out before it, or a unit the text does not have there? */
const changedAt = (text: string, view: string, map: Int32Array, i: number): boolean =>
  map[i] !== (i === 0 ? 0 : map[i - 1]! + 1) || view.charCodeAt(i) !== text.charCodeAt(map[i]!)

/**
 * The stretches of `view` (made from `text`) to scan again. With `toLineEnd`, a window ends with the line holding
 * its last change, and at most 2 * WINDOW_AFTER after that change either way.
 */
export const changedWindows = (text: string, view: View, toLineEnd: boolean): Array<[number, number]> => {
  const v = view.text
  const map = view.map!
  const windows: Array<[number, number]> = []
  let current: [number, number] | undefined
  // The first line break at or after the last change looked at (its search starts there, so it is found once).
  let lineEnd = -1
  for (const i of view.changes) {
    if (!changedAt(text, v, map, i)) continue
    if (current !== undefined && i + WINDOW_AFTER <= current[1]) continue
    // Widen by twice the margin, so a run of changes widens the window once per WINDOW_AFTER characters.
    let to = Math.min(v.length, i + 2 * WINDOW_AFTER)
    if (toLineEnd) {
      if (i > lineEnd) {
        const nl = v.indexOf("\n", i)
        lineEnd = nl === -1 ? v.length : nl
      }
      to = Math.min(to, lineEnd)
    }
    for (let k = to; k < v.length && k - to < SNAP; k++) {
      if (v.charCodeAt(k) === 10) {
        to = k
        break
      }
    }
    // A change inside the current window only moves its end.
    if (current !== undefined && i <= current[1]) {
      current[1] = Math.max(current[1], to)
      continue
    }
    let from = Math.max(0, i - WINDOW_BEFORE)
    for (let k = from; k > 0 && from - k < SNAP; k--) {
      if (v.charCodeAt(k - 1) === 10) {
        from = k
        break
      }
    }
    if (current !== undefined && from <= current[1]) current[1] = Math.max(current[1], to)
    else {
      current = [from, to]
      windows.push(current)
    }
  }
  return windows
}
