/** The extraction task behind Extractor (Extractor.ts, its interface extractorInterface.ts): imported at the first extraction. */
import type { Message } from "@earendil-works/pi-ai"
import * as Effect from "effect/Effect"
import * as Clock from "effect/Clock"
import { conversationText } from "../../src/background/conversationText.ts"
import { evidenceOf } from "../../src/background/evidence.ts"
import * as Exit from "effect/Exit"
import { decideExtraction, type BranchEntry } from "../../src/background/cursor.ts"
import { EXTRACT_CATALOG_MAX_TOPICS, SCAN_MAX_TOPICS } from "../../src/limits.ts"
import { chooseCandidates } from "../../src/recall/candidates.ts"
import { forkTools, forkVerdict, stripForeignReasoning } from "../../src/background/request.ts"
import { backgroundToolsSection } from "../../src/background/prompts/backgroundTools.ts"
import { BACKGROUND_SYSTEM_PROMPT, extractorTaskPrompt } from "../../src/background/prompts/extractor.ts"
import { emptyMemoryRulesPrompt, memoryRulesSection } from "../../src/session/memoryRules.ts"
import { localDay } from "../../src/session/today.ts"
import { estimateInputTokens, fittingSuffix, maxInputTokens, messageChars, requestChars, tokensOfChars } from "../../src/model/requestFit.ts"
import { locksDirOf } from "../../src/storage/layout.ts"
import { LockService } from "../storage/LockService.ts"
import { MemoryStore } from "../memory/MemoryStore.ts"
import { TaskInvalid } from "../writes/writeErrors.ts"
import { offeredTools } from "./tools/offeredTools.ts"
import type { FinishedCall, TaskRequest } from "./Runner.ts"
import type { MemoryChange } from "./tools/taskTool.ts"
import { batchMayComplete, indexLinksWritten } from "../../src/background/extractionComplete.ts"
import { indexInPrefix } from "../../src/background/knownIndex.ts"
import { makeTaskSetup } from "./taskSetup.ts"
import { type ExtractionError, ExtractionFailed, type ExtractionOutcome, type ExtractionRequest, type ExtractorShape } from "./extractorInterface.ts"

/** The outcome of a task that ran (not skipped, not busy). */
type RanOutcome = Extract<ExtractionOutcome, { readonly status: "ran" }>

/** A session entry's message as the model sees it; undefined for what the model never sees. */
/** An extraction's wall-clock budget: past it the task is interrupted and its record says so (Runner.ts). */
export const EXTRACTION_BUDGET_MS = 10 * 60_000

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
  const store = yield* MemoryStore
  const locks = yield* LockService
  const setup = yield* makeTaskSetup

  const runLocked = (
    request: ExtractionRequest,
    entries: ReadonlyArray<BranchEntry>,
    advanceTo: string,
    taskCheck: Effect.Effect<void, TaskInvalid>,
    messageCount = entries.length
  ): Effect.Effect<RanOutcome, ExtractionError> => {
    const { memoryDir } = request.location
    const filesChanged: Array<string> = []
    const changes: Array<MemoryChange> = []
    // The index the model holds word for word (a fork's system prompt): a whole read of an unchanged MEMORY.md points
    // to it instead of sending it again. Set once the request is chosen; an independent request has none.
    let knownIndex: string | undefined
    // Kept when the cursor moves past these messages (or a queued job leaves the queue); otherwise rolled back, so
    // trying them again saves nothing twice.
    return setup.whole(request, {
      kind: "extract",
      session: request.sessionId ?? request.parent?.sessionId ?? null,
      lock: "extract.lock",
      range: entries.length === 0 ? null : { from: entries[0]!.id, to: advanceTo }
    }, (journal) => setup.withTaskTools({
      request,
      check: taskCheck,
      journal: () => journal,
      filesChanged,
      changes,
      before: Effect.void,
      toolOptions: () => ({
        codemode: request.codemode,
        knownIndex: () => knownIndex,
        // What its writes are judged against: the conversation it was given, by who said what (src/writes/provenance.ts).
        provenance: {
          task: "extract",
          evidence: evidenceOf([
            ...(request.parent?.messages ?? []),
            ...entries.filter((e) => e.type !== "custom_message").map(toModelMessage).filter((m): m is Message => m !== undefined)
          ], request.isMemoryPath),
          rootDir: request.location.memoryRootDir,
          session: request.sessionId ?? request.parent?.sessionId ?? null
        }
      }),
      setupFailed: (e) => new ExtractionFailed({ reason: `cannot set up the task's tools: ${e instanceof Error ? e.message : String(e)}` })
    }, (tools, check) =>
      Effect.gen(function*(): Effect.fn.Return<RanOutcome, ExtractionError> {
        // The existing memories it would duplicate: those nearest to these messages, then the newest, within the
        // selector's catalog budget; in a fork, whose system prompt holds the index of every memory, at most
        // EXTRACT_CATALOG_MAX_TOPICS of them.
        const said = conversationText(entries.map(toModelMessage).filter((m): m is Message => m !== undefined))
        const { ranked, topics } = yield* store.rankTopics(memoryDir, said, SCAN_MAX_TOPICS)
        // What the task needs of the rules (what to save and how): the parent of an empty memory has no more.
        const rules = emptyMemoryRulesPrompt(memoryDir)
        const model = request.model
        const identity = { provider: model.provider, api: model.api, id: model.id }
        const today = localDay(yield* Clock.currentTimeMillis)
        const promptFor = (recentMessages: number, maxTopics: number) => {
          const shown = chooseCandidates(ranked, topics, undefined, maxTopics)
          return extractorTaskPrompt({ memoryDir, today, recentMessages, catalog: store.catalog(shown), unlisted: topics.length - shown.length })
        }
        const parent = request.parent
        const verdict = forkVerdict(
          parent === undefined ? undefined : { model: parent.model, tools: parentTools(parent.messages) },
          { model: identity, tools: tools.tools.map((t) => t.declaration) }
        )
        const fork = verdict.fork && parent !== undefined
        // What the model may call: in a fork, the task's tools the parent declares; else all of the task's own.
        const forkOffered = fork ? offeredTools(tools, forkTools(parentTools(parent.messages), tools.tools.map((t) => t.declaration))) : tools
        const sectionFor = (set: typeof tools) => backgroundToolsSection(request.cwd, set.tools.map((t) => t.name))
        const inputLimit = maxInputTokens(model, request.maxTokens)
        const forkRequest: TaskRequest | undefined = fork
          ? {
            mode: "fork",
            prefix: parent.messages,
            instructions: [
              sectionFor(forkOffered),
              ...(parentHasRules(parent.messages, rules) ? [] : [memoryRulesSection(memoryDir)]),
              // The parent's messages after the cursor, as it sent them: change notices count, system entries not.
              promptFor(messageCount, EXTRACT_CATALOG_MAX_TOPICS)
            ].join("\n\n"),
            sessionId: parent.sessionId
          }
          : undefined
        // A fork that would not fit the model's window (the parent's history plus the task) becomes an independent
        // request; an independent one keeps the most recent messages that fit, as a limit on recent messages does.
        const forkFits = forkRequest?.mode === "fork" &&
          estimateInputTokens({ messages: [...forkRequest.prefix, { role: "user", content: forkRequest.instructions }] }) <= inputLimit
        let shortened: string | undefined = forkRequest !== undefined && !forkFits
          ? "the parent's request with the task does not fit the model's context window: independent request"
          : undefined
        let taskRequest: TaskRequest
        if (forkRequest !== undefined && forkFits) {
          taskRequest = forkRequest
          knownIndex = indexInPrefix(forkRequest.prefix)
        } else {
          const systemPrompt = [BACKGROUND_SYSTEM_PROMPT, memoryRulesSection(memoryDir), sectionFor(tools)].join("\n\n")
          const all = dropOrphanResults(stripForeignReasoning(
            entries.map(toModelMessage).filter((m): m is Message => m !== undefined),
            identity
          ))
          const fixed = requestChars({
            systemPrompt,
            messages: [{ role: "user", content: promptFor(all.length, SCAN_MAX_TOPICS) }],
            tools: tools.tools.map((t) => t.declaration)
          })
          const budget = Number.isFinite(inputLimit) ? inputLimit * 4 - fixed : Number.POSITIVE_INFINITY
          const keep = fittingSuffix(all.map(messageChars), budget)
          let messages = dropOrphanResults(all.slice(all.length - keep))
          // A request opens with the user's turn.
          const firstUser = messages.findIndex((m) => m.role === "user")
          messages = firstUser < 0 ? [] : messages.slice(firstUser)
          if (messages.length === 0) {
            const inputTokens = tokensOfChars(fixed + all.reduce((n, m) => n + messageChars(m), 0))
            return {
              status: "ran",
              stop: "too-large",
              turns: 0,
              mode: "independent",
              filesChanged,
              ...(tools.sandbox === undefined ? {} : { sandbox: tools.sandbox }),
              finalText: "",
              errorMessage:
                `not sent: no recent message fits the model's ${model.contextWindow}-token context window with the task (about ${inputTokens} input tokens for all ${all.length})`,
              advanceTo
            }
          }
          if (messages.length < all.length) {
            shortened = `${shortened === undefined ? "" : `${shortened}; `}the last ${messages.length} of ${all.length} messages fit the model's context window`
          }
          taskRequest = {
            mode: "independent",
            systemPrompt,
            messages,
            instructions: promptFor(messages.length, SCAN_MAX_TOPICS),
            sessionId: request.taskSessionId
          }
        }
        // Done once a batch of writes and edits has landed and left every topic it wrote in the index.
        let changesSeen = 0
        const finishedAfter = (batch: ReadonlyArray<FinishedCall>) =>
          Effect.suspend(() => {
            const changedInBatch = changes.length - changesSeen
            changesSeen = changes.length
            if (!batchMayComplete(batch.map((c) => ({ name: c.name, isError: c.result.isError === true })), changedInBatch)) {
              return Effect.succeed(false)
            }
            return store.readIndexFile(memoryDir).pipe(
              Effect.map((index) => indexLinksWritten(changes, memoryDir, index)),
              Effect.orElseSucceed(() => false)
            )
          })
        const result = yield* setup.run(request, taskRequest, taskRequest.mode === "fork" ? forkOffered : tools, check, EXTRACTION_BUDGET_MS, finishedAfter)
        return {
          status: "ran",
          stop: result.stop,
          turns: result.turns,
          mode: taskRequest.mode,
          filesChanged,
          finalText: result.finalText,
          errorMessage: result.errorMessage,
          advanceTo,
          unsaved: tools.unsaved?.() ?? [],
          writeFailures: tools.writeFailures(),
          ...(shortened === undefined ? {} : { shortened }),
          ...(tools.sandbox === undefined ? {} : { sandbox: tools.sandbox })
        }
      })), (exit) =>
      Exit.isSuccess(exit) && exit.value.stop !== "aborted" && !(request.rollBackOnModelError === true && exit.value.stop === "api-error")).pipe(
      Effect.catchTag("TaskUnfinished", (e) => Effect.fail(new ExtractionFailed({ reason: e.message })))
    )
  }

  const extract = Effect.fn("Extractor.extract")(function*(request: ExtractionRequest) {
    const decision = decideExtraction(request.branch, request.cursor, request.isMemoryPath, { skipExternalContext: request.skipExternalContext === true })
    if (decision._tag === "Skip") {
      return { status: "skipped", reason: decision.reason, advanceTo: decision.advanceTo } satisfies ExtractionOutcome
    }
    const locksDir = locksDirOf(request.location.memoryRootDir)
    const kind = request.lockKind ?? "extraction in a pi session"
    const underLock = (maxWaitMs: number) =>
      locks.withLock(locksDir, "extract.lock", (lock) =>
        Effect.zipRight(
          // A change interrupted earlier under this lock is finished or rolled back before this one starts.
          setup.recover(request, "extract.lock").pipe(
            Effect.mapError((e) => new ExtractionFailed({ reason: `a change interrupted earlier could not be rolled back first: ${e.message}` }))
          ),
          runLocked(
            request,
            decision.entries,
            decision.advanceTo,
            request.check.pipe(
              Effect.zipRight(lock.ensureHeld.pipe(Effect.mapError(() => new TaskInvalid({ reason: "the extraction lock was lost" }))))
            ),
            decision.messageCount
          )
        ), {
        maxWaitMs,
        kind,
        ...(request.onLockWait === undefined ? {} : { onWaiting: (busy) => request.onLockWait!(busy.description) })
      })
    // One attempt first, so that a caller hears at once that it waits (a session's end hands such work over).
    let outcome = yield* underLock(0)
    if (outcome._tag === "Busy" && (request.lockWaitMs ?? 0) > 0) {
      if (request.onLockWait !== undefined) yield* request.onLockWait(outcome.description)
      outcome = yield* underLock(request.lockWaitMs!)
    }
    return outcome._tag === "Busy"
      ? ({ status: "busy", holder: outcome.description, waitedMs: request.lockWaitMs ?? 0 } satisfies ExtractionOutcome)
      : outcome.value
  })

  return { extract } satisfies ExtractorShape
})
