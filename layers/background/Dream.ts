/**
 * Dream: the consolidation task itself. A background agent on the same runner as the extractor (the six restricted
 * tools, a MemoryWriter task, validity checks before every model and tool call, change and usage callbacks) works
 * through the memory directory with the recent sessions' transcripts at hand, and ends with a consolidated MEMORY.md.
 *
 * When a dream is due, `dream.lock` and the attempt time are DreamAttempt's; this module runs one task. It always sends
 * an independent request (our system prompt, the memory rules, the tools section): the conversation that happened to
 * trigger it is not what a dream works on.
 */
import type { Api, Model, Usage } from "@earendil-works/pi-ai"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { backgroundToolsSection } from "../../src/prompts/backgroundTools.ts"
import { dreamTaskPrompt } from "../../src/prompts/dream.ts"
import { BACKGROUND_SYSTEM_PROMPT } from "../../src/prompts/extractor.ts"
import { memoryRulesPrompt, memoryRulesSection } from "../../src/prompts/memoryRules.ts"
import { BACKFILL_MAX_LINES, BACKFILL_MAX_UNITS } from "../../src/limits.ts"
import type { ProjectLocation } from "../../src/storage.ts"
import { randomUUID } from "node:crypto"
import { join } from "node:path"
import { BashGuard } from "../BashGuard.ts"
import { FileSystem } from "../FileSystem.ts"
import { MemoryStore } from "../MemoryStore.ts"
import { MemoryWriter, type TaskInvalid } from "../MemoryWriter.ts"
import { Journal } from "../Journal.ts"
import { ModelRegistry } from "../ModelRegistry.ts"
import { DreamTaskFailed } from "./DreamAttempt.ts"
import { runTask, type StopReason } from "./Runner.ts"
import { makeTaskTools, type MemoryChange, type TaskJournal, taskJournalOf } from "./TaskTools.ts"

export const DREAM_MAX_TURNS = 50
export const DREAM_MAX_TOKENS = 16_384
/** Far above any index the task should leave: enough to measure one that is too long. */
const INDEX_CHECK_CAP = 4 << 20

export interface DreamTaskRequest {
  readonly location: ProjectLocation
  /** The parent session's cwd at task start. */
  readonly cwd: string
  /** The project's Pi session directory, given to the task verbatim (it reads transcripts there, read-only). */
  readonly sessionDir: string
  /** The other sessions updated since the last dream, newest first. */
  readonly sessionIds: ReadonlyArray<string>
  readonly model: Model<Api>
  /** The request's own stable cache id. */
  readonly taskSessionId: string
  /** The Pi session the dream runs from, for the change journal. */
  readonly sessionId?: string
  readonly maxTurns: number
  readonly maxTokens: number
  /** Task validity (trust, generation, config, the lock): checked before every model and tool call. */
  readonly check: Effect.Effect<void, TaskInvalid>
  readonly onChange: (change: MemoryChange) => Effect.Effect<void>
  readonly onUsage: (usage: Usage | undefined) => Effect.Effect<void>
  /** Called once the task starts (the status line). */
  readonly onStart?: Effect.Effect<void>
}

/** MEMORY.md as the task left it, against the size the prompt asked for. */
export interface DreamIndexSize {
  readonly exists: boolean
  readonly lines: number
  readonly chars: number
  /** Over 160 lines or 20,000 characters: later additions may be cut off when the index is loaded. */
  readonly overTarget: boolean
}

export interface DreamTaskResult {
  readonly stop: StopReason
  readonly turns: number
  readonly filesChanged: ReadonlyArray<string>
  readonly finalText: string
  readonly errorMessage: string | undefined
  readonly index: DreamIndexSize
  /** Deletes refused because they went past a quarter of the topics (the files stay). */
  readonly deletesRefused: ReadonlyArray<string>
}

export interface DreamShape {
  /**
   * One consolidation task. An invalidated task (memory off, trust revoked, a new generation, the lock lost) ends as
   * an interruption, like an abort; anything else that throws while the agent works fails in the "fork" phase, and a
   * failure while checking the result afterwards in the "completion" phase.
   */
  readonly consolidate: (request: DreamTaskRequest) => Effect.Effect<DreamTaskResult, DreamTaskFailed>
}

/** Lines as a reader counts them: a final newline does not open another line. */
export const indexSize = (text: string | undefined): DreamIndexSize => {
  if (text === undefined) return { exists: false, lines: 0, chars: 0, overTarget: false }
  const lines = text.length === 0 ? 0 : text.replace(/\n$/, "").split("\n").length
  return { exists: true, lines, chars: text.length, overTarget: lines > BACKFILL_MAX_LINES || text.length > BACKFILL_MAX_UNITS }
}

const messageOf = (e: unknown): string =>
  e instanceof Error ? e.message : typeof e === "object" && e !== null && "message" in e ? String((e as { message: unknown }).message) : String(e)

export const makeDream = Effect.gen(function*() {
  const registry = yield* ModelRegistry
  const store = yield* MemoryStore
  const writer = yield* MemoryWriter
  const guard = yield* BashGuard
  const fs = yield* FileSystem
  const journal = yield* Journal

  /** Every change of one dream is recorded under one task id before it is published, so `pm undo` can reverse it. */
  const taskJournal = (request: DreamTaskRequest): TaskJournal =>
    taskJournalOf(journal, request.location.memoryRootDir, {
      kind: "dream",
      session: request.sessionId ?? null,
      model: `${request.model.provider}/${request.model.id}`
    })

  const agent = (request: DreamTaskRequest, filesChanged: Array<string>) =>
    Effect.gen(function*() {
      if (request.onStart !== undefined) yield* request.onStart
      const { memoryDir } = request.location
      const check = request.check
      const task = yield* writer.openTask({ memoryDir, cwd: request.cwd, check })
      // The topics at the start: the catalog for the prompt, and the base of the delete cap.
      const { topics } = yield* store.scanTopics(memoryDir)
      const tools = yield* Effect.tryPromise({
        try: () =>
          makeTaskTools({
            cwd: request.cwd,
            memoryDir,
            writer: task,
            guard,
            check,
            journal: taskJournal(request),
            deleteCap: { topics: topics.length },
            onChange: (change) =>
              Effect.sync(() => {
                if (!filesChanged.includes(change.path)) filesChanged.push(change.path)
              }).pipe(Effect.zipRight(request.onChange(change)))
          }),
        catch: (e) => new DreamTaskFailed({ phase: "fork", reason: `cannot set up the task's tools: ${messageOf(e)}` })
      })
      return yield* Effect.gen(function*() {
        const section = backgroundToolsSection(memoryDir, request.cwd)
        const result = yield* runTask({
          model: request.model,
          request: {
            mode: "independent",
            systemPrompt: [BACKGROUND_SYSTEM_PROMPT, memoryRulesSection(memoryDir), section].join("\n\n"),
            messages: [],
            instructions: dreamTaskPrompt({ memoryDir, sessionDir: request.sessionDir, sessionIds: request.sessionIds, catalog: topics }),
            sessionId: request.taskSessionId
          },
          maxTurns: request.maxTurns,
          maxTokens: request.maxTokens,
          tools,
          check,
          onUsage: request.onUsage
        }).pipe(Effect.provideService(ModelRegistry, registry))
        return { result, deletesRefused: tools.deleteCapStatus?.()?.refused ?? [] }
      }).pipe(Effect.ensuring(Effect.promise(() => tools.close("the task ended"))))
    })

  const consolidate = Effect.fn("Dream.consolidate")(function*(request: DreamTaskRequest) {
    const filesChanged: Array<string> = []
    const { result, deletesRefused } = yield* agent(request, filesChanged).pipe(
      // An invalid task was stopped from outside, as an abort is: it keeps its attempt time.
      Effect.catchTag("TaskInvalid", () => Effect.interrupt),
      Effect.catchAll((e) => Effect.fail(e._tag === "DreamTaskFailed" ? e : new DreamTaskFailed({ phase: "fork", reason: messageOf(e) })))
    )
    const text = yield* fs.readRegularFile(join(request.location.memoryDir, "MEMORY.md"), INDEX_CHECK_CAP).pipe(
      Effect.map((r): string | undefined => new TextDecoder().decode(r.bytes)),
      Effect.catchAll((e) =>
        e.reason === "NotFound"
          ? Effect.succeed(undefined)
          : Effect.fail(new DreamTaskFailed({ phase: "completion", reason: `cannot read MEMORY.md after the task: ${messageOf(e)}` })))
    )
    return {
      stop: result.stop,
      turns: result.turns,
      filesChanged,
      finalText: result.finalText,
      errorMessage: result.errorMessage,
      index: indexSize(text),
      deletesRefused
    } satisfies DreamTaskResult
  })

  return { consolidate } satisfies DreamShape
})

export class Dream extends Context.Tag("pm/Dream")<Dream, DreamShape>() {
  static readonly layer: Layer.Layer<Dream, never, ModelRegistry | MemoryStore | MemoryWriter | BashGuard | FileSystem | Journal> =
    Layer.effect(Dream, makeDream)
}
