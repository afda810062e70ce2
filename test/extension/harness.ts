/**
 * The real Pi host (1.6) with pi-ai's fake provider, loading the built extension (`dist/extension.ts`), or the same extension
 * from source when a test drives its clock (Effect's TestClock) or records its hidden messages. One scripted model
 * answers both the main agent and the memory selector; every request is recorded, and `until` waits for a condition
 * re-checked at each request and session event, so no test waits on the wall clock.
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
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import {
  createAgentSessionFromServices,
  createAgentSessionRuntime,
  createAgentSessionServices,
  ModelRuntime,
  SessionManager,
  SettingsManager,
  type ExtensionAPI,
  type ExtensionFactory
} from "@earendil-works/pi-coding-agent"
import * as piHost from "@earendil-works/pi-coding-agent"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

/** Pi's entry, as package.json's `pi.extensions` names it (a TypeScript file that hands the host to dist/extension.js). */
export const EXTENSION = resolve(import.meta.dirname, "../../dist/extension.ts")
/** The bundle behind it, which exports `projectMemory(host, options)` and imports no Pi package. */
export const EXTENSION_BUNDLE = resolve(import.meta.dirname, "../../dist/extension.js")
export const SELECTOR_MARK = "You pick which saved memories"

export interface RecordedRequest {
  readonly kind: "selector" | "main" | "other"
  /** The system prompt in force for this request (the first system message with later section patches applied). */
  readonly system: string
  /** The leading system message as sent: what a provider caches as the prefix. */
  readonly leadingSystem: string
  /** Every non-system message. */
  readonly messages: ReadonlyArray<any>
  /** Mid-conversation system patches (Pi's way to change the prompt without rewriting the prefix). */
  readonly systemPatches: ReadonlyArray<any>
  readonly options: any
}

export type SelectorAnswer = (request: RecordedRequest) => AssistantMessage | Promise<AssistantMessage>

export const selectAnswer = (names: ReadonlyArray<string>): AssistantMessage =>
  fauxAssistantMessage([fauxToolCall("select_memories", { selected_memories: [...names] })], { stopReason: "toolUse" })

const textOf = (m: any): string =>
  typeof m.content === "string" ? m.content : (m.content ?? []).filter((b: any) => b.type === "text").map((b: any) => b.text).join("")

/**
 * Main-agent script: the last user message "read <path> [offset=N] [limit=N]", "write <path> <<<content" or
 * "edit <path> <<<old>>>new" becomes that tool call; anything else is answered "ok".
 */
const mainAnswer = (messages: ReadonlyArray<any>): AssistantMessage => {
  const last = messages.at(-1)
  if (last?.role === "toolResult") return fauxAssistantMessage("done")
  const lastUser = [...messages].reverse().find((m) => m.role === "user")
  const text = lastUser ? textOf(lastUser) : ""
  let m: RegExpExecArray | null
  if ((m = /^read (\S+)(?: offset=(\d+))?(?: limit=(\d+))?$/.exec(text))) {
    const args: Record<string, string | number> = { path: m[1] ?? "" }
    if (m[2]) args["offset"] = Number(m[2])
    if (m[3]) args["limit"] = Number(m[3])
    return fauxAssistantMessage([fauxToolCall("read", args)], { stopReason: "toolUse" })
  }
  if ((m = /^write (\S+) <<<([\s\S]*)$/.exec(text))) {
    return fauxAssistantMessage([fauxToolCall("write", { path: m[1] ?? "", content: m[2] ?? "" })], { stopReason: "toolUse" })
  }
  if ((m = /^edit (\S+) <<<([\s\S]*?)>>>([\s\S]*)$/.exec(text))) {
    const edit = { oldText: m[2] ?? "", newText: m[3] ?? "" }
    return fauxAssistantMessage([fauxToolCall("edit", { path: m[1] ?? "", edits: [edit] })], { stopReason: "toolUse" })
  }
  return fauxAssistantMessage([fauxText("ok")])
}

export interface HarnessOptions {
  readonly trusted?: boolean
  /** Files to create in the memory directory before the session starts (relative name -> content). */
  readonly memory?: Record<string, string>
  readonly selector?: SelectorAnswer
  /** false: the bare host, as a baseline for benchmarks. */
  readonly extension?: boolean
  /**
   * Load the extension from source through `projectMemory(...)` instead of the built dist/extension.js: the same
   * Effect instance as the test, so `clock` (a TestClock) drives its 2 s wait, and every hidden message it sends is
   * recorded in `sent` with its delivery mode. Implied by `clock`.
   */
  readonly fromSource?: boolean
  readonly clock?: Clock.Clock
  /** More extensions, loaded after ours (probes of host behaviour). */
  readonly factories?: ReadonlyArray<ExtensionFactory>
}

export interface Harness {
  readonly cwd: string
  readonly agentDir: string
  readonly memoryDir: string
  readonly requests: Array<RecordedRequest>
  readonly notifications: Array<{ message: string; level: string }>
  /** Hidden messages the extension sent through `pi.sendMessage` (only when loaded from source). */
  readonly sent: Array<{ readonly customType: string; readonly deliverAs: string | undefined }>
  selector: SelectorAnswer
  /** When set, main-agent answers wait for this promise first. */
  mainDelay: (() => Promise<void>) | undefined
  readonly session: any
  readonly runtime: any
  readonly settingsManager: SettingsManager
  readonly prompt: (text: string) => Promise<void>
  readonly mainRequests: () => Array<RecordedRequest>
  readonly selectorRequests: () => Array<RecordedRequest>
  /** Resolves when `predicate` holds, re-checked at each recorded request and each session event (no polling). */
  readonly until: (predicate: () => boolean) => Promise<void>
  readonly dispose: () => Promise<void>
}

export const makeGitProject = (): string => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-ext-cwd-")))
  const cwd = join(base, "project")
  mkdirSync(cwd)
  execFileSync("git", ["init", "-q"], { cwd })
  writeFileSync(join(cwd, "README.md"), "# demo\n")
  return cwd
}

export const startHarness = async (options: HarnessOptions = {}): Promise<Harness> => {
  const cwd = makeGitProject()
  const agentDir = realpathSync(mkdtempSync(join(tmpdir(), "pm-ext-agent-")))
  process.env["PI_CODING_AGENT_DIR"] = agentDir
  const key = cwd.replace(/[^a-zA-Z0-9]/g, "-")
  const memoryDir = join(agentDir, "project-memory", "projects", key, "memory")
  mkdirSync(memoryDir, { recursive: true })
  for (const [name, content] of Object.entries(options.memory ?? {})) {
    mkdirSync(join(memoryDir, name, ".."), { recursive: true })
    writeFileSync(join(memoryDir, name), content)
  }
  const requests: Array<RecordedRequest> = []
  const waiters = new Set<() => void>()
  const wake = () => {
    for (const w of [...waiters]) w()
  }
  const notifications: Array<{ message: string; level: string }> = []
  const faux = fauxProvider({ models: [{ id: "faux-1", contextWindow: 128000 }] })
  const harness = { selector: options.selector ?? (() => selectAnswer([])), mainDelay: undefined } as {
    selector: SelectorAnswer
    mainDelay: (() => Promise<void>) | undefined
  }
  const responder = async (context: any, streamOptions: any) => {
    const system = getCurrentSystemPrompt(context.messages) ?? ""
    const leadingSystem = getSystemMessageText(context.messages[0]) ?? ""
    const kind: RecordedRequest["kind"] = system.includes(SELECTOR_MARK) ? "selector" : /summar/i.test(system) ? "other" : "main"
    const request: RecordedRequest = {
      kind,
      system,
      leadingSystem,
      messages: context.messages.filter((m: any) => m.role !== "system"),
      systemPatches: context.messages.slice(1).filter((m: any) => m.role === "system"),
      options: streamOptions
    }
    requests.push(request)
    queueMicrotask(wake)
    if (kind === "selector") return harness.selector(request)
    if (kind === "other") return fauxAssistantMessage("## Goal\nTest.\n## Progress\nDone.")
    if (harness.mainDelay) await harness.mainDelay()
    return mainAnswer(context.messages)
  }
  faux.setResponses(Array.from({ length: 500 }, () => responder))
  const modelRuntime = await ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false })
  modelRuntime.registerNativeProvider(faux.provider)
  const settingsManager = SettingsManager.inMemory(
    { retry: { enabled: false }, compaction: { enabled: false, keepRecentTokens: 1 } } as any,
    { projectTrusted: options.trusted ?? true }
  )
  const sent: Array<{ customType: string; deliverAs: string | undefined }> = []
  /** The API our extension sees, with `sendMessage` recorded on its way to Pi. */
  const spied = (pi: ExtensionAPI): ExtensionAPI =>
    new Proxy(pi, {
      get: (target, key) => {
        if (key === "sendMessage") {
          return (message: any, opts: any) => {
            sent.push({ customType: message.customType, deliverAs: opts?.deliverAs })
            queueMicrotask(wake)
            return target.sendMessage(message, opts)
          }
        }
        const value = Reflect.get(target, key)
        return typeof value === "function" ? value.bind(target) : value
      }
    })
  const fromSource = options.fromSource === true || options.clock !== undefined
  const ours: { paths: Array<string>; factories: Array<ExtensionFactory> } =
    options.extension === false
      ? { paths: [], factories: [] }
      : !fromSource
        ? { paths: [EXTENSION], factories: [] }
        : await import("../../extension/index.ts").then(({ projectMemory }) => {
            const factory = projectMemory(piHost, options.clock === undefined ? {} : { clock: options.clock })
            return { paths: [], factories: [(pi: ExtensionAPI) => factory(spied(pi))] }
          })
  const createRuntime = async ({ cwd, agentDir, sessionManager, sessionStartEvent }: any) => {
    const services = await createAgentSessionServices({
      cwd,
      agentDir,
      settingsManager,
      modelRuntime,
      resourceLoaderOptions: { additionalExtensionPaths: ours.paths, extensionFactories: [...ours.factories, ...(options.factories ?? [])], noSkills: true, noPromptTemplates: true, noThemes: true, noContextFiles: true }
    } as any)
    const r = await createAgentSessionFromServices({ services, sessionManager, sessionStartEvent, model: faux.getModel("faux-1"), thinkingLevel: "off" } as any)
    return { ...r, services, diagnostics: services.diagnostics }
  }
  const runtime = await createAgentSessionRuntime(createRuntime as any, { cwd, agentDir, sessionManager: SessionManager.inMemory(cwd) } as any)
  const session = (runtime as any).session
  session.extensionRunner.onError((e: any) => notifications.push({ message: `EXTENSION ERROR ${e.event}: ${e.error}`, level: "error" }))
  const uiContext = new Proxy(
    {
      notify: (message: string, level = "info") => {
        notifications.push({ message, level })
        queueMicrotask(wake)
      }
    } as Record<string, unknown>,
    { get: (t, k) => (typeof k === "string" && k in t ? t[k] : () => undefined) }
  )
  await session.bindExtensions({ uiContext })
  session.subscribe(() => wake())
  const until = (predicate: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!predicate()) return
        waiters.delete(check)
        resolve()
      }
      waiters.add(check)
      check()
    })
  return Object.assign(harness, {
    cwd,
    agentDir,
    memoryDir,
    requests,
    notifications,
    sent,
    session,
    runtime,
    settingsManager,
    prompt: (text: string) => session.prompt(text) as Promise<void>,
    mainRequests: () => requests.filter((r) => r.kind === "main"),
    selectorRequests: () => requests.filter((r) => r.kind === "selector"),
    until,
    dispose: async () => {
      await (runtime as any).dispose()
      rmSync(join(cwd, ".."), { recursive: true, force: true })
      rmSync(agentDir, { recursive: true, force: true })
    }
  }) as Harness
}

export const topic = (name: string, description: string, type = "project", body = "Body text."): string =>
  `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  type: ${type}\n---\n${body}\n`

/** Effect's TestClock for the extension (`startHarness({ clock })`): time moves only when the test adjusts it. */
export const makeTestClock = async () => {
  const clock = await Effect.runPromise(Effect.provide(TestClock.testClock(), TestContext.TestContext))
  return { clock, adjust: (ms: number) => Effect.runPromise(clock.adjust(ms)) }
}

/** A selector answer held until the test opens it; `asked` resolves when the selector request arrives. */
export const heldSelector = (names: ReadonlyArray<string>) => {
  let open!: () => void
  let markAsked!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  const asked = new Promise<void>((resolve) => (markAsked = resolve))
  const answer: SelectorAnswer = async () => {
    markAsked()
    await gate
    return selectAnswer(names)
  }
  return { answer, asked, open: () => open() }
}

/** A gate for the main model (`harness.mainDelay`): `entered` resolves when a main request waits on it. */
export const mainGate = () => {
  let open!: () => void
  let markEntered!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  const entered = new Promise<void>((resolve) => (markEntered = resolve))
  return {
    delay: () => {
      markEntered()
      return gate
    },
    entered,
    open: () => open()
  }
}
