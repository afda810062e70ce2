/**
 * The detector's prefilter: which of the rules' trigger literals a text holds, found in one pass over it. A rule
 * runs only when the text holds one of its triggers (rule.ts), so this decides, for every rule at once, whether it
 * runs. The answer is exact (`text.includes(trigger)` for each trigger), and the cost is one visit per character
 * plus one comparison per place where a trigger's first two characters occur and it has not been found yet.
 *
 * Triggers are ASCII (checked when the index is made). Pure, no I/O; the index is reused from scan to scan, its
 * marks stamped with a generation instead of cleared, so a scan of a short text costs nothing for its size.
 */

/** Folds two ASCII codes into one table slot. */
const pairSlot = (a: number, b: number): number => (a << 7) | b

export interface TriggerIndex {
  /** Marks which triggers `text` holds; `has` answers for the text of the last call. */
  readonly scan: (text: string) => void
  /** Does the text of the last `scan` hold trigger number `id` (its position in the list the index was made from)? */
  readonly has: (id: number) => boolean
}

/** An index over `triggers` (distinct ASCII strings, at least one character each). */
export const triggerIndex = (triggers: ReadonlyArray<string>): TriggerIndex => {
  const n = triggers.length
  // Triggers of two characters or more, chained by their first two; single characters by themselves.
  const pairHead = new Int32Array(1 << 14).fill(-1)
  const singleHead = new Int32Array(128).fill(-1)
  const next = new Int32Array(n).fill(-1)
  triggers.forEach((t, id) => {
    if (t.length === 0 || /[^\x00-\x7f]/.test(t)) throw new Error(`a detector trigger must be non-empty ASCII: ${JSON.stringify(t)}`)
    if (t.length === 1) {
      next[id] = singleHead[t.charCodeAt(0)]!
      singleHead[t.charCodeAt(0)] = id
    } else {
      const slot = pairSlot(t.charCodeAt(0), t.charCodeAt(1))
      next[id] = pairHead[slot]!
      pairHead[slot] = id
    }
  })
  const found = new Uint32Array(n)
  let generation = 0

  const scan = (text: string): void => {
    generation = (generation + 1) >>> 0
    if (generation === 0) {
      found.fill(0)
      generation = 1
    }
    const g = generation
    let remaining = n
    const length = text.length
    let c = length > 0 ? text.charCodeAt(0) : 0
    for (let i = 0; i < length && remaining > 0; i++) {
      const d = i + 1 < length ? text.charCodeAt(i + 1) : 128
      if (c < 128) {
        for (let id = singleHead[c]!; id !== -1; id = next[id]!) {
          if (found[id] !== g) {
            found[id] = g
            remaining--
          }
        }
        if (d < 128) {
          for (let id = pairHead[pairSlot(c, d)]!; id !== -1; id = next[id]!) {
            if (found[id] !== g && (triggers[id]!.length === 2 || text.startsWith(triggers[id]!, i))) {
              found[id] = g
              remaining--
            }
          }
        }
      }
      c = d
    }
  }
  return { scan, has: (id) => found[id] === generation }
}
