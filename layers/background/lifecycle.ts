/**
 * The session's start and end for the background side. Start: a new generation with nothing in flight; then, when
 * memory may be on for this project, locate it, read its background settings from config.json (warnings told once
 * each), take the cursor as this session's branch has it, read the run history and check the configured models.
 * Memory off or no project: the session stays inactive and no task starts. Shutdown: up to SHUTDOWN_WAIT_MS for
 * background work, then invalidation interrupts it; a reload stops it at once.
 */
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
import type { RunLog } from "./runLog.ts"
import type { Scheduling } from "./scheduling.ts"
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

    const shutdown = (reason: string) =>
      Effect.gen(function*() {
        if (reason !== "reload") yield* parts.scheduling.idle.pipe(Effect.timeoutOption(Duration.millis(SHUTDOWN_WAIT_MS)))
        yield* parts.validity.invalidate(reason)
      })

    return { start, shutdown }
  })
