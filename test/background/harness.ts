/**
 * The real Pi host (1.6) with pi-ai's fake provider and the built extension, for the background agents. One scripted
 * model answers the main agent, the selector (nothing selected) and background tasks; every request is recorded.
 * A background request is recognised by the tools heading our tasks carry.
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
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export const EXTENSION = resolve(import.meta.dirname, "../../dist/extension.ts")
export const SELECTOR_MARK = "You choose which saved memories"
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

export type Script = (request: Recorded) => AssistantMessage | Promise<AssistantMessage>

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
  readonly models?: ReadonlyArray<string>
  /** More extensions for the parent session (paths), loaded after ours; `extensionsBefore` before it. */
  readonly extensions?: ReadonlyArray<string>
  readonly extensionsBefore?: ReadonlyArray<string>
  /** The temporary folder holding project/ and agent/ (made when not given). */
  readonly base?: string
  /** Persist sessions as `.jsonl` files in this directory (in memory when not given). */
  readonly sessionDir?: string
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
  trusted: boolean
  readonly session: any
  readonly runtime: any
  readonly faux: ReturnType<typeof fauxProvider>
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
  const faux = fauxProvider({ models: (options.models ?? ["faux-1"]).map((id) => ({ id, contextWindow: 128000 })) })
  const h = {
    background: options.background ?? (() => say("Nothing to save.")),
    main: (() => say("ok")) as Script,
    trusted: options.trusted ?? true
  }
  const responder = async (context: any, streamOptions: any) => {
    const system = getCurrentSystemPrompt(context.messages) ?? ""
    const leadingSystem = getSystemMessageText(context.messages[0]) ?? ""
    const messages = context.messages.filter((m: any) => m.role !== "system")
    const isBackground = system.includes(TOOLS_HEADING) ||
      messages.some((m: any) => m.role === "user" && textOf(m).includes(TOOLS_HEADING))
    const kind: Recorded["kind"] = system.includes(SELECTOR_MARK)
      ? "selector"
      : isBackground
      ? "background"
      : /summar/i.test(system)
      ? "other"
      : "main"
    const tools = context.messages.flatMap((m: any) => (m.role === "system" ? (m.toolsAdded ?? []).map((t: any) => t.name) : []))
    const request: Recorded = { kind, system, leadingSystem, all: context.messages, messages, tools, options: streamOptions }
    requests.push(request)
    if (kind === "selector") return fauxAssistantMessage([fauxToolCall("select_memories", { selected_memories: [] })], { stopReason: "toolUse" })
    if (kind === "other") return say("## Goal\nTest.\n## Progress\nDone.")
    if (kind === "background") return h.background(request)
    return h.main(request)
  }
  faux.setResponses(Array.from({ length: 500 }, () => responder))
  const modelRuntime = await ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false })
  modelRuntime.registerNativeProvider(faux.provider)
  const settingsManager = SettingsManager.inMemory(
    { retry: { enabled: false }, compaction: { enabled: false, keepRecentTokens: 1 } } as any,
    { projectTrusted: true }
  )
  const createRuntime = async ({ cwd, agentDir, sessionManager, sessionStartEvent }: any) => {
    const services = await createAgentSessionServices({
      cwd,
      agentDir,
      settingsManager,
      modelRuntime,
      resourceLoaderOptions: { additionalExtensionPaths: [...(options.extensionsBefore ?? []), EXTENSION, ...(options.extensions ?? [])], noSkills: true, noPromptTemplates: true, noThemes: true, noContextFiles: true }
    } as any)
    const r = await createAgentSessionFromServices({ services, sessionManager, sessionStartEvent, model: faux.getModel(options.models?.[0] ?? "faux-1"), thinkingLevel: "off" } as any)
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
    await current.bindExtensions({ uiContext })
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
    faux,
    prompt: (text: string) => (runtime as any).session.prompt(text) as Promise<void>,
    ofKind: (kind: Recorded["kind"]) => requests.filter((r) => r.kind === kind),
    branch: () => (runtime as any).session.sessionManager.getBranch() as Array<any>,
    dispose: async () => {
      await (runtime as any).dispose()
      rmSync(base, { recursive: true, force: true })
    }
  }) as Harness
}

export const topic = (name: string, description: string, type = "project", body = "Body text."): string =>
  `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  type: ${type}\n---\n${body}\n`
