/**
 * What a background task may read: an allow-list, not a deny-list. A task reads its project's tree, its own memory
 * folder, what its job needs beyond that (the project's Pi sessions for the dream, the instruction files Pi loads for
 * the project) and the system folders programs need to run; nothing else of the machine. The same scope governs the
 * in-process tools (read, find, grep, write, edit) and the OS sandbox's mounts (src/safety/sandboxFilesystem.ts), and
 * the protected-path rules (src/safety/protectedPaths.ts) still apply inside it.
 *
 * Pure, no I/O: layers/safety/readScopeLoad.ts resolves the folders (symlinks, the worktree, which instruction files
 * exist) and every path checked here is absolute, normalized, and checked again after its symlinks are resolved.
 */
import * as path from "node:path"

export interface ReadScope {
  /** Folders read with everything under them: the project's tree(s), the memory folder, the dream's session folder. */
  readonly trees: ReadonlyArray<string>
  /** Single files: the instruction files Pi loads for this project (AGENTS.md, CLAUDE.md up the tree). */
  readonly files: ReadonlyArray<string>
  /** Folders programs need to run (binaries, libraries, system configuration): readable, never written. */
  readonly system: ReadonlyArray<string>
  /** The home folder: when a tree holds it, its dot entries (tool configs, credential stores) stay out. */
  readonly home: string
  /** Pi's agent folder: every project's sessions and memory live there, so only the task's own parts are in scope. */
  readonly agentDir: string
  /**
   * When a tree holds the home folder: its dot entries (listed again before each sandboxed command), which the
   * sandbox hides; outsideScope refuses them by rule.
   */
  readonly homeDotEntries: ReadonlyArray<string>
}

/** The folders a program needs to start and run (those that do not exist are left out). */
export const SYSTEM_READ_PATHS: ReadonlyArray<string> = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/nix/store"]

/**
 * What a program needs on macOS beyond them: the system's own folders, Homebrew's, the dynamic loader's cache and the
 * few devices a shell opens (on Linux the sandbox makes its own /dev). Not run by this project's tests (Linux).
 */
export const MACOS_SYSTEM_READ_PATHS: ReadonlyArray<string> = [
  "/System",
  "/Library/Apple/System",
  "/Library/Developer/CommandLineTools",
  "/opt/homebrew",
  "/usr/local",
  "/private/etc",
  "/private/var/db/dyld",
  "/private/var/db/timezone",
  "/dev/null",
  "/dev/urandom",
  "/dev/random"
]

/** The system folders of a platform (`process.platform`'s names). */
export const systemReadPaths = (platform: string): ReadonlyArray<string> =>
  platform === "darwin" ? [...SYSTEM_READ_PATHS, ...MACOS_SYSTEM_READ_PATHS] : SYSTEM_READ_PATHS

/** Inside the system folders, what holds secrets of the machine (password hashes, host keys, TLS private keys). */
export const SYSTEM_SECRET_PATHS: ReadonlyArray<string> = [
  "/etc/shadow",
  "/etc/shadow-",
  "/etc/gshadow",
  "/etc/gshadow-",
  "/etc/sudoers",
  "/etc/sudoers.d",
  "/etc/ssh",
  "/etc/ssl/private",
  "/etc/security/opasswd",
  "/etc/NetworkManager/system-connections",
  "/etc/wpa_supplicant",
  "/private/etc/master.passwd",
  "/private/etc/ssh"
]

/** The names Pi looks for, in each folder from the cwd up to the root and in its agent folder. */
export const INSTRUCTION_FILE_NAMES: ReadonlyArray<string> = ["AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"]

/** Every place an instruction file Pi loads for `cwd` may be (whether it exists is the caller's to check). */
export const instructionFileCandidates = (cwd: string, agentDir: string): ReadonlyArray<string> => {
  const dirs = [agentDir]
  for (let dir = path.posix.resolve(cwd); ; dir = path.posix.dirname(dir)) {
    dirs.push(dir)
    if (path.posix.dirname(dir) === dir) break
  }
  return dirs.flatMap((dir) => INSTRUCTION_FILE_NAMES.map((name) => path.posix.join(dir, name)))
}

/** `p` is `dir` or under it (both absolute and normalized; exact, as the file system compares on Linux). */
export const isAtOrUnder = (dir: string, p: string): boolean =>
  p === dir || (dir === "/" ? p.startsWith("/") : p.startsWith(`${dir}/`))

const normalize = (p: string): string => {
  const n = path.posix.normalize(p)
  return n.length > 1 && n.endsWith("/") ? n.slice(0, -1) : n
}

/** What the model is told a task may read. */
export const SCOPE_SENTENCE =
  "a background memory task reads only its project, its memory folder, what its job needs (this project's Pi sessions " +
  "for the dream, the instruction files Pi loads) and the system folders programs need"

/** A scope's folders in the form paths are compared in, made once per scope (the search asks for every entry). */
interface NormalizedScope {
  readonly files: ReadonlySet<string>
  readonly trees: ReadonlyArray<string>
  /** The task's own parts of the agent folder: the trees of the scope that lie inside it. */
  readonly ownAgentParts: ReadonlyArray<string>
  readonly system: ReadonlyArray<string>
  readonly agentDir: string
  readonly home: string
}

const normalized = new WeakMap<ReadScope, NormalizedScope>()

const normalizedOf = (scope: ReadScope): NormalizedScope => {
  const known = normalized.get(scope)
  if (known !== undefined) return known
  const agentDir = normalize(scope.agentDir)
  const trees = scope.trees.map(normalize)
  const made: NormalizedScope = {
    files: new Set(scope.files.map(normalize)),
    trees,
    ownAgentParts: trees.filter((t) => isAtOrUnder(agentDir, t)),
    system: scope.system.map(normalize),
    agentDir,
    home: normalize(scope.home)
  }
  normalized.set(scope, made)
  return made
}

/**
 * Why `absolutePath` is outside what a background task may read, or undefined when it is inside. A path inside a
 * tree is in scope unless it is another part of Pi's agent folder (other projects' sessions and memory) or, when
 * the tree holds the home folder, a dot entry at the home's top (where tools keep their settings and credentials).
 */
export const outsideScope = (absolutePath: string, scope: ReadScope): string | undefined => {
  if (!absolutePath.startsWith("/")) return `${absolutePath} is not an absolute path`
  const p = normalize(absolutePath)
  const refused = (what: string) => `${p} is ${what}; ${SCOPE_SENTENCE}`
  if (SYSTEM_SECRET_PATHS.some((s) => isAtOrUnder(s, p))) return refused("a system file that holds secrets of the machine")
  const { files, trees, ownAgentParts, system, agentDir, home } = normalizedOf(scope)
  if (files.has(p)) return undefined
  if (ownAgentParts.some((t) => isAtOrUnder(t, p))) return undefined
  for (const tree of trees) {
    if (!isAtOrUnder(tree, p)) continue
    if (isAtOrUnder(agentDir, p)) return refused("in Pi's agent folder, outside this task's own memory and sessions")
    if (isAtOrUnder(tree, home) && p !== home && isAtOrUnder(home, p)) {
      const first = p.slice(home.length + 1).split("/")[0] ?? ""
      if (first.startsWith(".")) return refused(`in ~/${first}, a settings folder of the home (not part of the project)`)
    }
    return undefined
  }
  if (system.some((s) => isAtOrUnder(s, p))) return undefined
  return refused("outside the task's project")
}
