/**
 * The OS sandbox under the background `bash` tool and the `rg` behind `grep`: pure policy, no I/O.
 *
 * - What the sandbox denies: the whole file system is read-only, there is no network, reads of the credential stores
 *   (the protected paths of src/safety/protectedPaths.ts, the user's `protectedPaths` included) are denied, and the child's
 *   environment holds no variable whose name or value looks like a credential.
 * - What happens when the sandbox cannot start (`sandbox.whenUnavailable`): `"refuse"` (the default) refuses the
 *   background `bash` tool with a reason the model can act on; `"guard-only"` runs it behind the guard alone.
 *
 * The layer (layers/safety/Sandbox.ts) probes the platform, walks the project for protected files and runs the commands.
 */
import * as path from "node:path"
import { isProtectedPath, type ProtectionOptions } from "./protectedPaths.ts"
import { detectSecrets } from "./secrets.ts"
import { secretNameStrength } from "./secrets/names.ts"

export type WhenUnavailable = "refuse" | "guard-only"
export const WHEN_UNAVAILABLE_VALUES: ReadonlyArray<WhenUnavailable> = ["refuse", "guard-only"]
export const DEFAULT_WHEN_UNAVAILABLE: WhenUnavailable = "refuse"

/** Whether the OS sandbox can run commands on this machine, and if not, why. */
export type SandboxAvailability =
  | { readonly _tag: "Available"; readonly platform: "linux" | "macos" }
  | { readonly _tag: "Unavailable"; readonly platform: string; readonly reason: string }

/** The mode the background shell runs in: the availability and the user's choice together. */
export type SandboxMode = "sandbox" | "refuse" | "guard-only"

export const sandboxMode = (availability: SandboxAvailability, whenUnavailable: WhenUnavailable): SandboxMode =>
  availability._tag === "Available" ? "sandbox" : whenUnavailable

/** How to get the sandbox on this platform. */
export const sandboxInstallHint = (platform: string): string =>
  platform === "linux"
    ? "install bubblewrap and socat (Debian/Ubuntu: `apt-get install bubblewrap socat`; Fedora: `dnf install bubblewrap socat`) and make sure unprivileged user namespaces are enabled"
    : platform === "macos" || platform === "darwin"
    ? "macOS runs the sandbox with its built-in sandbox-exec; check that /usr/bin/sandbox-exec is present"
    : `no OS sandbox is supported on ${platform}; set "sandbox": { "whenUnavailable": "guard-only" } in config.json to run the background shell behind the guard alone`

/** One line for `pm status`, `pm doctor`, `/memory status` and `pm bash-check`. */
export const sandboxModeLine = (availability: SandboxAvailability, whenUnavailable: WhenUnavailable): string => {
  const mode = sandboxMode(availability, whenUnavailable)
  if (availability._tag === "Available") {
    const how = availability.platform === "linux" ? "bubblewrap" : "sandbox-exec"
    return `sandbox: on (${how}): background bash and grep run read-only, without network, credential stores unreadable`
  }
  const hint = sandboxInstallHint(availability.platform)
  return mode === "refuse"
    ? `sandbox: unavailable (${availability.reason}); the background bash tool is refused (sandbox.whenUnavailable: "refuse"). To get the sandbox: ${hint}`
    : `sandbox: unavailable (${availability.reason}); background bash runs behind the guard alone (sandbox.whenUnavailable: "guard-only"). To get the sandbox: ${hint}`
}

/** What the model is told when the background `bash` tool is refused because the sandbox cannot start. */
export const bashUnavailableRefusal = (availability: SandboxAvailability): string =>
  "Refused: the background bash tool runs only inside the OS sandbox, and the sandbox cannot start on this machine" +
  (availability._tag === "Unavailable" ? ` (${availability.reason})` : "") +
  ". Use the read, find and grep tools instead; they work without it."

// ---------------------------------------------------------------------------------------------------------------
// File system

/**
 * Credential stores that are denied wherever they are, whether they exist yet or not (relative to the home
 * directory). The name rules of src/safety/protectedPaths.ts (`.env`, `id_*`, `*.pem` ...) are applied to the files found
 * in the searched trees (`protectedFilesIn`).
 */
export const HOME_STORES: ReadonlyArray<string> = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".config/gcloud",
  ".config/gh",
  ".git-credentials",
  ".docker/config.json",
  ".kube",
  ".netrc",
  "_netrc",
  ".pgpass",
  ".pypirc",
  ".npmrc",
  ".azure",
  ".password-store",
  // The sandbox runtime leaves these two writable unless a read rule names them; denying them keeps the file
  // system read-only everywhere.
  ".npm/_logs",
  ".claude/debug"
]

export interface SandboxFilesystem {
  readonly denyRead: ReadonlyArray<string>
  readonly allowRead: ReadonlyArray<string>
  readonly allowWrite: ReadonlyArray<string>
  readonly denyWrite: ReadonlyArray<string>
}

/**
 * Is a file found in a searched tree denied to the sandbox? Every rule of src/safety/protectedPaths.ts, and a config whose
 * protection depends on its content (`.npmrc`, `.pypirc`) is denied without reading it.
 */
export const deniedInSandbox = (absolutePath: string, protection: ProtectionOptions): boolean => {
  const verdict = isProtectedPath(absolutePath, protection)
  return verdict.protected || verdict.contentCheck !== undefined
}

/**
 * The file-system policy of one sandboxed command: nothing writable; the home stores, Pi's `auth.json` and
 * `models.json`, the user's absolute extra protections and the protected files found are unreadable. The user's
 * exceptions (exact paths) are taken out of the list.
 */
export const sandboxFilesystem = (protection: ProtectionOptions, found: ReadonlyArray<string>): SandboxFilesystem => {
  const exceptions = new Set((protection.exceptions ?? []).map((e) => path.posix.normalize(e)))
  const deny = new Set<string>()
  for (const store of HOME_STORES) deny.add(path.posix.join(protection.home, store))
  deny.add(path.posix.join(protection.agentDir, "auth.json"))
  deny.add(path.posix.join(protection.agentDir, "models.json"))
  for (const entry of protection.extraProtections ?? []) if (entry.startsWith("/")) deny.add(path.posix.normalize(entry))
  for (const file of found) deny.add(path.posix.normalize(file))
  return {
    denyRead: [...deny].filter((p) => !exceptions.has(p)).sort(),
    allowRead: [],
    allowWrite: [],
    denyWrite: []
  }
}

/** Directories a search for protected files does not descend into: large, and never where credentials are kept. */
export const SEARCH_SKIPS: ReadonlySet<string> = new Set(["node_modules", ".git", ".hg", ".svn"])

// ---------------------------------------------------------------------------------------------------------------
// Environment

/** Names that carry access even when the detector has no word for them (an agent socket, a proxy with a login). */
const ACCESS_NAMES = /(?:^|_)(?:AUTH|CREDENTIALS?|COOKIES?|PASSWD|ASKPASS|SOCK)(?:_|$)|PROXY/i

/** Shell variables whose names read like a password's abbreviation but hold a folder. */
const FOLDER_NAMES: ReadonlySet<string> = new Set(["PWD", "OLDPWD"])

/** Does one variable look like a credential, by its name or its value? */
export const credentialVariable = (name: string, value: string): boolean =>
  (!FOLDER_NAMES.has(name) && secretNameStrength(name) !== "none") || ACCESS_NAMES.test(name) || detectSecrets(`${name}=${value}`).length > 0 ||
  detectSecrets(value).length > 0

/** The environment a sandboxed command gets: the given one without any variable that looks like a credential. */
export const scrubEnvironment = (env: Readonly<Record<string, string | undefined>>): Record<string, string> => {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || credentialVariable(name, value)) continue
    kept[name] = value
  }
  return kept
}

/**
 * Variables the sandbox runtime sets inside the sandbox for its network proxy (which, with no domain allowed, only
 * ever refuses). They carry the proxy's password and are useless without network, so the command starts without them.
 */
export const RUNTIME_PROXY_VARIABLES: ReadonlyArray<string> = [
  "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy", "GRPC_PROXY", "grpc_proxy",
  "FTP_PROXY", "ftp_proxy", "RSYNC_PROXY", "DOCKER_HTTP_PROXY", "DOCKER_HTTPS_PROXY", "NO_PROXY", "no_proxy",
  "CLOUDSDK_PROXY_TYPE", "CLOUDSDK_PROXY_ADDRESS", "CLOUDSDK_PROXY_PORT", "CLOUDSDK_PROXY_USERNAME",
  "CLOUDSDK_PROXY_PASSWORD", "GIT_SSH_COMMAND", "GIT_CONFIG_PARAMETERS", "JAVA_TOOL_OPTIONS",
  "CLAUDE_CODE_HOST_HTTP_PROXY_PORT", "CLAUDE_CODE_HOST_SOCKS_PROXY_PORT"
]

/** The command as the sandbox runs it: the runtime's proxy variables unset first (a line of its own). */
export const withoutProxyVariables = (command: string): string => `unset ${RUNTIME_PROXY_VARIABLES.join(" ")}\n${command}`

/** A word quoted for a POSIX shell. */
export const shellQuote = (word: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'"'"'`)}'`)

/**
 * On Linux the runtime's network filter is a proxy reached over sockets bridged into the sandbox (socat inside,
 * waited for at every start); with nothing to allow, the sandbox needs no proxy, only no network. So the runtime is
 * given no allow list (no proxy is started, nothing is bridged) and bubblewrap's line gets `--unshare-net` here: the
 * command runs in a network namespace of its own with nothing but a loopback. A line that does not start with
 * bubblewrap is not one this knows how to close: undefined, and the caller refuses to run it.
 */
export const withoutNetwork = (line: string): string | undefined => {
  const m = /^((?:\S*\/)?bwrap) /.exec(line)
  return m === null ? undefined : `${m[1]} --unshare-net ${line.slice(m[0].length)}`
}
