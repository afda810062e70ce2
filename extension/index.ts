/**
 * The Pi extension entry, kept small on purpose: Pi imports it at start-up, also for runs that never start a session,
 * so the factory only registers the handlers and the `/memory` command. The session side (extension/session.ts: the
 * Effect runtime, the layers, everything recall needs) is imported on the first host event, `session_start`; the
 * background tasks and the bash parser load later still, when first used.
 *
 * Nothing here imports Pi at run time: `projectMemory` is given the host's module. Pi's entry is `dist/extension.ts`
 * (written by scripts/build.mjs), a TypeScript file of three lines that imports the host and calls `projectMemory`.
 * Pi's loader always compiles a TypeScript entry, and maps the host's package names to its own modules for what it
 * compiles; a JavaScript entry it would first try to import as it is, and then the name resolves like any package:
 * to nothing in an install from the registry (the host is a peer dependency), or to the second Pi of a checkout's
 * dev dependencies.
 */
import { resolve } from "node:path"
import type { PiToolkitShape } from "../layers/background/PiToolkit.ts"
import type { ExtensionAPI, ExtensionCommandContext, ExtensionContext } from "@earendil-works/pi-coding-agent"
import { MEMORY_COMMAND_DESCRIPTION } from "./commandInfo.ts"
import type { ProjectMemoryOptions } from "./session.ts"

export type { ProjectMemoryOptions } from "./session.ts"

/** Every host event the session side handles. It may register no other: binding checks against this list. */
export const HANDLED_EVENTS = [
  "session_start",
  "context",
  "context_with_system",
  "before_agent_start",
  "message_end",
  "agent_settled",
  "session_before_compact",
  "tool_call",
  "tool_result",
  "session_compact",
  "session_tree",
  "session_shutdown"
] as const

type Handler = (event: unknown, ctx: ExtensionContext) => unknown

interface Command {
  readonly getArgumentCompletions?: (prefix: string) => unknown
  readonly handler: (args: string, ctx: ExtensionCommandContext) => Promise<void>
}

interface Bound {
  readonly handlers: ReadonlyMap<string, Handler>
  readonly command: Command
}

/** The session side bound to `pi`: its handlers and command recorded instead of registered (the entry has done that). */
const bind = async (pi: ExtensionAPI, host: PiToolkitShape, options: ProjectMemoryOptions): Promise<Bound> => {
  const { bindSession } = await import("./session.ts")
  const handlers = new Map<string, Handler>()
  let command: Command | undefined
  const recorder = new Proxy(pi, {
    get: (target, key) => {
      if (key === "on") {
        return (name: string, handler: Handler) => {
          if (!(HANDLED_EVENTS as ReadonlyArray<string>).includes(name)) throw new Error(`the extension entry does not register "${name}"`)
          handlers.set(name, handler)
        }
      }
      if (key === "registerCommand") return (_name: string, c: Command) => void (command = c)
      const value = Reflect.get(target, key)
      return typeof value === "function" ? value.bind(target) : value
    }
  })
  bindSession(recorder, host, options)
  if (command === undefined) throw new Error("the session side registered no /memory command")
  return { handlers, command }
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** The extension's factory over `host`, the Pi module as the host loaded it. */
export const projectMemory = (host: PiToolkitShape, options: ProjectMemoryOptions = {}) => (pi: ExtensionAPI): void => {
  let bound: Bound | undefined
  let loading: Promise<Bound> | undefined
  let reported = false
  const load = (): Promise<Bound> =>
    (loading ??= bind(pi, host, options).then((b) => (bound = b)))
  /** A session side that cannot load leaves memory off; the user hears it once, and no prompt is blocked. */
  const unavailable = (ctx: ExtensionContext, error: unknown): undefined => {
    if (!reported) {
      reported = true
      const text = `Project memory could not load: ${describe(error)}`
      if (ctx.hasUI) ctx.ui.notify(text, "warning")
      else process.stderr.write(`${text}\n`)
    }
    return undefined
  }

  for (const name of HANDLED_EVENTS) {
    pi.on(name as "session_start", (event: unknown, ctx: ExtensionContext) => {
      // Once loaded, a handler runs as registered: synchronous ones stay synchronous.
      if (bound !== undefined) return bound.handlers.get(name)?.(event, ctx) as never
      return load().then(
        (b) => b.handlers.get(name)?.(event, ctx),
        async (error: unknown) => {
          if (name !== "tool_call") return unavailable(ctx, error)
          // Without the session side, the untrusted-project guard still fails closed for memory paths.
          const { toolCallWithoutSession } = await import("../layers/safety/ToolGuard.ts")
          const e = event as { toolName: string; input: Record<string, unknown> }
          return toolCallWithoutSession(e.toolName, e.input, () => ctx.isProjectTrusted())
        }
      ) as never
    })
  }
  pi.registerCommand("memory", {
    description: MEMORY_COMMAND_DESCRIPTION,
    getArgumentCompletions: async (prefix: string) => {
      const b = await load().catch(() => undefined)
      return (b?.command.getArgumentCompletions?.(prefix) ?? null) as never
    },
    handler: async (args: string, ctx: ExtensionCommandContext) => {
      const b = await load().catch((error: unknown) => unavailable(ctx, error))
      if (b !== undefined) await b.command.handler(args, ctx)
    }
  })
}
