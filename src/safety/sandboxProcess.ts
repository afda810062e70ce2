/**
 * What a sandboxed child process starts with: an environment without any variable that looks like a credential, a
 * command with the runtime's proxy variables unset, and a bubblewrap line with no network. Pure, no I/O.
 */
import { detectSecrets } from "./secrets.ts"
import { secretNameStrength } from "./secrets/names.ts"

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
