/**
 * The OS sandbox under the background `bash` tool and the `rg` behind `grep`: whether it runs here, and what happens
 * when it cannot start (`sandbox.whenUnavailable`): `"refuse"` (the default) refuses the background `bash` tool with a
 * reason the model can act on; `"guard-only"` runs it behind the guard alone. Pure, no I/O.
 *
 * What the sandbox denies: only the task's read scope is visible, read-only, and reads of the credential stores in it are denied
 * (src/safety/sandboxFilesystem.ts); there is no network, and the child's environment holds no variable that looks
 * like a credential (src/safety/sandboxProcess.ts). The layer (layers/safety/Sandbox.ts) probes the platform, walks
 * the project for protected files and runs the commands.
 */

export type WhenUnavailable = "refuse" | "guard-only"
export const WHEN_UNAVAILABLE_VALUES: ReadonlyArray<WhenUnavailable> = ["refuse", "guard-only"]
export const DEFAULT_WHEN_UNAVAILABLE: WhenUnavailable = "refuse"

/** Whether the OS sandbox can run commands on this machine, and if not, why. */
export type SandboxAvailability =
  | { readonly _tag: "Available"; readonly platform: "linux" | "macos" }
  | { readonly _tag: "Unavailable"; readonly platform: string; readonly reason: string }

/** The mode the background shell runs in: the availability and the user's choice together. */
export type SandboxMode = "sandbox" | "refuse" | "guard-only"
export const SANDBOX_MODES: ReadonlyArray<SandboxMode> = ["sandbox", "refuse", "guard-only"]

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
    return `sandbox: on (${how}): background bash and grep see only their project and memory, read-only, without network, credential stores unreadable`
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

/**
 * The sandbox runtime finds bash, bubblewrap, socat and ripgrep by running `which` with a one-second timeout, so on a
 * loaded machine a lookup can time out and a tool that is installed reads as missing. A step that failed only so is
 * tried again (layers/safety/Sandbox.ts), at most this many times in all.
 */
export const LOOKUP_ATTEMPTS = 3

const LOOKUP_MISS = [
  /^Shell '([^']+)' not found in PATH$/,
  /^bubblewrap \(([^)]+)\) not installed$/,
  /^(socat) not installed$/,
  /^ripgrep \(([^)]+)\) not found$/
]

/**
 * The tools that the runtime's `messages` say it could not find, or undefined when there is no message or one of them
 * says anything else (a failure that trying again would not mend).
 */
export const lookupMisses = (messages: ReadonlyArray<string>): ReadonlyArray<string> | undefined => {
  if (messages.length === 0) return undefined
  const tools: Array<string> = []
  for (const message of messages) {
    const tool = LOOKUP_MISS.map((p) => p.exec(message.trim())?.[1]).find((t) => t !== undefined)
    if (tool === undefined) return undefined
    tools.push(tool)
  }
  return tools
}
