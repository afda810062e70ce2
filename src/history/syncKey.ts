/**
 * The key that names a project's memory in the sync remote, the same on every machine: a name the user gives
 * (`pm sync init REMOTE --name X`), else the project repository's `origin` remote normalised (scheme, user, port,
 * `.git` and letter case of the host dropped: `git@github.com:me/app.git` and `https://github.com/me/app` are both
 * `github.com/me/app`). Never the local path, which differs between machines. Each key is one branch of the remote,
 * `pm/<key>`, so one remote can carry the memory of many projects. Pure.
 */

/** `origin`'s URL as a key, or undefined when it has no host and path to speak of. */
export const keyOfRemoteUrl = (url: string): string | undefined => {
  let rest = url.trim()
  if (rest === "") return undefined
  let host = ""
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(rest)
  if (scheme !== null) {
    const after = scheme[2]!
    const slash = after.indexOf("/")
    host = slash < 0 ? after : after.slice(0, slash)
    rest = slash < 0 ? "" : after.slice(slash + 1)
  } else {
    // scp-like `user@host:path` (a colon before any slash); otherwise a local path.
    const scp = /^([^/:]+):(.*)$/.exec(rest)
    if (scp !== null) {
      host = scp[1]!
      rest = scp[2]!
    }
  }
  host = host.replace(/^[^@]*@/, "").replace(/:\d+$/, "").toLowerCase()
  const path = rest.replace(/\/+$/, "").replace(/\.git$/, "").replace(/^\/+/, "").replace(/^~[^/]*\//, "")
  const key = sanitizeKey(host === "" ? path : `${host}/${path}`)
  return key === "" ? undefined : key
}

/** A key as a ref-safe path: letters, digits, `.`, `_`, `-` and `/` separators, no empty or dotted segment. */
export const sanitizeKey = (raw: string): string =>
  raw
    .split("/")
    .map((segment) => segment.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[.-]+/, "").replace(/\.lock$/, "-lock").replace(/\.+$/, ""))
    .filter((segment) => segment !== "")
    .join("/")
    .slice(0, 200)

/** The remote branch that holds one project's memory. */
export const branchOfKey = (key: string): string => `pm/${key}`
