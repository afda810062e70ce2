/**
 * One session's state and its life cycle: the generation (a new one interrupts every prefetch of the old), whether
 * memory is active and why not, the prompt snapshot, the branch recall state, the last recall and the prefetches in
 * flight. `activate` starts a generation from config.json and the project's location; `usable` is the active
 * session while the project is trusted (trust read at the moment of use). Decides nothing about a request or a tool.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberSet from "effect/FiberSet"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import { type Config, type EffectiveSwitches, mayBeOnSomewhere, offReason, switchesFor } from "../../src/project/config.ts"
import { pullAtStart } from "../history/autoSync.ts"
import { type BranchRecallState, emptyRecallState, rebuildRecallState } from "../../src/recall/recallState.ts"
import type { ProjectLocation } from "../../src/storage/layout.ts"
import { ConfigService } from "../project/ConfigService.ts"
import { ProjectLocator } from "../project/ProjectLocator.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { Host } from "./Host.ts"

export interface Active {
  readonly location: ProjectLocation
  readonly canonicalMemoryDir: string
  readonly config: Config
  /** The switches in force for this project (memory is on, or the session would not be active). */
  readonly switches: EffectiveSwitches
  readonly sessionId: string
}

export interface Snapshot {
  readonly rules: string
  /** The trimmed index as read: what a later read is compared with to notice a change. */
  readonly index: string
  /** The index as injected: sanitized (DECISIONS D5), so memory text cannot close or open one of our sections. */
  readonly indexSection: string
  /** MEMORY.md's identity, size and mtime before it was read: while unchanged, the file need not be read again. */
  readonly indexStamp: string
  /** The notice that the index changed since this snapshot went out with a request (it stays in the conversation). */
  readonly noticeSent?: boolean
}

export type SessionState = Effect.Effect.Success<typeof makeSessionState>

export const makeSessionState = Effect.gen(function* () {
  const host = yield* Host
  const fs = yield* FileSystem
  const config = yield* ConfigService
  const locator = yield* ProjectLocator
  const scope = yield* Effect.scope

  const generation = yield* Ref.make(0)
  const active = yield* Ref.make<Active | undefined>(undefined)
  const inactiveReason = yield* Ref.make<string | undefined>("not started")
  const snapshot = yield* Ref.make<Snapshot | undefined>(undefined)
  const branchState = yield* Ref.make<BranchRecallState>(emptyRecallState)
  /** The next user message_end belongs to a request already prefetched in before_agent_start. */
  const skipNextUserMessage = yield* Ref.make(false)
  /** The last recall delivered in this session (what `/memory context` shows): its message, topics and text. */
  const lastRecall = yield* Ref.make<{ readonly query: string; readonly selected: ReadonlyArray<string>; readonly text: string } | undefined>(undefined)
  // Prefetch fibers live in the layer's scope: closing the runtime interrupts whatever is still running.
  const prefetches = yield* FiberSet.make<void, never>().pipe(Scope.extend(scope))

  /** Interrupts every prefetch of the current generation and counts the next one. */
  const nextGeneration = FiberSet.clear(prefetches).pipe(Effect.zipRight(Ref.updateAndGet(generation, (g) => g + 1)))

  const warn = (message: string) => host.notify(message, "warning")

  /** config.json's mtime at activation (-1 when absent): another session's `/memory off` shows up as a change. */
  const configStamp = yield* Ref.make(-1)
  // Asked on every request: one synchronous stat (a batch of one), not a thread-pool round trip.
  const readConfigStamp = fs.statMany([config.configPath]).pipe(
    Effect.map(([stat]) => (stat !== undefined && Either.isRight(stat) ? stat.right.mtimeMs : -1))
  )

  const activate = Effect.gen(function* () {
    yield* nextGeneration
    yield* Ref.set(snapshot, undefined)
    yield* Ref.set(skipNextUserMessage, false)
    yield* Ref.set(active, undefined)
    yield* Ref.set(configStamp, yield* readConfigStamp)
    const { config: cfg, warnings } = yield* config.load
    for (const w of warnings) yield* warn(`Project memory: ${w.message}`)
    const off = (e: EffectiveSwitches["memory"]) =>
      Ref.set(inactiveReason, cfg.closed !== undefined && e.from !== "project" ? `off because ${cfg.closed} (fix the file; the warning says where)` : offReason("memory", e))
    // Switched off everywhere: nothing is located (no git call, no directory made).
    if (!mayBeOnSomewhere(cfg)) return yield* off(switchesFor(cfg, undefined).memory)
    const cwd = yield* host.cwd
    // Off globally but on for some project: look at the root first, without making anything.
    if (!cfg.enabled) {
      const root = yield* locator.projectRootOf(cwd).pipe(Effect.orElseSucceed(() => undefined))
      const memory = switchesFor(cfg, root).memory
      if (!memory.on) return yield* off(memory)
    }
    const located = yield* locator.locate(cwd).pipe(Effect.either)
    if (located._tag === "Left") {
      yield* Ref.set(inactiveReason, located.left.message)
      return yield* warn(`Project memory is off for this session: ${located.left.message}`)
    }
    const switches = switchesFor(cfg, located.right.projectRoot)
    if (!switches.memory.on) return yield* off(switches.memory)
    const canonicalMemoryDir = yield* fs.realpath(located.right.memoryDir).pipe(Effect.orElseSucceed(() => located.right.memoryDir))
    const sessionId = yield* host.sessionId
    yield* Ref.set(active, { location: located.right, canonicalMemoryDir, config: cfg, switches, sessionId })
    // Sync on: a pull starts now, in this process; the first recall waits a little for it (recallHook.ts).
    pullAtStart({ memoryRootDir: located.right.memoryRootDir, memoryDir: located.right.memoryDir })
    yield* Ref.set(inactiveReason, undefined)
    yield* Ref.set(branchState, rebuildRecallState(yield* host.branch))
  })

  const rebuild = Effect.gen(function* () {
    yield* Ref.set(snapshot, undefined)
    yield* Ref.set(branchState, rebuildRecallState(yield* host.branch))
  })

  /** Active and trusted, or nothing. Trust is read at the moment of use (D8); losing it interrupts the prefetches. */
  const wasTrusted = yield* Ref.make(true)
  const usable = Effect.gen(function* () {
    const a = yield* Ref.get(active)
    if (a === undefined) return undefined
    const trusted = yield* host.isTrusted
    // Losing trust is a new generation: whatever the old one started is interrupted.
    if ((yield* Ref.getAndSet(wasTrusted, trusted)) && !trusted) yield* nextGeneration
    return trusted ? a : undefined
  })

  /** A config.json change on disk is a reload of ours: a new generation with the new settings. */
  const followConfig = Effect.gen(function* () {
    if ((yield* readConfigStamp) !== (yield* Ref.get(configStamp))) yield* activate
  })

  return {
    generation,
    active,
    inactiveReason,
    snapshot,
    branchState,
    skipNextUserMessage,
    lastRecall,
    prefetches,
    nextGeneration,
    warn,
    configStamp,
    readConfigStamp,
    activate,
    rebuild,
    usable,
    followConfig
  }
})
