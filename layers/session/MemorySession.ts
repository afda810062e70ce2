/**
 * MemorySession: the main-session side of project memory inside Pi. It holds one session's state (generation,
 * project location, prompt snapshot, branch recall state, prefetches in flight) and turns host events into memory
 * work. The extension entry only forwards events here.
 *
 * Cancellation is interruption: a new generation (session start, reload, config change, global off, revoked trust)
 * interrupts every prefetch of the old one, and an aborted run ends its prefetches when it settles. Pi 1.6 gives
 * `before_agent_start` no abort signal (the run does not exist yet), so the request's wait is bounded by its own
 * 2 s timer, read from Effect's Clock.
 *
 * This module holds the Tag and puts the session together from its parts: sessionShape.ts (the interface),
 * sessionState.ts (state and generations), promptSections.ts (the system prompt sections), recallHook.ts (the
 * per-request recall), toolCallGuard.ts and toolResultNotes.ts (the main agent's tool calls on memory) and
 * sessionStatus.ts (`/memory status` and `/memory context`); the commands that change something are here.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { homedir } from "node:os"
import { relative, sep } from "node:path"
import { type Feature, switchPath } from "../../src/project/config.ts"
import { isWithin, resolveToolPath } from "../../src/safety/toolPath.ts"
import { ConfigService } from "../project/ConfigService.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { Journal } from "../writes/Journal.ts"
import { LockService } from "../storage/LockService.ts"
import { undoUnderLocks } from "../writes/MemoryUndo.ts"
import { Host } from "./Host.ts"
import { MemoryStore } from "../memory/MemoryStore.ts"
import { ModelRegistry } from "../model/ModelRegistry.ts"
import { ProjectLocator } from "../project/ProjectLocator.ts"
import { Recall } from "../recall/Recall.ts"
import { StateStore } from "../storage/StateStore.ts"
import { makePromptSections } from "./promptSections.ts"
import { makeRecallHook } from "./recallHook.ts"
import type { MemorySessionShape } from "./sessionShape.ts"
import { type Active, makeSessionState } from "./sessionState.ts"
import { makeSessionStatus } from "./sessionStatus.ts"
import { makeToolCallGuard } from "./toolCallGuard.ts"
import { makeToolResultNotes } from "./toolResultNotes.ts"

/** The branch recall budget, for the entries that show it (they import layers, never src/ directly). */
export { BRANCH_RECALL_BUDGET } from "../../src/limits.ts"

export const makeMemorySession = Effect.gen(function* () {
  const fs = yield* FileSystem
  const config = yield* ConfigService
  const journal = yield* Journal
  const lockService = yield* LockService

  const state = yield* makeSessionState
  const { activate, active, inactiveReason, nextGeneration, prefetches, rebuild, skipNextUserMessage, usable } = state

  /** A tool's `path` as Pi resolves it, inside the memory directory (configured or canonical spelling), or undefined. */
  const memoryFileOf = (a: Active, cwd: string, rawPath: unknown): Effect.Effect<string | undefined> =>
    Effect.gen(function* () {
      if (typeof rawPath !== "string" || rawPath === "") return undefined
      const abs = resolveToolPath(rawPath, cwd, homedir())
      if (abs === undefined) return undefined
      const real = yield* fs.realpath(abs).pipe(Effect.orElseSucceed(() => abs))
      for (const [dir, path] of [[a.location.memoryDir, abs], [a.canonicalMemoryDir, real], [a.canonicalMemoryDir, abs]] as const) {
        if (isWithin(dir, path) && relative(dir, path) !== "") return relative(dir, path).split(sep).join("/")
      }
      return undefined
    })

  const sections = yield* makePromptSections(state)
  const { beforeAgentStart, userMessageEntered } = yield* makeRecallHook(state, sections)
  const { toolCall } = yield* makeToolCallGuard(state, memoryFileOf)
  const { toolResult } = yield* makeToolResultNotes(state, memoryFileOf)
  const { context, projectRoot, status } = yield* makeSessionStatus(state, sections)

  const setSwitch = (what: "memory" | Feature, on: boolean, scope: "global" | "project") =>
    Effect.gen(function* () {
      const root = scope === "project" ? yield* projectRoot : undefined
      if (scope === "project" && root === undefined) return yield* Effect.fail(new Error("the project's root could not be found, so nothing was saved"))
      yield* config.setKey(switchPath(what, root), on)
      yield* activate
      return root
    })
  const setEnabled = (enabled: boolean) => Effect.asVoid(setSwitch("memory", enabled, "global"))

  const undo = (task?: string) =>
    Effect.gen(function* () {
      const a = yield* usable
      if (a === undefined) return yield* Effect.fail(new Error(`project memory is not active: ${(yield* Ref.get(inactiveReason)) ?? "untrusted project"}`))
      return yield* undoUnderLocks(a.location, { ...(task === undefined ? {} : { task }), session: a.sessionId, model: null }).pipe(
        Effect.provideService(Journal, journal),
        Effect.provideService(LockService, lockService)
      )
    })

  return {
    undo,
    context,
    start: activate,
    rebuild,
    branchChanged: FiberSet.clear(prefetches).pipe(Effect.zipRight(rebuild)),
    reconfigure: activate,
    shutdown: nextGeneration.pipe(Effect.zipRight(Ref.set(active, undefined))),
    beforeAgentStart,
    userMessageEntered,
    settled: (aborted) =>
      Ref.set(skipNextUserMessage, false).pipe(Effect.zipRight(aborted ? FiberSet.clear(prefetches) : Effect.void)),
    toolCall,
    toolResult,
    status,
    prefetchesDone: FiberSet.awaitEmpty(prefetches),
    setEnabled,
    setSwitch
  } satisfies MemorySessionShape
})

export class MemorySession extends Context.Tag("pm/MemorySession")<MemorySession, MemorySessionShape>() {
  /** The service's one constructor (its layer's, and the extension graph's). */
  static readonly make = makeMemorySession
  static readonly layer: Layer.Layer<
    MemorySession,
    never,
    Host | FileSystem | ConfigService | ProjectLocator | MemoryStore | Recall | ModelRegistry | StateStore | Journal | LockService
  > = Layer.scoped(MemorySession, MemorySession.make)
}
