/**
 * Protected reads: the credential stores a background task must never open (read, find, grep, bash operands).
 * Pure path logic, no I/O: the caller resolves the requested path to an absolute one, checks it, then checks its real
 * path (after symlinks) too, and for `.npmrc` / `.pypirc` reads the file and asks the content check
 * (src/safety/protectedContent.ts).
 *
 * Names are compared case-insensitively: on a case-insensitive file system `~/.SSH/ID_RSA` is the same file, and
 * over-protecting a differently cased name on Linux costs nothing.
 */
import * as path from "node:path"
import type { ReadScope } from "./readScope.ts"

export type Protection =
  | { readonly protected: true; readonly reason: string }
  | {
      readonly protected: false
      /** The name is a package-manager config that is protected only when it holds a token: read it and ask `protectedByContent`. */
      readonly contentCheck?: ContentCheck
    }

export type ContentCheck = "npmrc" | "pypirc"

export interface ProtectionOptions {
  /** The user's home directory (absolute). */
  readonly home: string
  /** Pi's agent directory (absolute), where `auth.json` lives. */
  readonly agentDir: string
  /** User-level exact exceptions: each exempts one exact path from the built-in rules (not its descendants). */
  readonly exceptions?: ReadonlyArray<string> | undefined
  /**
   * Extra protections (user or project level; a project may only add): an absolute path protects itself and what is
   * under it; a pattern without a slash (`secrets.yaml`, `*.sqlite`) protects every file of that name. `*` matches
   * any run of characters other than `/`.
   */
  readonly extraProtections?: ReadonlyArray<string> | undefined
  /**
   * What a background task may read at all (src/safety/readScope.ts); the rules here apply inside it. Absent for a
   * check with no task (the main agent's tools).
   */
  readonly scope?: ReadScope | undefined
}

/** Not protected, with no content check asked. */
export const NOT_PROTECTED = { protected: false } as const
export const protectedBecause = (reason: string): Protection => ({ protected: true, reason })

/** `/a/b/` -> `/a/b`, `/a//b/../c` -> `/a/c`; the root stays `/`. */
export const normalizeAbsolute = (p: string): string => {
  const n = path.posix.normalize(p)
  return n.length > 1 && n.endsWith("/") ? n.slice(0, -1) : n
}

/**
 * Is `p` equal to `dir` or under it? The argument order of `isWithin` (src/safety/toolPath.ts), but not its check,
 * on purpose: protection must hold on case-insensitive file systems, so the comparison ignores case; it is textual
 * on POSIX paths both already normalized (normalizeAbsolute), whatever the platform; and any name below `dir`
 * counts, `dir/..x` included. `isWithin` resolves, compares exactly and counts `dir/..x` as outside.
 */
const isWithinIgnoringCase = (dir: string, p: string): boolean => {
  const a = p.toLowerCase()
  const b = dir.toLowerCase()
  return a === b || (b === "/" ? a.startsWith("/") : a.startsWith(`${b}/`))
}

/** `.env`, `.env.local`, `.env.production` are protected; `.env.example`, `.env.sample`, `.env.template` are not. */
const ENV_FILE = /^\.env(?:\.[^/]{1,200})?$/
const ENV_TEMPLATE = /\.(?:example|sample|template)$/

/** SSH private keys by name: `id_rsa`, `id_ed25519_sk`, `id_rsa.bak`; not `id_rsa.pub`, not `id_map.ts`. */
const SSH_KEY_NO_EXTENSION = /^id_[a-z0-9_-]{1,64}$/
const SSH_KEY_WITH_EXTENSION = /^id_(?:rsa|dsa|ecdsa|ed25519|xmss)(?:_sk)?(?:[._-][^/]{0,64})?$/

const KEY_EXTENSIONS = /\.(?:pem|key|p12|pfx)$/

/** Directories under the home directory that hold credentials and nothing a memory task needs. */
const HOME_CREDENTIAL_DIRS: ReadonlyArray<readonly [string, string]> = [
  [".ssh", "SSH keys and configuration"],
  [".aws", "AWS credentials"],
  [".azure", "Azure credentials"],
  [".gnupg", "GnuPG keys"],
  [".kube", "Kubernetes credentials"],
  [".config/gcloud", "Google Cloud credentials"],
  [".config/gh", "GitHub CLI tokens"]
]

/** Single files under the home directory that hold credentials. */
const HOME_CREDENTIAL_FILES: ReadonlyArray<readonly [string, string]> = [
  [".git-credentials", "git's stored passwords and tokens"],
  [".docker/config.json", "Docker registry logins"],
  [".pypirc", "PyPI upload passwords"],
  [".netrc", "login passwords"],
  [".pgpass", "PostgreSQL passwords"]
]

/** File names that hold credentials wherever they are. */
const CREDENTIAL_NAMES: ReadonlyMap<string, string> = new Map([
  [".git-credentials", "git's stored passwords and tokens"],
  [".pgpass", "PostgreSQL passwords"],
  [".credentials", "credentials"],
  ["credentials.json", "credentials"],
  ["docker-config.json", "Docker registry logins"]
])

/** `/proc/<pid>/environ` (also under `task/<tid>/`, and `self`, `thread-self`): the environment of a process. */
const PROC_ENVIRON = /^\/proc\/(?:[^/]{1,64}\/){1,4}environ$/i

/**
 * Absolute places that hold credentials, for a search over a whole tree (`grep -r ROOT`): the ROOT may not hold
 * any of them. Name rules (`.env`, `id_*`) are not places; what they protect inside a searched tree is left to the
 * sandbox under the background shell.
 */
export const protectedPlaces = (options: ProtectionOptions): ReadonlyArray<readonly [string, string]> => {
  const home = normalizeAbsolute(options.home)
  const agentDir = normalizeAbsolute(options.agentDir)
  const places: Array<readonly [string, string]> = []
  for (const [dir, what] of [...HOME_CREDENTIAL_DIRS, ...HOME_CREDENTIAL_FILES]) places.push([path.posix.join(home, dir), what])
  for (const name of ["auth.json", "models.json"]) places.push([path.posix.join(agentDir, name), "Pi's provider credentials"])
  places.push(["/proc", "the environment of every process (/proc/*/environ)"])
  for (const entry of options.extraProtections ?? []) {
    if (entry.startsWith("/")) places.push([normalizeAbsolute(entry), `protected by the configuration (${entry})`])
  }
  return places
}

/**
 * Would a search of everything under `root` reach a protected place? The root itself counts (a protected file or a
 * folder inside a protected one), and so does every folder that holds one (`~`, `/home`, `/`).
 */
export const protectedUnder = (root: string, options: ProtectionOptions): string | undefined => {
  const r = normalizeAbsolute(root)
  const own = isProtectedPath(r, options)
  if (own.protected) return own.reason
  for (const [place, what] of protectedPlaces(options)) {
    if (isWithinIgnoringCase(r, place) || isWithinIgnoringCase(place, r)) return `${r} holds ${place} (${what}), and the search would read everything under it`
  }
  return undefined
}

const globToRegExp = (glob: string): RegExp =>
  new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`, "i")

/** The built-in rules, without exceptions. */
const builtIn = (p: string, options: ProtectionOptions): Protection => {
  const home = normalizeAbsolute(options.home)
  const agentDir = normalizeAbsolute(options.agentDir)
  for (const [dir, what] of HOME_CREDENTIAL_DIRS) {
    const full = normalizeAbsolute(path.posix.join(home, dir))
    if (isWithinIgnoringCase(full, p)) return protectedBecause(`${p} is in ~/${dir}, which holds ${what}`)
  }
  for (const [file, what] of HOME_CREDENTIAL_FILES) {
    const full = path.posix.join(home, file)
    if (p.toLowerCase() === full.toLowerCase()) return protectedBecause(`${p} is ~/${file}, which holds ${what}`)
  }
  if (PROC_ENVIRON.test(p)) return protectedBecause(`${p} is a process environment, which holds the agent's API keys`)
  for (const name of ["auth.json", "models.json"]) {
    if (p.toLowerCase() === path.posix.join(agentDir, name).toLowerCase()) {
      return protectedBecause(`${p} is Pi's ${name}, which holds provider credentials`)
    }
  }
  const base = path.posix.basename(p).toLowerCase()
  if (ENV_FILE.test(base) && !ENV_TEMPLATE.test(base)) return protectedBecause(`${p} is an environment file (.env), which holds secrets`)
  if (SSH_KEY_NO_EXTENSION.test(base) || (SSH_KEY_WITH_EXTENSION.test(base) && !base.endsWith(".pub"))) {
    return protectedBecause(`${p} looks like an SSH private key (id_*)`)
  }
  if (KEY_EXTENSIONS.test(base)) return protectedBecause(`${p} is a key or certificate store (${path.posix.extname(base)})`)
  if (p.split("/").some((seg) => seg.toLowerCase() === "private-keys-v1.d")) return protectedBecause(`${p} is in a GnuPG private key folder`)
  const named = CREDENTIAL_NAMES.get(base)
  if (named !== undefined) return protectedBecause(`${p} is a ${base} file, which holds ${named}`)
  if (base === ".envrc") return protectedBecause(`${p} is a direnv file (.envrc), which usually exports secrets`)
  if (base === ".netrc" || base === "_netrc") return protectedBecause(`${p} is a .netrc file, which holds login passwords`)
  if (base === ".npmrc") return { protected: false, contentCheck: "npmrc" }
  if (base === ".pypirc") return { protected: false, contentCheck: "pypirc" }
  return NOT_PROTECTED
}

const extra = (p: string, options: ProtectionOptions): Protection => {
  for (const entry of options.extraProtections ?? []) {
    if (entry.startsWith("/")) {
      if (isWithinIgnoringCase(normalizeAbsolute(entry), p)) return protectedBecause(`${p} is protected by the configuration (${entry})`)
    } else if (entry !== "" && !entry.includes("/") && globToRegExp(entry).test(path.posix.basename(p))) {
      return protectedBecause(`${p} is protected by the configuration (${entry})`)
    }
  }
  return NOT_PROTECTED
}

/** Checks one absolute path, in one Unicode form. */
const checkForm = (p: string, options: ProtectionOptions): Protection => {
  const added = extra(p, options)
  if (added.protected) return added
  const exempt = (options.exceptions ?? []).some((e) => e.startsWith("/") && sameForm(normalizeAbsolute(e), p))
  if (exempt) return NOT_PROTECTED
  return builtIn(p, options)
}

const sameForm = (a: string, b: string): boolean => a.normalize("NFC") === b.normalize("NFC")

/**
 * Checks one absolute path as given and in both Unicode normal forms (NFC, NFD): a file system may store a name in
 * either, and Pi's read tool retries a missing name in NFD. The first refusal wins.
 */
const checkOne = (absPath: string, options: ProtectionOptions): Protection => {
  if (!absPath.startsWith("/")) return protectedBecause(`${absPath} is not an absolute path; resolve it before checking`)
  const p = normalizeAbsolute(absPath)
  const first = checkForm(p, options)
  if (first.protected || /^[\x00-\x7f]*$/.test(p)) return first
  for (const form of [p.normalize("NFC"), p.normalize("NFD")]) {
    if (form === p) continue
    const other = checkForm(form, options)
    if (other.protected) return other
  }
  return first
}

/**
 * May a background task open `absPath`? When the path exists, pass its real path (symlinks resolved) as `realPath`:
 * both must pass, so a link to `~/.ssh/id_rsa` named `notes.txt` is refused, and so is a link named `.env` to a
 * harmless file. Project additions always apply; a user exception exempts one exact path from the built-in rules.
 */
export const isProtectedPath = (absPath: string, options: ProtectionOptions, realPath?: string): Protection => {
  const requested = checkOne(absPath, options)
  if (requested.protected || realPath === undefined || normalizeAbsolute(realPath) === normalizeAbsolute(absPath)) return requested
  const real = checkOne(realPath, options)
  if (real.protected) return protectedBecause(`${absPath} resolves to ${normalizeAbsolute(realPath)}: ${real.reason}`)
  return requested.contentCheck !== undefined ? requested : real
}
