/**
 * Staleness by content, the pure half: which project files a memory cites, and the note recall puts before it when
 * some are gone or changed. A cited file is a path in the memory's inline code (`src/x.ts`, or a word of
 * `node scripts/build.mjs`): a word with a folder in it and either a file extension or a trailing `/`, so `origin/main`
 * or a bare `x.ts` (which could live anywhere) is never taken for one. Only paths inside the project count: a `..`
 * segment, a home (`~`), a URL or an absolute path outside the root is never a candidate (symlinks are the checker's,
 * layers/recall/citedFiles.ts). The first RECALL_CITED_PATHS_MAX distinct candidates are returned, in order.
 */
import { isAbsolute, relative, resolve, sep } from "node:path"
import { RECALL_CITED_PATH_MAX_CHARS } from "../limits.ts"

export interface CitedPath {
  /** As the memory wrote it (a trailing `:line` left off). */
  readonly shown: string
  /** Absolute, inside the project root. */
  readonly path: string
}

/** Inline code spans: single backticks on one line (a fence's ``` never opens one). */
const SPAN = /(?<!`)`([^`\n]+)`(?!`)/g
/** The characters a cited path may hold: no glob, variable, quote or shell syntax. */
const PATH_WORD = /^[A-Za-z0-9._@+\/-]+$/
const LINE_SUFFIX = /:\d+(?::\d+)?$/

/** The candidate in one word of inline code, or undefined. */
const candidateOf = (word: string, root: string): CitedPath | undefined => {
  const shown = word.replace(/^["'(]+|["'),;.:]+$/g, "").replace(LINE_SUFFIX, "")
  if (shown.length === 0 || shown.length > RECALL_CITED_PATH_MAX_CHARS || !PATH_WORD.test(shown)) return undefined
  if (shown.startsWith("-") || shown.startsWith("~") || shown.startsWith("@")) return undefined
  const parts = shown.split("/")
  if (parts.includes("..")) return undefined
  const named = parts.filter((p) => p !== "" && p !== ".")
  const last = shown.endsWith("/") ? undefined : named[named.length - 1]
  // A folder in it, and a file extension or a trailing slash.
  if (named.length < 2) return undefined
  if (last !== undefined && !/\.[A-Za-z0-9]{1,10}$/.test(last)) return undefined
  const path = resolve(root, shown)
  const rel = relative(root, path)
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined
  return { shown, path }
}

/** The first `max` distinct project paths `text` cites in inline code. */
export const citedPaths = (text: string, root: string, max: number): ReadonlyArray<CitedPath> => {
  const found: Array<CitedPath> = []
  const seen = new Set<string>()
  for (const span of text.matchAll(SPAN)) {
    for (const word of span[1]!.split(/\s+/)) {
      if (found.length >= max) return found
      const c = candidateOf(word, root)
      if (c === undefined || seen.has(c.path)) continue
      seen.add(c.path)
      found.push(c)
    }
  }
  return found
}

/**
 * What the check found: cited files that no longer exist, those changed after the memory was last written, cited
 * symbols found nowhere in the project's files, and npm scripts package.json no longer has (src/recall/citedSymbols.ts).
 */
export interface CitedCheck {
  readonly gone: ReadonlyArray<string>
  readonly changed: ReadonlyArray<string>
  readonly absent?: ReadonlyArray<string>
  readonly scriptsGone?: ReadonlyArray<string>
}

const list = (paths: ReadonlyArray<string>): string => {
  const named = paths.map((p) => `\`${p}\``)
  return named.length <= 1 ? named.join("") : `${named.slice(0, -1).join(", ")} and ${named[named.length - 1]}`
}

/** The note before the memory's text; undefined when every checked file is there and unchanged. */
export const citedNote = (check: CitedCheck | undefined): string | undefined => {
  if (check === undefined) return undefined
  const parts = [
    check.gone.length === 0 ? undefined : `${list(check.gone)} ${check.gone.length === 1 ? "no longer exists" : "no longer exist"}`,
    check.changed.length === 0 ? undefined : `${list(check.changed)} changed after this memory was written`,
    (check.absent ?? []).length === 0 ? undefined : `${list(check.absent!)} no longer ${check.absent!.length === 1 ? "appears" : "appear"} in the project`,
    (check.scriptsGone ?? []).length === 0
      ? undefined
      : `package.json no longer has the ${list(check.scriptsGone!)} ${check.scriptsGone!.length === 1 ? "script" : "scripts"}`
  ].filter((p) => p !== undefined)
  return parts.length === 0 ? undefined : `${parts.join("; ")}: check before relying on it.`
}
