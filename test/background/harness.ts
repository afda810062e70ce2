/**
 * The real Pi host (1.6) and the built extension (or the extension from source, when the test drives its clock),
 * for the background agents, against the strict fake provider (test/support/strictProvider.ts): a real HTTP server
 * speaking OpenAI's chat completions API, declared in the agent directory's `models.json`, that refuses what the
 * real API refuses. One script answers the main agent, the selector (nothing selected) and background tasks; every
 * request is recorded as it reached the wire. A background request is recognised by the tools heading our tasks
 * carry. `provider: "faux"` keeps pi-ai's in-process fake instead, for the few tests that assert what never
 * reaches a wire (a tool result's `isError`).
 */
import {
  fauxAssistantMessage,
  fauxProvider,
  fauxText,
  fauxToolCall,
  getCurrentSystemPrompt,
  getSystemMessageText,
  type AssistantMessage
} from "@earendil-works/pi-ai"
import {
  createAgentSessionFromServices,
  createAgentSessionRuntime,
  createAgentSessionServices,
  ModelRuntime,
  SessionManager,
  SettingsManager
} from "@earendil-works/pi-coding-agent"
import type * as Clock from "effect/Clock"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { type Fault, type StrictModel, type StrictProvider, STRICT_PROVIDER, startStrictProvider } from "../support/strictProvider.ts"

export const EXTENSION = resolve(import.meta.dirname, "../../dist/extension.ts")
export const SELECTOR_MARK = "You pick which saved memories"
export const TOOLS_HEADING = "## Background memory task tools"

export interface Recorded {
  readonly kind: "selector" | "main" | "background" | "other"
  readonly system: string
  readonly leadingSystem: string
  /** Every message as sent, system messages included. */
  readonly all: ReadonlyArray<any>
  readonly messages: ReadonlyArray<any>
  readonly tools: ReadonlyArray<string>
  readonly options: any
}

/** A reply, or (strict provider only) a fault: 429, 500, a hang, a cut stream. */
export type Script = (request: Recorded) => AssistantMessage | Fault | Promise<AssistantMessage | Fault>

export const textOf = (m: any): string =>
  typeof m.content === "string" ? m.content : (m.content ?? []).filter((b: any) => b.type === "text").map((b: any) => b.text).join("")

export const call = (name: string, args: Record<string, any>): AssistantMessage =>
  fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" })

export const calls = (...list: ReadonlyArray<readonly [string, Record<string, any>]>): AssistantMessage =>
  fauxAssistantMessage(list.map(([n, a]) => fauxToolCall(n, a)), { stopReason: "toolUse" })

export const say = (text: string): AssistantMessage => fauxAssistantMessage([fauxText(text)])

/** The tool results a background request carries after its task instructions (how far the task has got). */
export const taskResults = (r: Recorded): Array<any> => {
  const start = r.messages.findLastIndex((m: any) => m.role === "user" && textOf(m).includes(TOOLS_HEADING))
  const from = start >= 0 ? start : r.messages.findLastIndex((m: any) => m.role === "user")
  return r.messages.slice(from + 1).filter((m: any) => m.role === "toolResult")
}

/** How many model calls this task made before this one. */
export const taskTurn = (r: Recorded): number => {
  const start = r.messages.findLastIndex((m: any) => m.role === "user" && (textOf(m).includes(TOOLS_HEADING) || r.system.includes(TOOLS_HEADING)))
  return r.messages.slice(start + 1).filter((m: any) => m.role === "assistant").length
}

export interface HarnessOptions {
  readonly trusted?: boolean
  readonly memory?: Record<string, string>
  readonly background?: Script
  readonly config?: Record<string, unknown>
  /** Model ids (the first is the session's), or full declarations with their limits. */
  readonly models?: ReadonlyArray<string | StrictModel>
  /** "strict" (default): the HTTP provider; "faux": pi-ai's in-process fake. */
  readonly provider?: "strict" | "faux"
  /** Load the extension from source with this clock (Effect's TestClock) instead of dist/extension.js. */
  readonly clock?: Clock.Clock
  /** More extensions for the parent session (paths), loaded after ours; `extensionsBefore` before it. */
  readonly extensions?: ReadonlyArray<string>
  readonly extensionsBefore?: ReadonlyArray<string>
  /** The temporary folder holding project/ and agent/ (made when not given). */
  readonly base?: string
  /** Persist sessions as `.jsonl` files in this directory (in memory when not given). */
  readonly sessionDir?: string
  /** The mode the extension sees (`ctx.mode`); Pi's default without one is "print". */
  readonly mode?: "tui" | "print"
}

export interface Harness {
  readonly base: string
  readonly cwd: string
  readonly agentDir: string
  readonly memoryDir: string
  readonly requests: Array<Recorded>
  readonly notifications: Array<{ message: string; level: string }>
  readonly statuses: Array<{ key: string; text: string | undefined }>
  background: Script
  /** Main-agent answers; default "ok". */
  main: Script
  /** Selector answers; default: nothing selected. */
  selector: Script
  trusted: boolean
  readonly session: any
  readonly runtime: any
  /** The strict provider (undefined with `provider: "faux"`). */
  readonly strict: StrictProvider | undefined
  /** The provider's name in model refs: "strict" or "faux". */
  readonly providerName: string
  /** Resolves when `predicate` holds, re-checked at every request the provider records. */
  readonly until: (predicate: () => boolean) => Promise<void>
  readonly prompt: (text: string) => Promise<void>
  readonly ofKind: (kind: Recorded["kind"]) => Array<Recorded>
  readonly branch: () => Array<any>
  readonly dispose: () => Promise<void>
}

export const startHarness = async (options: HarnessOptions = {}): Promise<Harness> => {
  const base = options.base ?? realpathSync(mkdtempSync(join(tmpdir(), "pm-bg-")))
  const cwd = join(base, "project")
  mkdirSync(cwd)
  execFileSync("git", ["init", "-q"], { cwd })
  writeFileSync(join(cwd, "README.md"), "# demo\n")
  const agentDir = join(base, "agent")
  mkdirSync(agentDir)
  process.env["PI_CODING_AGENT_DIR"] = agentDir
  const memoryDir = join(agentDir, "project-memory", "projects", cwd.replace(/[^a-zA-Z0-9]/g, "-"), "memory")
  mkdirSync(memoryDir, { recursive: true })
  for (const [name, content] of Object.entries(options.memory ?? {})) {
    mkdirSync(join(memoryDir, name, ".."), { recursive: true })
    writeFileSync(join(memoryDir, name), content)
  }
  if (options.config !== undefined) {
    writeFileSync(join(agentDir, "project-memory", "config.json"), JSON.stringify(options.config))
  }
  const requests: Array<Recorded> = []
  const notifications: Array<{ message: string; level: string }> = []
  const statuses: Array<{ key: string; text: string | undefined }> = []
  const useStrict = (options.provider ?? "strict") === "strict"
  const declared: ReadonlyArray<StrictModel> = (options.models ?? [useStrict ? "strict-1" : "faux-1"]).map((m) =>
    typeof m === "string" ? { id: m, contextWindow: 128_000, maxTokens: 16_384 } : m
  )
  const h = {
    background: options.background ?? (() => say("Nothing to save.")),
    main: (() => say("ok")) as Script,
    selector: (() => fauxAssistantMessage([fauxToolCall("select_memories", { selected_memories: [] })], { stopReason: "toolUse" })) as Script,
    trusted: options.trusted ?? true
  }
  const waiters = new Set<() => void>()
  const wake = () => {
    for (const w of [...waiters]) w()
  }
  const classify = (system: string, messages: ReadonlyArray<any>): Recorded["kind"] => {
    const isBackground = system.includes(TOOLS_HEADING) ||
      messages.some((m: any) => m.role === "user" && textOf(m).includes(TOOLS_HEADING))
    return system.includes(SELECTOR_MARK) ? "selector" : isBackground ? "background" : /summar/i.test(system) ? "other" : "main"
  }
  const answer = (request: Recorded): AssistantMessage | Fault | Promise<AssistantMessage | Fault> => {
    if (request.kind === "selector") return h.selector(request)
    if (request.kind === "other") return say("## Goal\nTest.\n## Progress\nDone.")
    if (request.kind === "background") return h.background(request)
    return h.main(request)
  }
  let strict: StrictProvider | undefined
  let sessionModel: any
  let modelRuntime: ModelRuntime
  if (useStrict) {
    strict = await startStrictProvider({ models: declared })
    strict.handler = (wire) => {
      const request: Recorded = {
        kind: classify(wire.system, wire.messages),
        system: wire.system,
        leadingSystem: wire.leadingSystem,
        all: wire.body?.messages ?? [],
        messages: wire.messages,
        tools: wire.tools,
        options: wire.options
      }
      requests.push(request)
      queueMicrotask(wake)
      return answer(request)
    }
    strict.onRequest = () => queueMicrotask(wake)
    // Declared the way a user declares an OpenAI-compatible endpoint: models.json in the agent directory.
    writeFileSync(join(agentDir, "models.json"), JSON.stringify(strict.modelsJson(), null, 2))
    modelRuntime = await ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: join(agentDir, "models.json"), refreshOnCreate: false })
    sessionModel = modelRuntime.getModel(STRICT_PROVIDER, declared[0]!.id)
  } else {
    const faux = fauxProvider({ models: declared.map((m) => ({ id: m.id, contextWindow: m.contextWindow, maxTokens: m.maxTokens })) })
    const responder = async (context: any, streamOptions: any) => {
      const system = getCurrentSystemPrompt(context.messages) ?? ""
      const leadingSystem = getSystemMessageText(context.messages[0]) ?? ""
      const messages = context.messages.filter((m: any) => m.role !== "system")
      const tools = context.messages.flatMap((m: any) => (m.role === "system" ? (m.toolsAdded ?? []).map((t: any) => t.name) : []))
      const request: Recorded = { kind: classify(system, messages), system, leadingSystem, all: context.messages, messages, tools, options: streamOptions }
      requests.push(request)
      queueMicrotask(wake)
      const reply = await answer(request)
      if ("fault" in reply) throw new Error(`faults need the strict provider (${reply.fault})`)
      return reply
    }
    faux.setResponses(Array.from({ length: 500 }, () => responder))
    modelRuntime = await ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false })
    modelRuntime.registerNativeProvider(faux.provider)
    sessionModel = faux.getModel(declared[0]!.id)
  }
  if (sessionModel === undefined) throw new Error("the strict provider's model is not known to Pi")
  const settingsManager = SettingsManager.inMemory(
    { retry: { enabled: false }, compaction: { enabled: false, keepRecentTokens: 1 } } as any,
    { projectTrusted: true }
  )
  const fromSource = options.clock === undefined
    ? undefined
    : await Promise.all([import("../../extension/index.ts"), import("@earendil-works/pi-coding-agent")]).then(([{ projectMemory }, piHost]) =>
      projectMemory(piHost, { clock: options.clock! })
    )
  const createRuntime = async ({ cwd, agentDir, sessionManager, sessionStartEvent }: any) => {
    const services = await createAgentSessionServices({
      cwd,
      agentDir,
      settingsManager,
      modelRuntime,
      resourceLoaderOptions: {
        additionalExtensionPaths: [...(options.extensionsBefore ?? []), ...(fromSource === undefined ? [EXTENSION] : []), ...(options.extensions ?? [])],
        extensionFactories: fromSource === undefined ? [] : [fromSource],
        noSkills: true,
        noPromptTemplates: true,
        noThemes: true,
        noContextFiles: true
      }
    } as any)
    const r = await createAgentSessionFromServices({ services, sessionManager, sessionStartEvent, model: sessionModel, thinkingLevel: "off" } as any)
    return { ...r, services, diagnostics: services.diagnostics }
  }
  const sessionManager = options.sessionDir === undefined ? SessionManager.inMemory(cwd) : SessionManager.create(cwd, options.sessionDir)
  const runtime = await createAgentSessionRuntime(createRuntime as any, { cwd, agentDir, sessionManager } as any)
  const session = (runtime as any).session
  const uiContext = new Proxy(
    {
      notify: (message: string, level = "info") => notifications.push({ message, level }),
      setStatus: (key: string, text: string | undefined) => statuses.push({ key, text })
    } as Record<string, unknown>,
    { get: (t, k) => (typeof k === "string" && k in t ? t[k] : () => undefined) }
  )
  const bind = async (current: any) => {
    const currentRunner = current.extensionRunner
    currentRunner.onError((e: any) => notifications.push({ message: `EXTENSION ERROR ${e.event}: ${e.error}`, level: "error" }))
    await current.bindExtensions({ uiContext, ...(options.mode === undefined ? {} : { mode: options.mode }) })
    // Trust as Pi reports it through ctx.isProjectTrusted(), read at each check: the test can revoke it mid-task.
    const hostTrust = currentRunner.isProjectTrustedFn
    currentRunner.isProjectTrustedFn = () => h.trusted && hostTrust()
  }
  await bind(session)
  // A new session (runtime.newSession()) gets the same UI and trust.
  ;(runtime as any).setRebindSession(bind)
  return Object.assign(h, {
    base,
    cwd,
    agentDir,
    memoryDir,
    requests,
    notifications,
    statuses,
    session,
    runtime,
    strict,
    providerName: useStrict ? STRICT_PROVIDER : "faux",
    until: (predicate: () => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!predicate()) return
          waiters.delete(check)
          resolve()
        }
        waiters.add(check)
        check()
      }),
    prompt: (text: string) => (runtime as any).session.prompt(text) as Promise<void>,
    ofKind: (kind: Recorded["kind"]) => requests.filter((r) => r.kind === kind),
    branch: () => (runtime as any).session.sessionManager.getBranch() as Array<any>,
    dispose: async () => {
      await (runtime as any).dispose()
      await strict?.close()
      rmSync(base, { recursive: true, force: true })
    }
  }) as Harness
}

export const topic = (name: string, description: string, type = "project", body = "Body text."): string =>
  `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  type: ${type}\n---\n${body}\n`
