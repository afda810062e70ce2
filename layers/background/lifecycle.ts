/**
 * The session's start and end for the background side. Start: a new generation with nothing in flight; then, when
 * memory may be on for this project, locate it, read its background settings from config.json (warnings told once
 * each), take the cursor as this session's branch has it, read the run history and check the configured models.
 * Memory off or no project: the session stays inactive and no task starts.
 *
 * Shutdown: a drain of the project's queue is stopped at once (its jobs stay queued); then up to SHUTDOWN_WAIT_MS
 * for the session's own background work, except that an extraction waiting for extract.lock held by another process
 * is not waited for (it is stopped at once, and the wait goes on for the rest); then invalidation interrupts what
 * still runs, and what the extraction did not cover is handed to the queue (handOff.ts). A reload stops everything at
 * once and hands nothing over: the reloaded extension goes on with the same session. A one-shot run whose queue has a
 * background worker (src/background/queueWorker.ts) does not wait at all: its work is interrupted (what it saved is
 * rolled back, whole or absent) and handed over at once; the result names the queue then, for the worker.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { decodeBackgroundConfig, defaultBackgroundConfig } from "../../src/background/config.ts"
import { mayBeOnSomewhere, switchesFor } from "../../src/project/config.ts"
import { ConfigService } from "../project/ConfigService.ts"
import { ProjectLocator } from "../project/ProjectLocator.ts"
import { Host } from "../session/Host.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import type { BranchCursor } from "./branchCursor.ts"
import type { HandOff } from "./handOff.ts"
import type { RunLog } from "./runLog.ts"
import type { Scheduling } from "./scheduling.ts"
import type { SessionDrain } from "./sessionDrain.ts"
import type { SessionNotices } from "./sessionNotices.ts"
import { type Active, safe, type SessionState } from "./sessionState.ts"
import type { TaskValidity } from "./taskValidity.ts"

export const SHUTDOWN_WAIT_MS = 60_000

export const makeLifecycle = (
  state: SessionState,
  parts: {
    readonly notices: SessionNotices
    readonly runLog: RunLog
    readonly branch: BranchCursor
    readonly validity: TaskValidity
    readonly scheduling: Scheduling
    readonly drain: SessionDrain
    readonly handOff: HandOff
  }
) =>
  Effect.gen(function*() {
    const host = yield* Host
    const fs = yield* FileSystem
    const config = yield* ConfigService
    const locator = yield* ProjectLocator
    const { generation, active, cursor, captured, history, current, trailing, fibers, dreamCurrent } = state

    const readBackgroundConfig = fs.readRegularFile(config.configPath, 1 << 20).pipe(
      Effect.map((r) => decodeBackgroundConfig(config.configPath, Buffer.from(r.bytes).toString("utf8"))),
      Effect.orElseSucceed(() => ({ config: defaultBackgroundConfig, warnings: [] as ReadonlyArray<string> })),
      Effect.tap(({ warnings }) => Effect.forEach(warnings, (w) => safe(host.notify(`Project memory: ${w}`, "warning"), undefined))),
      Effect.map(({ config }) => config)
    )

    const start = Effect.gen(function*() {
      yield* Ref.update(generation, (g) => g + 1)
      yield* FiberSet.clear(fibers)
      yield* parts.drain.stopDrain
      yield* state.lockWaiting.close
      yield* Ref.set(state.holder, undefined)
      yield* Ref.set(state.ending, false)
      yield* Ref.set(current, undefined)
      yield* Ref.set(dreamCurrent, undefined)
      yield* Ref.set(trailing, false)
      yield* Ref.set(captured, undefined)
      yield* Ref.set(active, undefined)
      const { config: cfg } = yield* config.load
      // Off everywhere, or off for this project (read from its root before anything is made): nothing to run.
      if (!mayBeOnSomewhere(cfg)) return
      const cwd = yield* host.cwd
      if (!cfg.enabled) {
        const root = yield* locator.projectRootOf(cwd).pipe(Effect.orElseSucceed(() => undefined))
        if (!switchesFor(cfg, root).memory.on) return
      }
      const located = yield* locator.locate(cwd).pipe(Effect.option)
      if (Option.isNone(located)) return
      const location = located.value
      if (!switchesFor(cfg, location.projectRoot).memory.on) return
      const canonicalMemoryDir = yield* fs.realpath(location.memoryDir).pipe(Effect.orElseSucceed(() => location.memoryDir))
      const a: Active = { location, canonicalMemoryDir, background: yield* readBackgroundConfig }
      yield* Ref.set(active, a)
      // A cursor held from another session names none of this one's entries: only this session's own count.
      yield* Ref.set(cursor, undefined)
      yield* Ref.set(cursor, yield* parts.branch.branchCursor)
      yield* Ref.set(history, yield* parts.runLog.readHistory(a))
      yield* parts.notices.checkConfiguredModels(cfg.selector.model, a.background)
    })

    /**
     * Up to SHUTDOWN_WAIT_MS for the session's background work to end. An extraction that waits for extract.lock is
     * stopped as soon as it waits (its messages are handed over); says why the rest was not extracted, if any was not.
     */
    const waitForWork = Effect.gen(function*() {
      const deadline = (yield* Clock.currentTimeMillis) + SHUTDOWN_WAIT_MS
      let why = "the session ended before these messages were extracted"
      for (;;) {
        const remaining = deadline - (yield* Clock.currentTimeMillis)
        const first = remaining <= 0 ? Option.none() : yield* Effect.raceFirst(
          parts.scheduling.idle.pipe(Effect.as("idle" as const)),
          state.lockWaiting.await.pipe(Effect.as("lock" as const))
        ).pipe(Effect.timeoutOption(Duration.millis(remaining)))
        if (Option.isNone(first)) {
          if ((yield* Ref.get(current)) !== undefined) why = `the session ended before its extraction finished (exit waits at most ${SHUTDOWN_WAIT_MS / 1000} s)`
          return why
        }
        if (first.value === "idle") return why
        why = `extract.lock was held by ${(yield* Ref.get(state.holder)) ?? "another process"} when the session ended`
        yield* parts.scheduling.interruptCurrent
        yield* state.lockWaiting.close
      }
    })

    const shutdown = (reason: string, atOnce = false) =>
      Effect.gen(function*() {
        yield* parts.drain.stopDrain
        // The drain held extract.lock, perhaps: an extraction waiting for it now gets it, and says again if it still waits.
        yield* state.lockWaiting.close
        yield* Ref.set(state.ending, reason !== "reload")
        const why = reason === "reload"
          ? undefined
          : atOnce
          ? "a one-shot run (pi -p) does not wait for its extraction"
          : yield* waitForWork
        yield* parts.validity.invalidate(reason)
        return why === undefined ? undefined : yield* parts.handOff.handOff(why, atOnce)
      })

    return { start, shutdown }
  })
