/** Staleness of a memory file (alignment: floor(age / day) > 1, so from 48 hours on). Pure. */
import { DAY_MS } from "../limits.ts"

export const ageInDays = (mtimeMs: number, nowMs: number): number => Math.floor((nowMs - mtimeMs) / DAY_MS)

export const isStale = (mtimeMs: number, nowMs: number): boolean => ageInDays(mtimeMs, nowMs) > 1

/** The reminder put before a stale memory; undefined when the memory is fresh. */
export const stalenessNote = (mtimeMs: number, nowMs: number): string | undefined => {
  const days = ageInDays(mtimeMs, nowMs)
  return days > 1
    ? `This memory was last changed ${days} days ago. It records what was true then: check it against the current code before relying on it, and update or delete it if it is wrong.`
    : undefined
}
