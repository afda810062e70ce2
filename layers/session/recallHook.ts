/**
 * The per-request recall hook: each request (and each queued user message) starts a prefetch of recall in the
 * current generation. A request waits for it at most SELECTOR_WAIT_MS; a result that comes later is delivered by
 * steer (or with the next turn), and one that is no longer current (new generation, memory off, trust lost,
 * config.json changed) is dropped: neither delivered nor charged nor warned about. A failed recall is one warning
 * and the prompt goes ahead. Builds no system prompt section itself (promptSections.ts does).
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { SELECTOR_WAIT_MS } from "../../src/limits.ts"
import { RECALL_ENTRY, type RecallEntryData, withRecall } from "../../src/recall/recallState.ts"
import { awaitStartPull } from "../history/autoSync.ts"
import { Recall, type RecallOutcome } from "../recall/Recall.ts"
import { Host } from "./Host.ts"
import type { PromptSections } from "./promptSections.ts"
import { type BeforeAgentStartInput, RECALL_MESSAGE } from "./sessionShape.ts"
import type { Active, SessionState } from "./sessionState.ts"

export const makeRecallHook = (state: SessionState, sections: PromptSections) =>
  Effect.gen(function* () {
    const host = yield* Host
    const recall = yield* Recall
    const { active, branchState, configStamp, followConfig, generation, lastRecall, prefetches, readConfigStamp, skipNextUserMessage, usable, warn } =
      state

    /**
     * Whether a prefetch of generation `gen` may still reach the model: the same generation, memory still on, the
     * project still trusted and config.json unchanged since activation. Checked at delivery, since any of them can
     * change while the selector runs; the file check comes first so that the rest is read with nothing in between.
     */
    const stillCurrent = (gen: number) =>
      Effect.gen(function* () {
        const configUnchanged = (yield* readConfigStamp) === (yield* Ref.get(configStamp))
        return configUnchanged && (yield* Ref.get(generation)) === gen && (yield* Ref.get(active)) !== undefined && (yield* host.isTrusted)
      })

    /** Folds a delivered result into the branch state (as a delta: concurrent prefetches all count) and records it. */
    const record = (query: string, outcome: RecallOutcome) =>
      Effect.gen(function* () {
        for (const w of outcome.warnings) yield* warn(w)
        if (outcome.injection !== "") yield* Ref.set(lastRecall, { query: query.trim(), selected: outcome.selected, text: outcome.injection })
        if (outcome.answered) {
          const data: RecallEntryData = { query: query.trim(), selected: outcome.selected, budgetUsed: outcome.budgetUsed, mtimes: outcome.mtimes }
          yield* Ref.update(branchState, (s) => withRecall(s, data))
          yield* host.appendEntry(RECALL_ENTRY, data)
        }
      })

    /**
     * Starts a prefetch in the current generation, which it carries. A result nobody waits for any more is delivered
     * by the fiber. A result that is no longer current is dropped: neither delivered nor charged nor warned about.
     */
    const startPrefetch = (a: Active, query: string, initial: "waiting" | "late") =>
      Effect.gen(function* () {
        const gen = yield* Ref.get(generation)
        // The outcome, or undefined when it was dropped.
        const done = yield* Deferred.make<RecallOutcome | undefined>()
        // "waiting": the request still waits; "late": nobody waits (any more), so the fiber delivers by steer itself.
        // The mode exists before the fiber starts, so even an instant result finds the right one.
        const mode = yield* Ref.make<"waiting" | "late" | "taken">(initial)
        const work = Effect.gen(function* () {
          // The session's first pull (sync on), waited for a bounded time: on timeout, recall reads local memory.
          yield* awaitStartPull(a.location.memoryRootDir)
          const computed = yield* recall.recall({
            memoryDir: a.location.memoryDir,
            projectRoot: a.location.projectRoot,
            query,
            state: yield* Ref.get(branchState),
            modelRef: a.config.selector.model,
            sessionId: `${a.sessionId}-memory-selector`,
            nowMs: Date.now()
          })
          const outcome = (yield* stillCurrent(gen)) ? computed : undefined
          if (outcome !== undefined) yield* record(query, outcome)
          const late = yield* Ref.modify(mode, (m) => [m === "late", "taken" as const])
          if (late) {
            if (outcome !== undefined && outcome.injection !== "") {
              const idle = yield* host.isIdle
              yield* host.sendHidden(RECALL_MESSAGE, outcome.injection, idle ? "nextTurn" : "steer")
            }
          } else yield* Deferred.succeed(done, outcome)
        }).pipe(
          // An interrupted prefetch (aborted run, new generation) releases whoever waits on it at once, and so does one that
          // died (a host call that threw): the waiter then reports it instead of sitting out the 2 s for nothing.
          Effect.onExit((exit) => (Exit.isFailure(exit) ? Deferred.failCause(done, exit.cause) : Effect.void))
        )
        const fiber = yield* FiberSet.run(prefetches, work)
        return { done, mode, fiber }
      })

    /** What recall brings for this request ("" for nothing); a failure is one warning, and the prompt goes ahead. */
    const recallFor = (a: Active, prompt: string) =>
      Effect.gen(function* () {
        // Recall switched off: the index and the rules stay, no topic is selected or injected.
        if (!a.switches.recall.on) return ""
        yield* Ref.set(skipNextUserMessage, true)
        const pending = yield* startPrefetch(a, prompt, "waiting")
        const inTime = yield* Deferred.await(pending.done).pipe(Effect.timeoutOption(Duration.millis(SELECTOR_WAIT_MS)))
        if (Option.isSome(inTime)) return inTime.value?.injection ?? ""
        const late = yield* Ref.modify(pending.mode, (m) => (m === "taken" ? [false, m] : [true, "late" as const]))
        if (late) return ""
        // Finished between the timeout and the hand-over: use it now.
        return (yield* Deferred.await(pending.done))?.injection ?? ""
      }).pipe(
        Effect.catchAllCause((cause) =>
          // A cancelled recall is silent; anything else is one warning, and the prompt goes ahead either way.
          Cause.isInterruptedOnly(cause)
            ? Effect.succeed("")
            : warn(`Project memory: recall failed (${Cause.pretty(cause).split("\n")[0]})`).pipe(Effect.as(""))
        )
      )

    const beforeAgentStart = (input: BeforeAgentStartInput) =>
      Effect.gen(function* () {
        yield* followConfig
        const a = yield* usable
        if (a === undefined) return undefined
        // A changed index is said once, before what recall brings (both ride with the request as one message); a
        // recall that fails or is cancelled does not take the notice with it.
        const notice = yield* sections.fill(a, input.sections)
        const parts = [notice ?? "", yield* recallFor(a, input.prompt)].filter((p) => p !== "")
        return parts.length === 0 ? undefined : { content: parts.join("\n\n") }
      }).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.succeed(undefined)
            : warn(`Project memory: recall failed (${Cause.pretty(cause).split("\n")[0]})`).pipe(Effect.as(undefined))
        )
      )

    const userMessageEntered = (text: string) =>
      Effect.gen(function* () {
        if (yield* Ref.getAndSet(skipNextUserMessage, false)) return
        // Queued messages follow config.json too, not only requests.
        yield* followConfig
        const a = yield* usable
        if (a === undefined || !a.switches.recall.on) return
        yield* startPrefetch(a, text, "late")
      })

    return { beforeAgentStart, userMessageEntered }
  })
