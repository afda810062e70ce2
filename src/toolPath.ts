/**
 * Where Pi's own `read`, `write` and `edit` tools will look for a `path` argument, so that the trust check (D8)
 * judges the file the host will really open. Mirrors Pi 1.6 `resolveToCwd`: Unicode spaces become plain spaces, a
 * leading `@` is dropped, `~` and `~/` expand to the home directory, a `file://` URL becomes its path, and a relative
 * path resolves against the session's cwd. Pure.
 */
import { isAbsolute, join, resolve } from "node:path"
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
