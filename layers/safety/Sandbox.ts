/**
 * Sandbox: the OS sandbox (`@anthropic-ai/sandbox-runtime`: bubblewrap on Linux, sandbox-exec on macOS) that every
 * command of the background `bash` tool, and the `rg` behind its `grep`, runs in. The policy is
 * src/safety/sandboxFilesystem.ts and sandboxProcess.ts: only the task's read scope visible, read-only, no network, the credential
 * stores unreadable, a scrubbed environment.
 *
 * The runtime is one per process (its manager is a global). The first open session loads, checks and initialises
 * it (a trial command proves that user namespaces work); the last session to close stops it, since it keeps the
 * process alive. A session's `availability` says whether commands can run sandboxed and, if not, why. A probe can be
 * injected (tests of an unavailable sandbox).
 *
 * `wrap` turns a shell command into the command line that runs it in the sandbox under one command's file-system
 * policy; the caller runs that line with `bash -c` (Pi's own local shell for bash, layers/background/tools/sandboxed.ts for
 * rg) in the scrubbed environment, in a process group of its own so that an interruption kills the sandbox with
 * everything in it.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { spawn } from "node:child_process"
import { homedir } from "node:os"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { systemReadPaths } from "../../src/safety/readScope.ts"
import { LOOKUP_ATTEMPTS, lookupMisses, type SandboxAvailability } from "../../src/safety/sandbox.ts"
import { HOME_STORES, type SandboxFilesystem } from "../../src/safety/sandboxFilesystem.ts"
import { withoutNetwork, withoutProxyVariables } from "../../src/safety/sandboxProcess.ts"
import { withBoundedTmpfs, withCommandLimits } from "../../src/safety/commandLimits.ts"
import { bwrapTakesSizeHere, onPath, socatLauncher } from "./sandboxHost.ts"

export class SandboxFailed extends Data.TaggedError("SandboxFailed")<{ readonly reason: string }> {
  override get message(): string {
    return `the OS sandbox failed: ${this.reason}`
  }
}

/** One holder's use of the sandbox: the runtime stays up until every session is closed. */
export interface SandboxSession {
  /** Whether commands can run sandboxed, and if not, why. */
  readonly availability: SandboxAvailability
  /**
   * The command line (for `bash -c`, started in the command's working directory) that runs `command` in the sandbox
   * under `filesystem`. Fails when the sandbox is unavailable.
   */
  readonly wrap: (command: string, filesystem: SandboxFilesystem, signal?: AbortSignal) => Effect.Effect<string, SandboxFailed>
  /** Ends this session; the last one to end stops the runtime (its proxy would keep the process alive). */
  readonly close: Effect.Effect<void>
}

export interface SandboxShape {
  /** Starts (or joins) the runtime: loaded, checked and initialised by the first open session. */
  readonly open: Effect.Effect<SandboxSession>
}

/** The availability alone: a session opened and closed at once (`pm status`, `pm doctor`). */
export const sandboxAvailability = (sandbox: SandboxShape): Effect.Effect<SandboxAvailability> =>
  Effect.acquireUseRelease(sandbox.open, (s) => Effect.succeed(s.availability), (s) => s.close)

// ---------------------------------------------------------------------------------------------------------------
// The runtime

type Runtime = typeof import("@anthropic-ai/sandbox-runtime")

/** The process-wide runtime, loaded and initialised by the first session, stopped when the last one closes. */
interface RuntimeState {
  readonly availability: SandboxAvailability
  readonly manager?: Runtime["SandboxManager"] | undefined
  /** The runtime's own folder: its helpers (the seccomp filter) run from there inside the sandbox. */
  readonly folder?: string | undefined
}
let runtime: Promise<RuntimeState> | undefined
let holders = 0
let stopping: Promise<void> = Promise.resolve()

const firstLine = (text: string): string => text.trim().split("\n")[0]?.slice(0, 300) ?? ""

const platformName = (): string => (process.platform === "darwin" ? "macos" : process.platform)

/**
 * `step`, tried again while it failed only because the runtime's `which` did not find tools that are on PATH (its
 * lookup timed out on a loaded machine): at most LOOKUP_ATTEMPTS times in all. `failures` reads a step's messages.
 */
const retryingLookups = async <A>(step: () => Promise<A>, failures: (outcome: A) => ReadonlyArray<string>): Promise<A> => {
  for (let attempt = 1; ; attempt++) {
    const outcome = await step()
    const missed = lookupMisses(failures(outcome))
    if (attempt >= LOOKUP_ATTEMPTS || missed === undefined || !missed.every((tool) => onPath(tool) !== undefined)) return outcome
  }
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/**
 * The runtime's line for `command`, closed to the network: on Linux by `--unshare-net` (src/safety/sandboxProcess.ts,
 * `withoutNetwork`), on macOS by the runtime's own profile with an empty allow list. The command starts with its
 * resource limits, and on Linux every tmpfs is size-bounded (src/safety/commandLimits.ts).
 */
const lineFor = async (
  manager: Runtime["SandboxManager"],
  command: string,
  custom?: Parameters<Runtime["SandboxManager"]["wrapWithSandbox"]>[2],
  signal?: AbortSignal
): Promise<string> => {
  const wrapped = await retryingLookups(
    () => manager.wrapWithSandbox(withCommandLimits(command), "bash", custom, signal).then((line) => ({ line }), (e: unknown) => ({ error: e })),
    (outcome) => ("error" in outcome ? [messageOf(outcome.error)] : [])
  )
  if ("error" in wrapped) throw wrapped.error
  const line = wrapped.line
  if (platformName() !== "linux") return line
  const closed = withoutNetwork(line)
  if (closed === undefined) throw new Error("the sandbox runtime's command line does not start with bubblewrap; refusing to run it")
  return withBoundedTmpfs(closed, bwrapTakesSizeHere())
}

/** Runs `true` in the sandbox: a kernel without user namespaces passes every check and fails here. */
const trial = (manager: Runtime["SandboxManager"], folder: string | undefined): Promise<string | undefined> =>
  lineFor(manager, "true", trialPolicy(folder)).then(
    (line) =>
      new Promise((resolve) => {
        const child = spawn("bash", ["-c", line], { stdio: ["ignore", "ignore", "pipe"], env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" } })
        let stderr = ""
        child.stderr.on("data", (d: Buffer) => void (stderr += d.toString()))
        child.on("error", (e) => resolve(e.message))
        child.on("close", (code) => resolve(code === 0 ? undefined : firstLine(stderr) || `a trial command exited with ${code}`))
      }),
    messageOf
  )

const loadRuntime = async (): Promise<RuntimeState> => {
  const platform = platformName()
  const unavailable = (reason: string): RuntimeState => ({ availability: { _tag: "Unavailable", platform, reason } })
  let loaded: Runtime
  try {
    loaded = await import("@anthropic-ai/sandbox-runtime")
  } catch (e) {
    return unavailable(`the sandbox runtime cannot be loaded: ${messageOf(e)}`)
  }
  const manager = loaded.SandboxManager
  if ((platform !== "linux" && platform !== "macos") || !manager.isSupportedPlatform()) {
    return unavailable(`no OS sandbox on ${platform}`)
  }
  const check = await retryingLookups(async () => manager.checkDependencies(), (c) => c.errors)
  if (check.errors.length > 0) return unavailable(check.errors.join("; "))
  const home = homedir()
  // The runtime adds SIGINT and SIGTERM listeners of its own, and a listener takes away Node's default of exiting on
  // the signal: the host's handling of Ctrl-C must stay the host's. Ours are removed again; the sessions stop the
  // runtime (and its exit handler, kept, cleans up at exit).
  const signals = ["SIGINT", "SIGTERM"] as const
  const before = signals.map((sig) => process.listeners(sig))
  try {
    await manager.initialize({
      // Linux: no allow list, so no proxy (the network goes with `--unshare-net`, see lineFor); macOS: an empty one.
      // The types ask for an allow list; the runtime (pinned) reads its absence as "no proxy", which the e2e test holds.
      network: platform === "linux"
        ? ({ deniedDomains: [] } as unknown as { allowedDomains: Array<string>; deniedDomains: Array<string> })
        : { allowedDomains: [], deniedDomains: [], strictAllowlist: true },
      filesystem: { denyRead: HOME_STORES.map((s) => join(home, s)), allowWrite: [], denyWrite: [] },
      // The host-side socat bridge the runtime always starts, run so that it dies with this process (./sandboxHost.ts).
      ...(platform === "linux" && socatLauncher() !== undefined ? { socatPath: socatLauncher() } : {}),
      // bubblewrap by its path: the runtime would otherwise look it up with `which` at every command.
      ...(platform === "linux" && onPath("bwrap") !== undefined ? { bwrapPath: onPath("bwrap") } : {})
    })
  } catch (e) {
    return unavailable(`the sandbox does not start: ${messageOf(e)}`)
  } finally {
    signals.forEach((sig, i) => {
      for (const listener of process.listeners(sig)) if (!before[i]!.includes(listener)) process.removeListener(sig, listener)
    })
  }
  const folder = runtimeFolder()
  const failed = await trial(manager, folder)
  if (failed !== undefined) {
    await manager.reset().catch(() => undefined)
    return unavailable(`the sandbox does not start: ${failed}`)
  }
  return { availability: { _tag: "Available", platform }, manager, folder }
}

/** The folder of the runtime's package (its `dist/index.js` is two levels down), or undefined. */
const runtimeFolder = (): string | undefined => {
  try {
    return dirname(dirname(createRequire(import.meta.url).resolve("@anthropic-ai/sandbox-runtime")))
  } catch {
    try {
      return dirname(dirname(fileURLToPath(import.meta.resolve("@anthropic-ai/sandbox-runtime"))))
    } catch {
      return undefined
    }
  }
}

/**
 * The trial's policy is a task's at its narrowest: `/` hidden, the system folders and the runtime's own shown. A
 * runtime whose helpers cannot be found again inside it fails here, once, instead of at every command.
 */
const trialPolicy = (folder: string | undefined) => {
  const literal = (p: string) => ({ path: p, literal: true as const })
  const shown = [...systemReadPaths(process.platform).filter((p) => existsSync(p)), ...(folder === undefined ? [] : [folder])]
  return { filesystem: { denyRead: [literal("/")], allowRead: shown.map(literal), allowWrite: [], denyWrite: [] } }
}

const hold = (): Promise<RuntimeState> => {
  holders++
  return (runtime ??= stopping.then(loadRuntime))
}

const letGo = (): void => {
  if (--holders > 0 || runtime === undefined) return
  const last = runtime
  runtime = undefined
  stopping = last.then((s) => s.manager?.reset()).then(() => undefined, () => undefined)
}

const literal = (p: string) => ({ path: p, literal: true as const })

/** The sandbox over the real runtime; `probe` replaces the platform check (tests, a forced unavailability). */
export const makeSandbox = (options: { readonly probe?: () => Promise<SandboxAvailability> } = {}): SandboxShape => ({
  open: Effect.promise(async (): Promise<SandboxSession> => {
    const probed = options.probe === undefined ? undefined : await options.probe()
    const state: RuntimeState = probed?._tag === "Unavailable" ? { availability: probed } : await hold()
    const held = probed?._tag !== "Unavailable"
    let closed = false
    return {
      availability: state.availability,
      wrap: (command, filesystem, signal) =>
        Effect.tryPromise({
          try: async () => {
            if (state.availability._tag === "Unavailable" || state.manager === undefined) {
              throw new Error(state.availability._tag === "Unavailable" ? state.availability.reason : "the sandbox runtime did not start")
            }
            if (closed) throw new Error("the sandbox session is closed")
            // A policy that hides `/` hides the runtime's own helpers too: they are shown again, read-only.
            const allowRead = filesystem.denyRead.includes("/") && state.folder !== undefined
              ? [...filesystem.allowRead, state.folder]
              : filesystem.allowRead
            return await lineFor(
              state.manager,
              withoutProxyVariables(command),
              {
                filesystem: {
                  denyRead: filesystem.denyRead.map(literal),
                  allowRead: allowRead.map(literal),
                  allowWrite: filesystem.allowWrite.map(literal),
                  denyWrite: filesystem.denyWrite.map(literal)
                }
              },
              signal
            )
          },
          catch: (e) => new SandboxFailed({ reason: messageOf(e) })
        }),
      close: Effect.sync(() => {
        if (closed) return
        closed = true
        if (held) letGo()
      })
    }
  })
})

/** The process-wide sandbox (the one the background tools use when none is given). */
let shared: SandboxShape | undefined
export const defaultSandbox = (): SandboxShape => (shared ??= makeSandbox())

export class Sandbox extends Context.Tag("pm/Sandbox")<Sandbox, SandboxShape>() {
  /** The real sandbox: the runtime is loaded at the first question, once per process. */
  static readonly layer: Layer.Layer<Sandbox> = Layer.sync(Sandbox, defaultSandbox)
  /** A sandbox whose availability is decided by `probe` (a test of an unavailable sandbox). */
  static readonly layerWith = (options: { readonly probe: () => Promise<SandboxAvailability> }): Layer.Layer<Sandbox> =>
    Layer.succeed(Sandbox, makeSandbox(options))
}
