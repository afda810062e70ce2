/**
 * Extractor: after a settled turn, a background agent saves what the conversation taught into memory.
 *
 * One extraction: the cursor machine decides (skip and advance, or run over the messages after the cursor); a run
 * takes `extract.lock` (busy: skip, cursor unchanged), opens a MemoryWriter task and the six restricted tools, builds
 * a fork of the parent's request when it is compatible (else an independent request), and runs the tool loop. The
 * cursor advances to the end of the snapshot when the task returns (API error and `maxTurns` included) and stays on
 * a throw, an interruption or invalidation: the caller applies `advanceTo` only from a returned outcome.
 */
import type { Api, Message, Model, Usage } from "@earendil-works/pi-ai"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { randomUUID } from "node:crypto"
import { decideExtraction, type BranchEntry, type SkipReason } from "../../src/background/cursor.ts"
import { forkVerdict, stripForeignReasoning } from "../../src/background/request.ts"
import { backgroundToolsSection } from "../../src/prompts/backgroundTools.ts"
import { BACKGROUND_SYSTEM_PROMPT, extractorTaskPrompt } from "../../src/prompts/extractor.ts"
import { memoryRulesPrompt, memoryRulesSection } from "../../src/prompts/memoryRules.ts"
import { locksDirOf, type ProjectLocation } from "../../src/storage.ts"
import { BashGuard } from "../BashGuard.ts"
import { Journal } from "../Journal.ts"
import { LockService, type LockFailed, type LockLost } from "../LockService.ts"
import { MemoryStore } from "../MemoryStore.ts"
import { MemoryWriter, TaskInvalid } from "../MemoryWriter.ts"
import { ModelRegistry, type ModelRequestFailed } from "../ModelRegistry.ts"
import { runTask, type StopReason, type TaskRequest } from "./Runner.ts"
import { type CodemodeSettings, makeTaskTools, type MemoryChange, type TaskJournal, taskJournalOf } from "./TaskTools.ts"

export const EXTRACTOR_MAX_TURNS = 5
export const EXTRACTOR_MAX_TOKENS = 8_192

export class ExtractionFailed extends Schema.TaggedError<ExtractionFailed>()("ExtractionFailed", {
  reason: Schema.String
}) {}

/** The parent's request as last captured (context_with_system, then message_end), frozen at task start. */
export interface ParentRequest {
  readonly messages: ReadonlyArray<Message>
  readonly model: { readonly provider: string; readonly api: string; readonly id: string }
  readonly sessionId: string
}

export interface ExtractionRequest {
  readonly location: ProjectLocation
  /** The parent session's cwd at task start. */
  readonly cwd: string
  /** The branch entries at dispatch: the snapshot the cursor advances over. */
  readonly branch: ReadonlyArray<BranchEntry>
  readonly cursor: string | undefined
  readonly parent: ParentRequest | undefined
  readonly model: Model<Api>
  /** The independent request's own stable cache id. */
  readonly taskSessionId: string
  readonly maxTurns: number
  readonly maxTokens: number
  /** Whether a raw tool path (as the main agent wrote it) lands in memory. */
  readonly isMemoryPath: (rawPath: string) => boolean
  /** Task validity (trust, generation, config): checked before every model and tool call. */
  readonly check: Effect.Effect<void, TaskInvalid>
  readonly onChange: (change: MemoryChange) => Effect.Effect<void>
  readonly onUsage: (usage: Usage | undefined) => Effect.Effect<void>
  /** The main session's codemode, when on. */
  readonly codemode?: CodemodeSettings | undefined
  /** Called once the lock is held and the task starts (the status line). */
  readonly onStart?: Effect.Effect<void>
  /** The Pi session the messages come from, for the change journal. */
  readonly sessionId?: string
}

export type ExtractionOutcome =
  | { readonly status: "skipped"; readonly reason: SkipReason; readonly advanceTo: string | undefined }
  | { readonly status: "busy" }
  | {
    readonly status: "ran"
    readonly stop: StopReason
    readonly turns: number
    readonly mode: "fork" | "independent"
    readonly filesChanged: ReadonlyArray<string>
    readonly finalText: string
    readonly errorMessage: string | undefined
    readonly advanceTo: string
  }

export type ExtractionError = ExtractionFailed | TaskInvalid | ModelRequestFailed | LockLost | LockFailed

export interface ExtractorShape {
  readonly extract: (request: ExtractionRequest) => Effect.Effect<ExtractionOutcome, ExtractionError>
}

/** A session entry's message as the model sees it; undefined for what the model never sees. */
const toModelMessage = (entry: BranchEntry & { readonly content?: unknown }): Message | undefined => {
  if (entry.type === "custom_message") {
    const content = entry.content
    return typeof content === "string" || Array.isArray(content)
      ? ({ role: "user", content, timestamp: 0 } as Message)
      : undefined
  }
  const m = entry.message as (Message & { role: string }) | undefined
  if (m === undefined) return undefined
  return m.role === "user" || m.role === "assistant" || m.role === "toolResult" ? m : undefined
}

/** Tool results whose call lies before the cursor cannot open a request: providers reject orphans. */
const dropOrphanResults = (messages: ReadonlyArray<Message>): Array<Message> => {
  const calls = new Set<string>()
  const out: Array<Message> = []
  for (const m of messages) {
    if (m.role === "assistant") for (const c of m.content) if (c.type === "toolCall") calls.add(c.id)
    if (m.role === "toolResult" && !calls.has(m.toolCallId)) continue
    out.push(m)
  }
  return out
}

const systemTextOf = (m: Message | undefined): string => {
  if (m === undefined || m.role !== "system") return ""
  const content = typeof m.content === "string" ? m.content : m.content.map((c) => c.text).join("")
  return [content, ...Object.values(m.sections ?? {}).filter((s): s is string => typeof s === "string")].join("\n")
}

/** The rules in effect over the whole prefix: the leading system message and every later patch. */
const parentHasRules = (messages: ReadonlyArray<Message>, rules: string): boolean =>
  messages.some((m) => m.role === "system" && systemTextOf(m).includes(rules))

const parentTools = (messages: ReadonlyArray<Message>) =>
  messages.flatMap((m) => (m.role === "system" ? (m.toolsAdded ?? []) : []))

export const makeExtractor = Effect.gen(function*() {
  const registry = yield* ModelRegistry
  const store = yield* MemoryStore
  const writer = yield* MemoryWriter
  const locks = yield* LockService
  const guard = yield* BashGuard
  const journal = yield* Journal

  const taskJournal = (request: ExtractionRequest, entries: ReadonlyArray<BranchEntry>, advanceTo: string): TaskJournal =>
    taskJournalOf(journal, request.location.memoryRootDir, {
      kind: "extract",
      session: request.sessionId ?? request.parent?.sessionId ?? null,
      model: `${request.model.provider}/${request.model.id}`,
      range: entries.length === 0 ? null : { from: entries[0]!.id, to: advanceTo }
    })

  const runLocked = (request: ExtractionRequest, entries: ReadonlyArray<BranchEntry>, advanceTo: string, check: Effect.Effect<void, TaskInvalid>) =>
    Effect.gen(function*() {
      if (request.onStart !== undefined) yield* request.onStart
      const { memoryDir } = request.location
      const filesChanged: Array<string> = []
      const task = yield* writer.openTask({ memoryDir, cwd: request.cwd, check })
      const tools = yield* Effect.tryPromise({
        try: () =>
          makeTaskTools({
            cwd: request.cwd,
            memoryDir,
            writer: task,
            guard,
            check,
            codemode: request.codemode,
            journal: taskJournal(request, entries, advanceTo),
            onChange: (change) =>
              Effect.sync(() => {
                if (!filesChanged.includes(change.path)) filesChanged.push(change.path)
              }).pipe(Effect.zipRight(request.onChange(change)))
          }),
        catch: (e) => new ExtractionFailed({ reason: `cannot set up the task's tools: ${e instanceof Error ? e.message : String(e)}` })
      })
      return yield* Effect.gen(function*() {
        const { topics } = yield* store.scanTopics(memoryDir)
        const rules = memoryRulesPrompt(memoryDir)
        const section = backgroundToolsSection(memoryDir, request.cwd)
        const model = request.model
        const identity = { provider: model.provider, api: model.api, id: model.id }
        const prompt = extractorTaskPrompt({ memoryDir, recentMessages: entries.length, catalog: store.catalog(topics) })
        const parent = request.parent
        const verdict = forkVerdict(
          parent === undefined ? undefined : { model: parent.model, tools: parentTools(parent.messages) },
          { model: identity, tools: tools.tools.map((t) => t.declaration) }
        )
        const taskRequest: TaskRequest = verdict.fork && parent !== undefined
          ? {
            mode: "fork",
            prefix: parent.messages,
            instructions: [
              section,
              ...(parentHasRules(parent.messages, rules) ? [] : [memoryRulesSection(memoryDir)]),
              prompt
            ].join("\n\n"),
            sessionId: parent.sessionId
          }
          : {
            mode: "independent",
            systemPrompt: [BACKGROUND_SYSTEM_PROMPT, memoryRulesSection(memoryDir), section].join("\n\n"),
            messages: dropOrphanResults(stripForeignReasoning(
              entries.map(toModelMessage).filter((m): m is Message => m !== undefined),
              identity
            )),
            instructions: prompt,
            sessionId: request.taskSessionId
          }
        const result = yield* runTask({
          model,
          request: taskRequest,
          maxTurns: request.maxTurns,
          maxTokens: request.maxTokens,
          tools,
          check,
          onUsage: request.onUsage
        }).pipe(Effect.provideService(ModelRegistry, registry))
        return {
          status: "ran",
          stop: result.stop,
          turns: result.turns,
          mode: taskRequest.mode,
          filesChanged,
          finalText: result.finalText,
          errorMessage: result.errorMessage,
          advanceTo
        } satisfies ExtractionOutcome
      }).pipe(Effect.ensuring(Effect.promise(() => tools.close("the task ended"))))
    })

  const extract = Effect.fn("Extractor.extract")(function*(request: ExtractionRequest) {
    const decision = decideExtraction(request.branch, request.cursor, request.isMemoryPath)
    if (decision._tag === "Skip") {
      return { status: "skipped", reason: decision.reason, advanceTo: decision.advanceTo } satisfies ExtractionOutcome
    }
    const locksDir = locksDirOf(request.location.memoryRootDir)
    const outcome = yield* locks.withLock(locksDir, "extract.lock", (lock) =>
      runLocked(
        request,
        decision.entries,
        decision.advanceTo,
        request.check.pipe(
          Effect.zipRight(lock.ensureHeld.pipe(Effect.mapError(() => new TaskInvalid({ reason: "the extraction lock was lost" }))))
        )
      ))
    return outcome._tag === "Busy" ? ({ status: "busy" } satisfies ExtractionOutcome) : outcome.value
  })

  return { extract } satisfies ExtractorShape
})

export class Extractor extends Context.Tag("pm/Extractor")<Extractor, ExtractorShape>() {
  static readonly layer: Layer.Layer<Extractor, never, ModelRegistry | MemoryStore | MemoryWriter | LockService | BashGuard | Journal> =
    Layer.effect(Extractor, makeExtractor)
}
