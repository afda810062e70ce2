/**
 * Where Pi's own `read`, `write` and `edit` tools will look for a `path` argument, so that the trust check (D8)
 * judges the file the host will really open. Mirrors Pi 1.6 `resolveToCwd`: Unicode spaces become plain spaces, a
 * leading `@` is dropped, `~` and `~/` expand to the home directory, a `file://` URL becomes its path, and a relative
 * path resolves against the session's cwd. Pure.
 */
import { isAbsolute, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g

export const resolveToolPath = (rawPath: string, cwd: string, home: string): string | undefined => {
  let p = rawPath.replace(UNICODE_SPACES, " ")
  if (p.startsWith("@")) p = p.slice(1)
  if (p === "~") p = home
  else if (p.startsWith("~/")) p = join(home, p.slice(2))
  if (/^file:\/\//.test(p)) {
    try {
      p = fileURLToPath(p)
    } catch {
      // Pi's tool fails on such a URL too: it names no file.
      return undefined
    }
  }
  return isAbsolute(p) ? resolve(p) : resolve(cwd, p)
}

/**
 * Every file Pi's `read` may open for a resolved path: the path itself and the spellings its fallback tries when the
 * file is missing (a narrow no-break space before AM/PM in macOS screenshot names, NFD, a curly apostrophe, NFD with
 * a curly apostrophe), plus NFC, the form the other tools' names may be stored in. Pure; in Pi's order, no duplicates.
 */
export const toolPathVariants = (resolved: string): ReadonlyArray<string> => {
  const nfd = resolved.normalize("NFD")
  const variants = [
    resolved,
    resolved.replace(/ (AM|PM)\./gi, "\u202F$1."),
    nfd,
    resolved.replace(/'/g, "\u2019"),
    nfd.replace(/'/g, "\u2019"),
    resolved.normalize("NFC")
  ]
  return variants.filter((v, i) => variants.indexOf(v) === i)
}

/** Pi's tools that open files or directories named by a `path` argument: the ones the trust check guards. */
export const FILE_TOOLS: ReadonlySet<string> = new Set(["read", "write", "edit"])
/** Search tools: `path` names a directory (or file) to search, and defaults to the session's cwd. */
export const SEARCH_TOOLS: ReadonlySet<string> = new Set(["grep", "find", "ls"])

/** The path a guarded tool call will open, as given (a search tool without one searches the cwd); else undefined. */
export const guardedToolPath = (toolName: string, input: Record<string, unknown>): string | undefined => {
  const raw = input["path"]
  if (FILE_TOOLS.has(toolName)) return typeof raw === "string" && raw !== "" ? raw : undefined
  if (SEARCH_TOOLS.has(toolName)) return typeof raw === "string" && raw !== "" ? raw : "."
  return undefined
}

/**
 * `path` is `dir` or inside it: the one "inside this directory" check of the project (one argument order: the
 * directory first). Both are resolved (`path.relative`), so trailing slashes, `.` and `..` segments do not count, and
 * the comparison is exact (case-sensitive). A path whose first segment below `dir` starts with `..` (`dir/..x`) counts
 * as outside. Callers that want strictly inside (the directory itself excluded) add `relative(dir, path) !== ""`.
 */
export const isWithin = (dir: string, path: string): boolean => {
  const rel = relative(dir, path)
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel))
}

/**
 * When the trust check itself cannot run: could this tool call touch memory? Any search (its directory may hold
 * memory), any Markdown file, anything under the storage root or naming it. Such calls are blocked, so that a
 * failure of the check never opens memory to an untrusted project.
 */
export const couldTouchMemory = (toolName: string, input: Record<string, unknown>, storageRoot: string): boolean => {
  const raw = guardedToolPath(toolName, input)
  if (raw === undefined) return false
  if (SEARCH_TOOLS.has(toolName)) return true
  return /\.md$/i.test(raw.trim()) || raw.includes("project-memory") || raw.includes(storageRoot)
}

export const untrustedReason = (toolName: string, target: string): string =>
  `This project is not trusted, so project memory is off limits: ${toolName} of ${target} was blocked. Trust the project in Pi to use project memory.`

export const uncheckedReason = (toolName: string): string =>
  `This ${toolName} was blocked: the project-memory trust check could not run, and the path may hold project memory. Trust the project in Pi, or retry with a path outside project memory.`
