/**
 * MemorySession: the main-session side of project memory inside Pi. It holds one session's state (generation,
 * project location, prompt snapshot, branch recall state, prefetches in flight) and turns host events into memory
 * work. The extension entry only forwards events here.
 *
 * Cancellation is interruption: a new generation (session start, reload, config change, global off, revoked trust)
 * interrupts every prefetch of the old one, and an aborted run ends its prefetches when it settles. Pi 1.6 gives
 * `before_agent_start` no abort signal (the run does not exist yet), so the request's wait is bounded by its own
 * 2 s timer, read from Effect's Clock.
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import { basename, dirname, join, relative, sep } from "node:path"
import { homedir } from "node:os"
import { type Config, type EffectiveSwitches, type Feature, mayBeOnSomewhere, offReason, switchesFor, switchPath } from "../../src/project/config.ts"
import { decodeBackgroundConfig } from "../../src/background/config.ts"
import { SELECTOR_WAIT_MS } from "../../src/limits.ts"
import { type ContextPart, memorySections, wrapSection } from "../../src/session/memoryContext.ts"
import { lintIndex, lintTopic } from "../../src/memory/lint.ts"
import { trimIndex } from "../../src/memory/memoryIndex.ts"
import { indexChangedNotice } from "../../src/session/memoryRules.ts"
import {
  emptyRecallState,
  READ_ENTRY,
  rebuildRecallState,
  RECALL_ENTRY,
  withRead,
  withRecall,
  type BranchRecallState,
  type RecallEntryData
} from "../../src/recall/recallState.ts"
import { sanitizeMemoryText, systemReminder } from "../../src/safety/sanitize.ts"
import { credentialInWrite } from "../../src/writes/secretsGuard.ts"
import { stalenessNote } from "../../src/memory/staleness.ts"
import { INDEX_FILE, type ProjectLocation } from "../../src/storage/layout.ts"
import { couldTouchMemory, guardedToolPath, isWithin, resolveToolPath, uncheckedReason, untrustedReason } from "../../src/safety/toolPath.ts"
import { ConfigService } from "../project/ConfigService.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { Journal } from "../writes/Journal.ts"
import type { UndoResult } from "../writes/journalUndo.ts"
import { LockService } from "../storage/LockService.ts"
import { undoUnderLocks } from "../writes/MemoryUndo.ts"
import { Host } from "./Host.ts"
import { MemoryStore } from "../memory/MemoryStore.ts"
import { ModelRegistry } from "../model/ModelRegistry.ts"
import type { UsageTotals } from "../../src/model/usage.ts"
import { ProjectLocator } from "../project/ProjectLocator.ts"
import { Recall, type RecallOutcome } from "../recall/Recall.ts"
import { StateStore } from "../storage/StateStore.ts"

/** The hidden message type of recalled memories (excluded from recall's own input). */
/** The branch recall budget, for the entries that show it (they import layers, never src/ directly). */
export { BRANCH_RECALL_BUDGET } from "../../src/limits.ts"

export const RECALL_MESSAGE = "pm-memory-recall"

export interface ToolBlock {
  readonly block: true
  readonly reason: string
}

export interface ToolResultPatch {
  readonly content: ReadonlyArray<{ readonly type: string }>
}

export interface ToolResultEvent {
  readonly toolName: string
  readonly input: Record<string, unknown>
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly details: unknown
  readonly isError: boolean
}

export interface BeforeAgentStartInput {
  readonly prompt: string
  /** Pi's `systemPromptOptions.sections`, edited in place (the cache-friendly way to extend the prompt). */
  readonly sections: Record<string, string>
}

export interface SessionStatus {
  readonly active: boolean
  readonly reason: string | undefined
  readonly location: ProjectLocation | undefined
  readonly topics: number
  readonly indexLines: number
  readonly indexChars: number
  readonly budgetUsed: number
  /** What recall injected on the current branch since the last compaction: each user message and its topics. */
  readonly recalled?: ReadonlyArray<{ readonly query: string; readonly selected: ReadonlyArray<string> }>
  readonly usage: UsageTotals
  readonly generation: number
  /** Epoch ms of the last consolidation attempt, from the shared state. */
  readonly lastDreamAt: number | null
  /** The switches in force for this project, as config.json says now. */
  readonly switches?: EffectiveSwitches
  /** The project root they were resolved for (undefined: not known, the global switches). */
  readonly projectRoot?: string | undefined
  /** What in config.json cannot be used, one line each (the background keys' too). */
  readonly configProblems?: ReadonlyArray<string>
}

/** What memory adds to the next request of this session (`/memory context`). */
export interface MemoryContext {
  readonly active: boolean
  readonly reason: string | undefined
  readonly parts: ReadonlyArray<ContextPart>
  /** Whether the next message is sent to recall (memory active, trusted, recall on). */
  readonly recallOn: boolean
  readonly switches?: EffectiveSwitches
}

export interface MemorySessionShape {
  readonly start: Effect.Effect<void>
  /** Compaction: drop the prompt snapshot, rebuild the branch state from entries. */
  readonly rebuild: Effect.Effect<void>
  /**
   * Branch navigation: as `rebuild`, and prefetches still running for messages of the branch left behind are
   * interrupted, so their results are neither delivered into nor charged to the new branch.
   */
  readonly branchChanged: Effect.Effect<void>
  /** Config reload or switch: a new generation, without a new session. */
  readonly reconfigure: Effect.Effect<void>
  readonly shutdown: Effect.Effect<void>
  readonly beforeAgentStart: (input: BeforeAgentStartInput) => Effect.Effect<{ readonly content: string } | undefined>
  /** A user message that entered the session (queued or streamed): prefetch for it, deliver by steer. */
  readonly userMessageEntered: (text: string) => Effect.Effect<void>
  /** The agent settled: a pending "already prefetched" mark is stale now; an aborted run also ends its prefetches. */
  readonly settled: (aborted: boolean) => Effect.Effect<void>
  readonly toolCall: (toolName: string, input: Record<string, unknown>) => Effect.Effect<ToolBlock | undefined>
  readonly toolResult: (event: ToolResultEvent) => Effect.Effect<ToolResultPatch | undefined>
  readonly status: Effect.Effect<SessionStatus>
  /** Waits until no prefetch is running (delivered, dropped or interrupted): an event to wait on instead of a time. */
  readonly prefetchesDone: Effect.Effect<void>
  readonly setEnabled: (enabled: boolean) => Effect.Effect<void, unknown>
  /**
   * `/memory on|off [FEATURE] [--project]`: sets one switch in config.json, globally or for this project, and starts
   * a new generation with it. Returns the project root a project switch was saved for.
   */
  readonly setSwitch: (what: "memory" | Feature, on: boolean, scope: "global" | "project") => Effect.Effect<string | undefined, unknown>
  /** `/memory context`: the sections the next request carries and the last recall of this session, as sent. */
  readonly context: Effect.Effect<MemoryContext>
  /** `/memory undo [TASK]`: the newest task not yet undone (or TASK) back to its previous bytes, journaled. */
  readonly undo: (task?: string) => Effect.Effect<UndoResult, unknown>
}

interface Active {
  readonly location: ProjectLocation
  readonly canonicalMemoryDir: string
  readonly config: Config
  /** The switches in force for this project (memory is on, or the session would not be active). */
  readonly switches: EffectiveSwitches
  readonly sessionId: string
}

interface Snapshot {
  readonly rules: string
  /** The trimmed index as read: what a later read is compared with to notice a change. */
  readonly index: string
  /** The index as injected: sanitized (DECISIONS D5), so memory text cannot close or open one of our sections. */
  readonly indexSection: string
  /** MEMORY.md's identity, size and mtime before it was read: while unchanged, the file need not be read again. */
  readonly indexStamp: string
}

const textOf = (content: ReadonlyArray<{ readonly type: string; readonly text?: string }>): string =>
  content.filter((c) => c.type === "text").map((c) => c.text ?? "").join("")

export const makeMemorySession = Effect.gen(function* () {
  const host = yield* Host
  const fs = yield* FileSystem
  const config = yield* ConfigService
  const locator = yield* ProjectLocator
  const store = yield* MemoryStore
  const recall = yield* Recall
  const registry = yield* ModelRegistry
  const stateStore = yield* StateStore
  const journal = yield* Journal
  const lockService = yield* LockService
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

  const indexStampOf = (a: Active) =>
    fs.statMany([join(a.location.memoryDir, INDEX_FILE)]).pipe(
      Effect.map(([stat]) => {
        if (stat === undefined || Either.isLeft(stat)) return "missing"
        const i = stat.right
        return `${i.dev}:${i.ino}:${i.size}:${i.mtimeMs}`
      })
    )

  const buildSnapshot = (a: Active) =>
    Effect.gen(function* () {
      // Stamped before the read: a change racing the read shows up as a new stamp on the next request.
      const indexStamp = yield* indexStampOf(a)
      const index = yield* store.readIndex(a.location.memoryDir)
      return { ...memorySections(a.location.memoryDir, index.text), index: index.text, indexStamp } satisfies Snapshot
    })

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
        const computed = yield* recall.recall({
          memoryDir: a.location.memoryDir,
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

  /** A config.json change on disk is a reload of ours: a new generation with the new settings. */
  const followConfig = Effect.gen(function* () {
    if ((yield* readConfigStamp) !== (yield* Ref.get(configStamp))) yield* activate
  })

  const beforeAgentStart = (input: BeforeAgentStartInput) =>
    Effect.gen(function* () {
      yield* followConfig
      const a = yield* usable
      if (a === undefined) return undefined
      let snap = yield* Ref.get(snapshot)
      if (snap === undefined) {
        snap = yield* buildSnapshot(a)
        yield* Ref.set(snapshot, snap)
      }
      input.sections["auto_memory"] = snap.rules
      input.sections["auto_memory_index"] = snap.indexSection
      // The snapshot is reused byte for byte; a changed index only adds a notice after it. The file is read again
      // only when its stat says it may have changed.
      if ((yield* indexStampOf(a)) !== snap.indexStamp) {
        const current = yield* store.readIndexFile(a.location.memoryDir).pipe(
          Effect.map((raw) => trimIndex(raw).text),
          Effect.orElseSucceed(() => "")
        )
        if (current !== snap.index) input.sections["auto_memory_notice"] = indexChangedNotice(sanitizeMemoryText(a.location.memoryDir))
      }

      // Recall switched off: the index and the rules stay, no topic is selected or injected.
      if (!a.switches.recall.on) return undefined
      yield* Ref.set(skipNextUserMessage, true)
      const pending = yield* startPrefetch(a, input.prompt, "waiting")
      const inTime = yield* Deferred.await(pending.done).pipe(Effect.timeoutOption(Duration.millis(SELECTOR_WAIT_MS)))
      if (Option.isSome(inTime)) return inTime.value === undefined || inTime.value.injection === "" ? undefined : { content: inTime.value.injection }
      const late = yield* Ref.modify(pending.mode, (m) => (m === "taken" ? [false, m] : [true, "late" as const]))
      if (late) return undefined
      // Finished between the timeout and the hand-over: use it now.
      const outcome = yield* Deferred.await(pending.done)
      return outcome === undefined || outcome.injection === "" ? undefined : { content: outcome.injection }
    }).pipe(
      Effect.catchAllCause((cause) =>
        // A cancelled recall is silent; anything else is one warning, and the prompt goes ahead either way.
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

  /**
   * What an untrusted project's agent may not open, known without locating the project (no git, nothing created),
   * so the block holds with memory switched off or failed to activate: the whole storage root (every project's
   * memory, config.json, shared state), the configured memory directory and the active one, each also canonical.
   */
  const protectedDirs = Effect.gen(function* () {
    const dirs = new Set<string>([config.storageRoot])
    const a = yield* Ref.get(active)
    if (a !== undefined) {
      dirs.add(a.location.memoryDir)
      dirs.add(a.canonicalMemoryDir)
    }
    const configured = (yield* config.load).config.autoMemoryDirectory
    if (configured !== undefined) dirs.add(configured)
    for (const dir of [...dirs]) dirs.add(yield* canonical(dir))
    return [...dirs]
  })

  /** realpath of the longest existing prefix, plus the rest: a file about to be created is judged by its folder. */
  const canonical = (path: string): Effect.Effect<string> =>
    fs.realpath(path).pipe(
      Effect.catchAll(() => {
        const parent = dirname(path)
        return parent === path ? Effect.succeed(path) : Effect.map(canonical(parent), (p) => join(p, basename(path)))
      })
    )

  /**
   * The credential guard for the main agent's `write` and `edit` into memory: blocked, with the kind and line, when
   * the file would hold a secret it did not hold before. Never blocks on its own failure (the write is not memory's).
   */
  const credentialBlock = (toolName: string, input: Record<string, unknown>) =>
    Effect.gen(function* () {
      if (toolName !== "write" && toolName !== "edit") return undefined
      const a = yield* usable
      if (a === undefined) return undefined
      const file = yield* memoryFileOf(a, yield* host.cwd, input["path"])
      if (file === undefined) return undefined
      const current = toolName === "edit"
        ? yield* fs.readRegularFile(join(a.location.memoryDir, file), 16 << 20).pipe(
          Effect.map((r) => Buffer.from(r.bytes).toString("utf8")),
          Effect.orElseSucceed(() => undefined)
        )
        : undefined
      const reason = credentialInWrite(toolName, input, current, sanitizeMemoryText(file))
      return reason === undefined ? undefined : ({ block: true, reason } satisfies ToolBlock)
    }).pipe(Effect.catchAllCause(() => Effect.succeed(undefined)))

  const toolCall = (toolName: string, input: Record<string, unknown>) =>
    Effect.gen(function* () {
      const raw = guardedToolPath(toolName, input)
      if (raw === undefined) return undefined
      if (yield* host.isTrusted) return yield* credentialBlock(toolName, input)
      const abs = resolveToolPath(raw, yield* host.cwd, homedir())
      if (abs === undefined) return undefined
      const real = yield* canonical(abs)
      const dirs = yield* protectedDirs
      if (!dirs.some((dir) => isWithin(dir, abs) || isWithin(dir, real))) return undefined
      yield* FiberSet.clear(prefetches)
      return { block: true, reason: untrustedReason(toolName, sanitizeMemoryText(raw)) } satisfies ToolBlock
    }).pipe(
      // Fail closed: when the check itself fails, whatever could touch memory is blocked, with the reason.
      Effect.catchAllCause(() =>
        Effect.succeed(
          couldTouchMemory(toolName, input, config.storageRoot) ? ({ block: true, reason: uncheckedReason(toolName) } satisfies ToolBlock) : undefined
        )
      )
    )

  const toolResult = (event: ToolResultEvent) =>
    Effect.gen(function* () {
      if (event.isError || (event.toolName !== "read" && event.toolName !== "write" && event.toolName !== "edit")) return undefined
      const a = yield* usable
      if (a === undefined) return undefined
      const file = yield* memoryFileOf(a, yield* host.cwd, event.input["path"])
      if (file === undefined || !file.endsWith(".md")) return undefined
      const path = join(a.location.memoryDir, file)
      const read = yield* fs.readRegularFile(path, 1 << 20).pipe(Effect.option)
      if (Option.isNone(read)) return undefined
      const content = Buffer.from(read.value.bytes).toString("utf8")
      if (event.toolName === "read") {
        const truncated = (event.details as { truncation?: { truncated?: boolean } } | undefined)?.truncation?.truncated === true
        const offset = typeof event.input["offset"] === "number" ? event.input["offset"] : 1
        const limit = typeof event.input["limit"] === "number" ? event.input["limit"] : undefined
        const lines = content.replace(/\n$/, "").split("\n").length
        const full = !truncated && offset <= 1 && !read.value.partial && (limit === undefined || limit >= lines)
        if (full && file !== INDEX_FILE) {
          yield* Ref.update(branchState, (s) => withRead(s, { filename: file, mtimeMs: read.value.info.mtimeMs }))
          yield* host.appendEntry(READ_ENTRY, { filename: file, mtimeMs: read.value.info.mtimeMs })
        }
        const stale = stalenessNote(read.value.info.mtimeMs, Date.now())
        if (stale === undefined || file === INDEX_FILE) return undefined
        return { content: [{ type: "text", text: systemReminder(stale) }, ...event.content] }
      }
      // The folder's other names tell a continuation (`notes-2.md` beside `notes.md`) from a subject (`python-3.md`).
      const siblings = file === INDEX_FILE
        ? undefined
        : yield* fs.readDirectory(dirname(path)).pipe(
          Effect.map((entries) => entries.map((e) => e.name)),
          Effect.orElseSucceed(() => undefined)
        )
      const problems = file === INDEX_FILE
        ? lintIndex(content)
        : lintTopic({ filename: file, content, ...(siblings !== undefined ? { siblings } : {}) })
      if (problems.length === 0) return undefined
      // Lint messages quote memory text (file names, an unknown type, YAML errors): sanitized like any other.
      const text = systemReminder(
        `The memory file you just saved needs a correction:\n${problems.map((p) => `- ${p.message}`).join("\n")}`
      )
      return { content: [...event.content, { type: "text", text }] }
    }).pipe(Effect.catchAllCause(() => Effect.succeed(undefined)))

  /** The project root of this session: the active location's, else the one git gives (nothing is made). */
  const projectRoot = Effect.gen(function* () {
    const a = yield* Ref.get(active)
    if (a !== undefined) return a.location.projectRoot
    return yield* locator.projectRootOf(yield* host.cwd).pipe(Effect.orElseSucceed(() => undefined))
  })

  const status = Effect.gen(function* () {
    const a = yield* Ref.get(active)
    const root = yield* projectRoot
    const loaded = yield* config.load
    const switches = switchesFor(loaded.config, root)
    const background = yield* fs.readRegularFile(config.configPath, 1 << 20).pipe(
      Effect.map((r) => decodeBackgroundConfig(config.configPath, Buffer.from(r.bytes).toString("utf8")).warnings),
      Effect.orElseSucceed((): ReadonlyArray<string> => [])
    )
    const configProblems = [...loaded.warnings.map((w) => w.message), ...background]
    const usage = yield* registry.totals
    const state = yield* Ref.get(branchState)
    const base = {
      active: a !== undefined,
      reason: yield* Ref.get(inactiveReason),
      location: a?.location,
      budgetUsed: state.budgetUsed,
      recalled: state.history,
      usage,
      generation: yield* Ref.get(generation),
      switches,
      projectRoot: root,
      configProblems
    }
    if (a === undefined) return { ...base, topics: 0, indexLines: 0, indexChars: 0, lastDreamAt: null } satisfies SessionStatus
    const { topics } = yield* store.scanTopics(a.location.memoryDir)
    const index = yield* store.readIndexFile(a.location.memoryDir).pipe(Effect.map(trimIndex), Effect.orElseSucceed(() => trimIndex("")))
    const lastDreamAt = yield* stateStore.read({ rootDir: a.location.memoryRootDir, legacyFile: a.location.legacyStatePath }).pipe(
      Effect.map((snap) => snap.state.lastDreamAt),
      Effect.orElseSucceed(() => null)
    )
    return { ...base, topics: topics.length, indexLines: index.lines, indexChars: index.chars, lastDreamAt } satisfies SessionStatus
  })

  const context = Effect.gen(function* () {
    const a = yield* usable
    const switches = (yield* status).switches
    if (a === undefined) {
      const reason = (yield* Ref.get(inactiveReason)) ?? ((yield* Ref.get(active)) !== undefined ? "the project is not trusted" : undefined)
      return { active: false, reason, parts: [], recallOn: false, ...(switches === undefined ? {} : { switches }) } satisfies MemoryContext
    }
    // The snapshot the next request reuses, or the one it would build now.
    const snap = (yield* Ref.get(snapshot)) ?? (yield* buildSnapshot(a))
    const parts: Array<ContextPart> = [
      { name: "auto_memory", where: "system prompt", text: wrapSection("auto_memory", snap.rules) },
      { name: "auto_memory_index", where: "system prompt", text: wrapSection("auto_memory_index", snap.indexSection) }
    ]
    if ((yield* indexStampOf(a)) !== snap.indexStamp) {
      const current = yield* store.readIndexFile(a.location.memoryDir).pipe(Effect.map((raw) => trimIndex(raw).text), Effect.orElseSucceed(() => ""))
      if (current !== snap.index) {
        const notice = indexChangedNotice(sanitizeMemoryText(a.location.memoryDir))
        parts.push({ name: "auto_memory_notice", where: "system prompt", text: wrapSection("auto_memory_notice", notice) })
      }
    }
    const last = yield* Ref.get(lastRecall)
    if (last !== undefined) {
      const oneLine = last.query.replace(/\s+/g, " ")
      parts.push({ name: "recall", where: "message", text: last.text, note: `the last recall, for "${oneLine.length > 60 ? `${oneLine.slice(0, 59)}…` : oneLine}": ${last.selected.join(", ")}` })
    }
    return { active: true, reason: undefined, parts, recallOn: a.switches.recall.on, switches: a.switches } satisfies MemoryContext
  })

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
