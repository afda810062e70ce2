/**
 * What `pm extract` runs once a job waits (cli/extract.ts imports it then): the extension's own background graph
 * (layers/app/ExtensionApp.ts) with pm's pieces in place of the host's: a Host for this directory with no branch
 * (trusted as Pi would trust a session here; notifications as sentences on stderr), Pi's model runtime as the
 * registry (cli/PiModelRuntime.ts, as `pm recall` has it), Pi's own module for the tools (cli/piHost.ts), and no
 * status line. The background session starts as a session would and runs the queue (sessionDrain.ts).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { randomUUID } from "node:crypto"
import { extensionLayer } from "../layers/app/ExtensionApp.ts"
import { BackgroundHost, BackgroundSession } from "../layers/background/BackgroundSession.ts"
import { PiToolkit } from "../layers/background/PiToolkit.ts"
import type { DrainNowResult } from "../layers/background/sessionDrain.ts"
import type { RunRecord } from "../src/background/runs.ts"
import { ModelRegistry } from "../layers/model/ModelRegistry.ts"
import { Host, type HostShape } from "../layers/session/Host.ts"
import { extensionsFromEnv, loadPiModelBackend } from "./PiModelRuntime.ts"
import { importPiHost } from "./piHost.ts"

const stderrLine = (line: string) => Effect.sync(() => void process.stderr.write(`${line.replace(/\s*\n\s*/g, " ")}\n`))

/** The session pm stands in for: this directory, no branch, Pi's trust as the files say, sentences on stderr. */
const pmHost = (cwd: string, trusted: boolean): HostShape => {
  const session = `pm-extract-${randomUUID()}`
  return {
    cwd: Effect.succeed(cwd),
    sessionId: Effect.succeed(session),
    isTrusted: Effect.succeed(trusted),
    isIdle: Effect.succeed(true),
    branch: Effect.succeed([]),
    entries: Effect.succeed([]),
    notify: (message, level) => stderrLine(level === "info" ? `pm: ${message}` : `pm: ${level}: ${message}`),
    appendEntry: () => Effect.void,
    sendHidden: () => Effect.void
  }
}

export interface DrainRequest {
  readonly dir: string
  readonly agentDir: string
  readonly trusted: boolean
  /** How long to wait while another process runs the queue. */
  readonly waitMs: number
  /** What the lock files say holds them (default: pm extract). */
  readonly lockKind?: string
}

/** Pi's session folder for this project, where a dream reads the sessions it counts and consolidates. */
export interface SessionFolder {
  readonly dir: string
  /** Not the folder Pi picks for this cwd by default: it may hold other projects' sessions. */
  readonly shared: boolean
}

/** Runs `use` with a started background session of the extension's graph, as a session of `dir` would have it. */
const withBackground = <A>(
  r: { readonly dir: string; readonly agentDir: string; readonly trusted: boolean; readonly sessionFolder?: SessionFolder | undefined },
  use: (bg: BackgroundSession["Type"]) => Effect.Effect<A>
): Effect.Effect<A, { readonly message: string }> =>
  Effect.gen(function* () {
    const pi = yield* Effect.tryPromise({ try: () => importPiHost(), catch: (e) => ({ message: e instanceof Error ? e.message : String(e) }) })
    const models = ModelRegistry.layerOnFirstUse(
      Effect.flatMap(extensionsFromEnv(), (extensions) => loadPiModelBackend({ agentDir: r.agentDir, cwd: r.dir, extensions }))
    )
    const folder = r.sessionFolder
    const layer = extensionLayer({
      host: Layer.succeed(Host, pmHost(r.dir, r.trusted)),
      models,
      toolkit: PiToolkit.layer(pi),
      background: folder === undefined
        ? BackgroundHost.layerNoop
        : Layer.succeed(BackgroundHost, { setStatus: () => Effect.void, codemode: Effect.succeed(undefined), sessionDir: Effect.succeed(folder) }),
      holderKind: "pm extract"
    })
    return yield* Effect.gen(function* () {
      const bg = yield* BackgroundSession
      yield* bg.start
      return yield* use(bg)
    }).pipe(Effect.provide(layer), Effect.scoped)
  })

/** Runs the project's queue in the background graph, as a session of `dir` would, and waits for it. */
export const drainProject = (r: DrainRequest): Effect.Effect<DrainNowResult, { readonly message: string }> =>
  withBackground(r, (bg) =>
    bg.drainNow({
      waitMs: r.waitMs,
      lockKind: r.lockKind ?? "pm extract",
      onWait: (holder) => stderrLine(`pm: waiting for ${holder}, which runs this project's queue`)
    }))

/**
 * The dream a session of `dir` would start after a settled turn, when it is due (time, then the sessions of
 * `sessionFolder` since the last attempt); undefined when it is not due or the dream is switched off.
 */
export const dreamIfDue = (r: {
  readonly dir: string
  readonly agentDir: string
  readonly trusted: boolean
  readonly sessionFolder: SessionFolder
}): Effect.Effect<RunRecord | undefined, { readonly message: string }> => withBackground(r, (bg) => bg.dreamIfDue)
