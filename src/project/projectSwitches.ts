/**
 * One project's switches in config.json (`projects["<root>"]`) and how entries that name the same project under
 * different spellings of its root become one: the key normalized (no trailing slash, no `.` or `..`), and by the
 * configuration service after its symlinks too; where two entries disagree, off wins. Pure.
 */
import { posix } from "node:path"

/** Switches as written at one level (global or one project); undefined: not set there. */
export interface Switches {
  readonly enabled?: boolean | undefined
  readonly extraction?: boolean | undefined
  readonly dream?: boolean | undefined
  readonly recall?: boolean | undefined
  /** The memory history in git (`history.enabled`): off unless set. */
  readonly history?: boolean | undefined
}

/** A project key as a root is compared: normalized, without a trailing slash (`/repo/` and `/repo/./` are `/repo`). */
export const normalizeProjectKey = (root: string): string => {
  const n = posix.normalize(root)
  return n.length > 1 && n.endsWith("/") ? n.slice(0, -1) : n
}

/**
 * Two entries for one project (two spellings of its root): each switch set by either is kept, and where they
 * disagree, off wins (a person who turned a switch off under one spelling meant it).
 */
export const mergeProjectSwitches = (a: Switches, b: Switches): Switches => {
  const pick = (x: boolean | undefined, y: boolean | undefined) => (x === undefined ? y : y === undefined ? x : x && y)
  return { enabled: pick(a.enabled, b.enabled), extraction: pick(a.extraction, b.extraction), dream: pick(a.dream, b.dream), recall: pick(a.recall, b.recall), history: pick(a.history, b.history) }
}

/** The project entries under their canonical keys (`canonical` maps a key; the pure form only normalizes it). */
export const canonicalProjects = (
  projects: Readonly<Record<string, Switches>>,
  canonical: (root: string) => string = normalizeProjectKey
): Record<string, Switches> => {
  const out: Record<string, Switches> = {}
  for (const [root, value] of Object.entries(projects)) {
    const key = canonical(root)
    out[key] = out[key] === undefined ? value : mergeProjectSwitches(out[key]!, value)
  }
  return out
}

