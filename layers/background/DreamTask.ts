/** The consolidation task behind Dream (Dream.ts, its interface dreamInterface.ts): imported at the first dream. */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { backgroundToolsSection } from "../../src/background/prompts/backgroundTools.ts"
import { dreamTaskPrompt } from "../../src/background/prompts/dream.ts"
import { BACKGROUND_SYSTEM_PROMPT } from "../../src/background/prompts/extractor.ts"
import { memoryRulesSection } from "../../src/session/memoryRules.ts"
import { localDay } from "../../src/session/today.ts"
import { join } from "node:path"
import { FileSystem } from "../storage/FileSystem.ts"
import { MemoryStore } from "../memory/MemoryStore.ts"
import { DreamTaskFailed } from "./DreamAttempt.ts"
import { dreamCatalog } from "./dreamCatalog.ts"
import { makeTaskSetup } from "./taskSetup.ts"
import { type DreamShape, type DreamTaskRequest, type DreamTaskResult, indexSize } from "./dreamInterface.ts"

/** A dream's wall-clock budget: past it the task is interrupted and its record says so (Runner.ts). */
export const DREAM_BUDGET_MS = 30 * 60_000

/** Far above any index the task should leave: enough to measure one that is too long. */
const INDEX_CHECK_CAP = 4 << 20

const messageOf = (e: unknown): string =>
  e instanceof Error ? e.message : typeof e === "object" && e !== null && "message" in e ? String((e as { message: unknown }).message) : String(e)

/** Whether the task ended on its first request, without a single answer from the model. */
export const requestFailedAtOnce = (result: { readonly stop: string; readonly turns: number }): boolean =>
  (result.stop === "api-error" && result.turns === 1) || (result.stop === "too-large" && result.turns === 0)

export const makeDream = Effect.gen(function*() {
  const store = yield* MemoryStore
  const fs = yield* FileSystem
  const setup = yield* makeTaskSetup

  const agent = (request: DreamTaskRequest, filesChanged: Array<string>) => {
    const { memoryDir } = request.location
    // Kept when the task returns (its model stopped, or its turn or time limit ended it); a dream that fails, is
    // stopped or aborted, or loses its lock is rolled back whole, so it never leaves the index linking a topic it removed.
    return setup.whole(request, { kind: "dream", session: request.sessionId ?? null, lock: "dream.lock" }, (journal) => setup.withTaskTools({
      request,
      check: request.check,
      journal: () => journal,
      filesChanged,
      // Every topic at the start: the base of the delete cap, and what the prompt's catalog is chosen from.
      before: store.scanTopics(memoryDir).pipe(Effect.map(({ topics }) => topics)),
      toolOptions: (topics) => ({
        deleteCap: { topics: topics.length },
        // The dream consolidates memory: its writes are judged by the risky-act rule alone (src/writes/provenance.ts).
        provenance: { task: "dream", evidence: [], rootDir: request.location.memoryRootDir, session: request.sessionId ?? null },
        sessions: { dir: request.sessionDir, ids: [...request.sessionIds, ...(request.sessionId === undefined ? [] : [request.sessionId])] }
      }),
      setupFailed: (e) => new DreamTaskFailed({ phase: "fork", reason: `cannot set up the task's tools: ${messageOf(e)}` })
    }, (tools, check, topics) =>
      Effect.gen(function*() {
        const section = backgroundToolsSection(request.cwd, tools.tools.map((t) => t.name))
        const catalog = yield* dreamCatalog(store, memoryDir, topics)
        const result = yield* setup.run(request, {
          mode: "independent",
          systemPrompt: [BACKGROUND_SYSTEM_PROMPT, memoryRulesSection(memoryDir), section].join("\n\n"),
          messages: [],
          instructions: dreamTaskPrompt({
            memoryDir,
            today: localDay(yield* Clock.currentTimeMillis),
            sessionDir: request.sessionDir,
            sessionIds: request.sessionIds,
            catalog: catalog.listed,
            unlisted: catalog.unlisted
          }),
          sessionId: request.taskSessionId
        }, tools, check, DREAM_BUDGET_MS)
        return {
          result,
          deletesRefused: tools.deleteCapStatus?.()?.refused ?? [],
          topicsAtStart: topics.length,
          unsaved: tools.unsaved?.() ?? [],
          writeFailures: tools.writeFailures(),
          sandbox: tools.sandbox
        }
      })), (exit) => Exit.isSuccess(exit) && exit.value.result.stop !== "aborted").pipe(
      Effect.catchTag("TaskUnfinished", (e) => Effect.fail(new DreamTaskFailed({ phase: "completion", reason: e.message })))
    )
  }

  const consolidate = Effect.fn("Dream.consolidate")(function*(request: DreamTaskRequest) {
    // Holding dream.lock: first the changes killed processes left half done.
    yield* setup.recover(request, "dream.lock").pipe(
      Effect.mapError((e) => new DreamTaskFailed({ phase: "fork", reason: `a change interrupted earlier could not be rolled back first: ${e.message}` }))
    )
    const filesChanged: Array<string> = []
    const { result, deletesRefused, topicsAtStart, unsaved, writeFailures, sandbox } = yield* agent(request, filesChanged).pipe(
      // An invalid task was stopped from outside, as an abort is: it keeps its attempt time.
      Effect.catchTag("TaskInvalid", () => Effect.interrupt),
      Effect.catchAll((e) => Effect.fail(e._tag === "DreamTaskFailed" ? e : new DreamTaskFailed({ phase: "fork", reason: messageOf(e) })))
    )
    // An aborted request ends the dream as an abort does: the attempt time is kept.
    if (result.stop === "aborted") return yield* Effect.interrupt
    // The request itself failed before the model answered once (refused, an error answer, or not sent because it
    // would not fit): no dream took place, so it fails in the fork step and its attempt time is given back.
    if (requestFailedAtOnce(result)) {
      return yield* Effect.fail(new DreamTaskFailed({ phase: "fork", reason: `the first model request failed: ${result.errorMessage ?? "unknown error"}` }))
    }
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
      deletesRefused,
      topicsAtStart,
      unsaved,
      writeFailures,
      ...(sandbox === undefined ? {} : { sandbox })
    } satisfies DreamTaskResult
  })

  return { consolidate } satisfies DreamShape
})
