/**
 * The sandbox line of `pm status`, from what is cheap to know: whether the programs the OS sandbox needs are on PATH
 * (bubblewrap and socat on Linux, sandbox-exec on macOS) and how the newest background run that reached its tools
 * ran its bash (its run record's `sandbox`). Nothing is started: the sandbox's runtime, its bridge and a trial
 * command are `pm doctor`'s (cli/status.ts), which tells a sandbox that is installed from one that starts.
 */
import { accessSync, constants } from "node:fs"
import { delimiter, join } from "node:path"
import type { RunHistory } from "../src/background/runHistory.ts"
import type { RunRecord } from "../src/background/runs.ts"
import { SANDBOX_MODES, type SandboxAvailability, type SandboxMode, sandboxModeLine, type WhenUnavailable } from "../src/safety/sandbox.ts"
import { ago } from "./output.ts"

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** Is `program` an executable file in one of PATH's folders? */
const onPath = (program: string, env: NodeJS.ProcessEnv): boolean =>
  (env["PATH"] ?? "").split(delimiter).some((dir) => dir !== "" && executable(join(dir, program)))

/**
 * Whether the OS sandbox's programs are here, in the words of the sandbox runtime's own check (layers/safety/Sandbox.ts
 * reports those when it cannot start). "Available" means installed, not tried.
 */
export const sandboxPrograms = (env: NodeJS.ProcessEnv = process.env, platform: string = process.platform): SandboxAvailability => {
  if (platform === "linux") {
    const missing = [
      ...(onPath("bwrap", env) ? [] : ["bubblewrap (bwrap) not installed"]),
      ...(onPath("socat", env) ? [] : ["socat not installed"])
    ]
    return missing.length === 0 ? { _tag: "Available", platform: "linux" } : { _tag: "Unavailable", platform: "linux", reason: missing.join("; ") }
  }
  if (platform === "darwin") {
    return executable("/usr/bin/sandbox-exec")
      ? { _tag: "Available", platform: "macos" }
      : { _tag: "Unavailable", platform: "macos", reason: "/usr/bin/sandbox-exec not found" }
  }
  return { _tag: "Unavailable", platform, reason: `no OS sandbox on ${platform}` }
}

/** The newest run whose record says how its bash ran (a run stopped before its tools has no say). */
export const lastSandboxUse = (recent: RunHistory): (RunRecord & { readonly sandbox: SandboxMode }) | undefined => {
  let last: (RunRecord & { readonly sandbox: SandboxMode }) | undefined
  for (const r of recent) {
    const mode = r.sandbox
    if (mode === undefined || !SANDBOX_MODES.includes(mode)) continue
    if (last === undefined || r.at >= last.at) last = r as RunRecord & { readonly sandbox: SandboxMode }
  }
  return last
}

const USED: Record<SandboxMode, string> = {
  sandbox: "ran its bash in the sandbox",
  refuse: "was refused its bash: the sandbox did not start",
  "guard-only": "ran its bash behind the guard alone, without the sandbox"
}

/** The line after `Sandbox:`: the programs, what the mode would be, and what the last background run did. */
export const sandboxStatusLine = (
  programs: SandboxAvailability,
  whenUnavailable: WhenUnavailable,
  recent: RunHistory,
  now: number
): string => {
  const mode = sandboxModeLine(programs, whenUnavailable).replace(/^sandbox: /, "")
  const installed = programs._tag === "Available"
    ? mode.replace(/^on \(([^)]*)\)/, "on ($1 installed; pm doctor starts it for a trial)")
    : mode
  const last = lastSandboxUse(recent)
  const used = last === undefined
    ? "no background run has used it yet"
    : `the last background run (${last.kind === "dream" ? "a dream" : "an extraction"}, ${ago(last.at, now)}) ${USED[last.sandbox]}`
  return `${installed}; ${used}`
}
