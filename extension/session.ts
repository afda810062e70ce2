/**
 * The extension's session side, imported by the entry (extension/index.ts) on the first host event. It makes one
 * runtime over the extension's graph (layers/app/ExtensionApp.ts), giving it the host-backed pieces, and forwards host
 * events to MemorySession; it decides nothing itself. The graph is made on first use, in `session_start`, straight into
 * a scope of its own (no layer builder), and released with it at shutdown.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent"
import type * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import { type ExtensionServices, makeExtensionContext } from "../layers/app/ExtensionApp.ts"
import { withLogRecords } from "../layers/app/logRecords.ts"
import { BackgroundHost, BackgroundSession, statusKeyOf } from "../layers/background/BackgroundSession.ts"
import type { BackgroundHostShape } from "../layers/background/sessionState.ts"
import { withNotices } from "../layers/background/ChangeNotices.ts"
import { Host, type HostShape } from "../layers/session/Host.ts"
import { MemorySession } from "../layers/session/MemorySession.ts"
import { RECALL_MESSAGE } from "../layers/session/sessionShape.ts"
import { makeModelRegistry, ModelRegistry } from "../layers/model/ModelRegistry.ts"
import { PiToolkit, type PiToolkitShape } from "../layers/background/PiToolkit.ts"
import { toolCallWithoutSession } from "../layers/safety/ToolGuard.ts"
import { say } from "./say.ts"
import { inShellWords, MEMORY_COMMAND_DESCRIPTION } from "./commandInfo.ts"
import { MemoryBrowse } from "../layers/memory/MemoryBrowse.ts"
import { ConfigService } from "../layers/project/ConfigService.ts"
import { handsOffAtOnce } from "../src/background/queueWorker.ts"

/**
 * Whether a session in `mode` runs its project's queued extractions. Not a one-shot run (print or json mode): it ends
 * before a job does, so it would only start and stop one, and hold up its own extraction meanwhile.
 */
export const drainsQueue = (mode: ExtensionContext["mode"]): boolean => mode !== "print" && mode !== "json"

/** The latest handler context: Pi hands a fresh one to each handler, and old ones go stale after reload. */
interface ContextHolder {
  current: ExtensionContext | undefined
}

/**
 * A notification where the person looks: the UI's when there is one; without one (print mode, where Pi's notify does
 * nothing, and json mode) one line on stderr, which never mixes with the answer on stdout.
 */
export const notifyPerson = (ctx: ExtensionContext | undefined, message: string, level: "info" | "warning" | "error"): void => {
  if (ctx === undefined) return
  if (ctx.hasUI) return ctx.ui.notify(message, level)
  // Without a UI the person is at a shell (print mode): the commands a notice names are pm's.
  const line = (ctx.mode === "print" ? inShellWords(message) : message).replace(/\s*\n\s*/g, " ")
  // A print-mode run is one script step: the same warning twice in it (each turn's failing selector) is told once.
  if (level !== "info" && ctx.mode === "print") {
    if (toldInPrintMode.has(line)) return
    toldInPrintMode.add(line)
  }
  process.stderr.write(`${line}\n`)
}
const toldInPrintMode = new Set<string>()

const hostService = (pi: ExtensionAPI, holder: ContextHolder): HostShape => ({
    cwd: Effect.sync(() => holder.current?.cwd ?? process.cwd()),
    sessionId: Effect.sync(() => holder.current?.sessionManager.getSessionId() ?? "no-session"),
    isTrusted: Effect.sync(() => holder.current?.isProjectTrusted() ?? false),
    isIdle: Effect.sync(() => holder.current?.isIdle() ?? true),
    branch: Effect.sync(() => holder.current?.sessionManager.getBranch() ?? []),
    entries: Effect.sync(() => holder.current?.sessionManager.getEntries() ?? []),
    notify: (message, level) => Effect.sync(() => notifyPerson(holder.current, message, level)),
    appendEntry: (customType, data) => Effect.sync(() => pi.appendEntry(customType, data)),
    sendHidden: (customType, content, deliverAs) =>
      Effect.sync(() => pi.sendMessage({ customType, content, display: false }, { deliverAs }))
})

const modelRegistry = (holder: ContextHolder) =>
  makeModelRegistry(Effect.succeed({
    find: (provider, id) => holder.current?.modelRegistry.find(provider, id),
    fallback: () => holder.current?.model,
    complete: (model, context, options) => {
      const registry = holder.current?.modelRegistry
      return registry === undefined
        ? Promise.reject(new Error("no Pi session is active"))
        : registry.complete(model, context, options as never)
    }
  }))

/** The session folder of `ctx`'s session, undefined for an in-memory session (it keeps no files). */
const sessionFolderOf = (ctx: ExtensionContext | undefined): { readonly dir: string; readonly shared: boolean } | undefined => {
  const manager = ctx?.sessionManager as (ExtensionContext["sessionManager"] & { usesDefaultSessionDir?: () => boolean }) | undefined
  const dir = manager?.getSessionDir()
  // A directory Pi did not pick for this cwd may hold other projects' sessions.
  return dir === undefined || dir === "" ? undefined : { dir, shared: manager?.usesDefaultSessionDir?.() !== true }
}

const backgroundHostService = (pi: ExtensionAPI, holder: ContextHolder): BackgroundHostShape => ({
    setStatus: (kind, text) => Effect.sync(() => holder.current?.ui.setStatus(statusKeyOf(kind), text)),
    codemode: Effect.sync(() => {
      if (!pi.getActiveTools().includes("codemode")) return undefined
      const settings = (pi.getSettings() as { codemode?: { mode?: string; inlineBudget?: number } }).codemode
      return { mode: settings?.mode === "only" ? ("only" as const) : ("on" as const), inlineBudget: settings?.inlineBudget }
    }),
    sessionDir: Effect.sync(() => sessionFolderOf(holder.current))
})

/** The graph's runtime, made on the first call (session start) into a scope of its own; `dispose` closes that scope. */
const makeRuntime = (pi: ExtensionAPI, holder: ContextHolder, host: PiToolkitShape, clock: Clock.Clock | undefined) => {
  const scope = Effect.runSync(Scope.make())
  const make = Effect.gen(function* () {
    const pieces = Context.make(Host, hostService(pi, holder)).pipe(
      Context.add(ModelRegistry, yield* modelRegistry(holder)),
      Context.add(PiToolkit, host),
      Context.add(BackgroundHost, backgroundHostService(pi, holder))
    )
    return yield* Effect.provide(Effect.runtime<ExtensionServices>(), yield* makeExtensionContext(pieces))
  }).pipe(
    Scope.extend(scope),
    // Log records would land in Pi's terminal, through its TUI: quiet unless PM_LOG=1 (layers/app/logRecords.ts).
    withLogRecords(),
    (made) => (clock === undefined ? made : Effect.withClock(made, clock))
  )
  let made: Promise<Runtime.Runtime<ExtensionServices>> | undefined
  return {
    runPromise: <A, E>(effect: Effect.Effect<A, E, ExtensionServices>): Promise<A> =>
      (made ??= Effect.runPromise(make)).then((runtime) => Runtime.runPromise(runtime, effect)),
    dispose: (): Promise<void> => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

export interface ProjectMemoryOptions {
  /**
   * The time source of every Effect timer in the extension, the 2 s recall wait among them. Pi loads the default
   * export, which keeps the system clock; an embedding (or a test, with Effect's TestClock) may pass another.
   */
  readonly clock?: Clock.Clock
}

/**
 * Registers the handlers and the `/memory` command on `pi` (the entry passes an API that records them). `host` is the
 * Pi module as the entry imported it: the host's own copy, whatever the install form.
 */
export const bindSession = (pi: ExtensionAPI, host: PiToolkitShape, options: ProjectMemoryOptions = {}): void => {
  const holder: ContextHolder = { current: undefined }
  const runtime = makeRuntime(pi, holder, host, options.clock)
  const session = <A>(f: (s: typeof MemorySession.Service) => Effect.Effect<A, unknown>): Promise<A | undefined> =>
    runtime.runPromise(Effect.flatMap(MemorySession, f)).catch((error: unknown) => {
      const current = holder.current
      // In print mode there is no UI to notify: the warning goes to stderr.
      if (current !== undefined) say(current, `Project memory: ${error instanceof Error ? error.message : String(error)}`, "warning")
      return undefined
    })
  const background = <A>(f: (s: typeof BackgroundSession.Service) => Effect.Effect<A, unknown>): Promise<A | undefined> =>
    runtime.runPromise(Effect.flatMap(BackgroundSession, f)).catch(() => undefined)
  const hold = (ctx: ExtensionContext) => {
    holder.current = ctx
  }
  /** One stderr line: memory, switched on here, is off for this run because Pi does not trust the project. */
  const tellUntrusted = async (ctx: ExtensionContext) => {
    const status = await session((s) => s.status)
    if (status?.location === undefined) return
    const agentDir = await runtime.runPromise(Effect.map(ConfigService, (c) => c.agentDir))
    const [{ readProjectTrust }, { untrustedRunLine }] = await Promise.all([
      import("../layers/project/projectTrustFiles.ts"),
      import("../src/project/projectTrust.ts")
    ])
    notifyPerson(ctx, untrustedRunLine(readProjectTrust(agentDir, ctx.cwd)), "warning")
  }

  // The hook sees Pi's session messages (custom notices, summaries, bash runs among them); what the provider gets is
  // their conversion, done by Pi's own `convertToLlm`. A background fork reuses that prefix, so it captures the
  // converted form, byte for byte what the parent sent.
  const toLlm = host.convertToLlm as (messages: Array<any>) => Array<unknown>

  pi.on("session_start", async (_event, ctx) => {
    hold(ctx)
    // Independent of each other (each locates the project on its own): side by side, any git queries overlap.
    await Promise.all([session((s) => s.start), background((b) => b.start)])
    // A print-mode run in a project Pi does not trust (or was never asked about) would otherwise save and say nothing.
    if (ctx.mode === "print" && !ctx.isProjectTrusted()) await tellUntrusted(ctx)
    // Extractions handed over by sessions that ended first: run in the background, never before a prompt.
    if (drainsQueue(ctx.mode)) void background((b) => b.drainQueued)
  })
  // Change notices: the branch's records of background changes, placed as hidden messages where they happened.
  pi.on("context", (event, ctx) => {
    hold(ctx)
    if (!ctx.isProjectTrusted()) return undefined
    const messages = withNotices(event.messages, ctx.sessionManager.buildSessionProjection().entries as never)
    return messages === undefined ? undefined : { messages: messages as typeof event.messages }
  })
  pi.on("context_with_system", (event, ctx) => {
    hold(ctx)
    const m = ctx.model
    const messages = toLlm(event.messages as Array<any>)
    const model = m === undefined ? undefined : { provider: m.provider, api: m.api, id: m.id }
    void background((b) => b.captureRequest(messages, model))
    return undefined
  })
  pi.on("before_agent_start", async (event, ctx) => {
    hold(ctx)
    // Custom-message runs (ours or another extension's) are not user requests.
    if (event.messageType !== "user") return undefined
    const sections = (event.systemPromptOptions.sections ??= {})
    const result = await session((s) => s.beforeAgentStart({ prompt: event.prompt, sections }))
    return result === undefined ? undefined : { message: { customType: RECALL_MESSAGE, content: result.content, display: false } }
  })
  pi.on("message_end", (event, ctx) => {
    hold(ctx)
    const message = event.message
    void background((b) => b.messageEnded(message))
    if (message.role !== "user") return undefined
    const text = typeof message.content === "string" ? message.content : message.content.filter((c) => c.type === "text").map((c) => c.text).join("\n")
    void session((s) => s.userMessageEntered(text))
    return undefined
  })
  pi.on("agent_settled", async (event, ctx) => {
    hold(ctx)
    await session((s) => s.settled(event.aborted))
    // A one-shot run with a background worker starts no task of its own: its end hands the turn to the worker.
    if (!handsOffAtOnce(ctx.mode, process.env)) await background((b) => b.settled(event.aborted))
  })
  pi.on("session_before_compact", async (event, ctx) => {
    hold(ctx)
    await background((b) => b.beforeCompact(event.signal))
    return undefined
  })
  pi.on("tool_call", async (event, ctx) => {
    hold(ctx)
    const input = event.input as Record<string, unknown>
    // A throw here would block the tool, and `session` turns a failure into "allow": neither is used. A session that
    // cannot run at all (its layers failed) is decided without it, closed for whatever could touch memory.
    return runtime
      .runPromise(Effect.flatMap(MemorySession, (s) => s.toolCall(event.toolName, input)))
      .catch(() => toolCallWithoutSession(event.toolName, input, () => ctx.isProjectTrusted()))
  })
  pi.on("tool_result", async (event, ctx) => {
    hold(ctx)
    const patch = await session((s) =>
      s.toolResult({ toolName: event.toolName, input: event.input as Record<string, unknown>, content: event.content, details: event.details, isError: event.isError })
    )
    return patch === undefined ? undefined : { content: patch.content as typeof event.content }
  })
  pi.on("session_compact", async (_event, ctx) => {
    hold(ctx)
    await session((s) => s.rebuild)
  })
  pi.on("session_tree", async (_event, ctx) => {
    hold(ctx)
    await session((s) => s.branchChanged)
    await background((b) => b.branchChanged)
  })
  pi.on("session_shutdown", async (event, ctx) => {
    hold(ctx)
    const atOnce = handsOffAtOnce(ctx.mode, process.env)
    const queued = await background((b) => b.shutdown(event.reason, atOnce))
    await session((s) => s.shutdown)
    await runtime.dispose()
    if (atOnce && queued !== undefined) {
      const { startQueueWorker } = await import("./queueWorker.ts")
      // The worker uses this Pi (argv[1] is its script) and checks the dream against this session folder.
      startQueueWorker(queued, { piScript: process.argv[1], sessionFolder: sessionFolderOf(ctx) })
    }
  })
  const browse = <A>(f: (b: typeof MemoryBrowse.Service) => Effect.Effect<A, unknown>) =>
    runtime.runPromise(Effect.flatMap(MemoryBrowse, f)).then(
      (ok) => ({ ok }),
      (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) })
    )
  // The command's code (its subcommands, formatting and completions) loads on its first use, not at session start.
  let command: Promise<ReturnType<typeof import("./command.ts").memoryCommand>> | undefined
  const loadCommand = () =>
    (command ??= import("./command.ts").then(({ memoryCommand }) => memoryCommand((f) => session(f), hold, (f) => background(f), browse)))
  pi.registerCommand("memory", {
    description: MEMORY_COMMAND_DESCRIPTION,
    getArgumentCompletions: async (prefix: string) => (await loadCommand()).getArgumentCompletions(prefix),
    handler: async (args, ctx) => (await loadCommand()).handler(args, ctx)
  })
}
