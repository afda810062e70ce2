/**
 * BackgroundSession: the main session's side of the background agents. It captures the parent's request (for fork
 * reuse), keeps the extractor's cursor, dispatches an extraction when a turn settles, marks one trailing extraction
 * when a turn settles while one runs, extracts before compaction, and on shutdown waits up to 60 s before
 * interrupting. Background work runs as fibers owned by this layer's scope: closing the scope ends them.
 *
 * A task stays valid while its generation is current, the project is trusted and memory is on. Invalidation
 * (`/memory off`, reload, a new session) interrupts the task at once; a lost trust is noticed before the next model
 * or tool call, and every later tool call of the task fails.
 */
import type { Api, Message, Model, Usage } from "@earendil-works/pi-ai"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import { homedir } from "node:os"
import { join, relative } from "node:path"
import { type BackgroundConfig, decodeBackgroundConfig, defaultBackgroundConfig } from "../../src/background/config.ts"
import { mayBeOnSomewhere, offReason, switchesFor } from "../../src/project/config.ts"
import { type BranchEntry, CURSOR_ENTRY, cursorOnBranch, type TreeEntry } from "../../src/background/cursor.ts"
import { type BackgroundKind, type RunRecord, RUNS_FILE, type RunsFile } from "../../src/background/runs.ts"
import { addUsage, type UsageTotals, zeroUsage } from "../../src/model/usage.ts"
import { addRun, latestRuns, mergeRunHistories, parseRunHistory, type RunHistory, serializeRunHistory } from "../../src/background/runHistory.ts"
import { configuredFailure, type FailureState, failureNotice, working } from "../../src/background/failureNotice.ts"
import { randomUUID } from "node:crypto"
import type { ProjectLocation } from "../../src/storage/layout.ts"
import { resolveToolPath } from "../../src/safety/toolPath.ts"
import { ConfigService } from "../project/ConfigService.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { Host } from "../session/Host.ts"
import { TaskInvalid } from "../writes/MemoryWriter.ts"
import { ModelRegistry } from "../model/ModelRegistry.ts"
import { ProjectLocator } from "../project/ProjectLocator.ts"
import { Extractor } from "./Extractor.ts"
import type { ExtractionOutcome, ParentRequest } from "./extractorInterface.ts"
import { Dream } from "./Dream.ts"
import type { DreamTaskResult } from "./dreamInterface.ts"
import { DreamAttempt, type DreamCheckRequest, type DreamRunOutcome } from "./DreamAttempt.ts"
import { eligibleAt } from "../../src/background/dreamSchedule.ts"
import { deleteCapNote } from "../../src/writes/deleteCap.ts"
import { isInsideDir } from "./paths.ts"
import type { StopReason } from "./Runner.ts"
import { changeRecorder } from "./ChangeNotices.ts"
import type { CodemodeSettings } from "./TaskTools.ts"

/** Run records as the entries format them. */
export { formatRun, formatUsage, type RunRecord } from "../../src/background/runs.ts"

/** The status line of each kind: a dream and an extraction side by side each show (and clear) their own. */
export const STATUS_KEY = "pm-memory"
export const DREAM_STATUS_KEY = "pm-memory-dream"
export const statusKeyOf = (kind: BackgroundKind): string => (kind === "dream" ? DREAM_STATUS_KEY : STATUS_KEY)
export const SHUTDOWN_WAIT_MS = 60_000
/** The most compaction waits for extraction (the running one and the final one together). */
export const COMPACTION_WAIT_MS = 60_000
/**
 * How long an extraction waits for `extract.lock` held by another process before giving up (its messages then stay
 * after the cursor for the next run). At `session_shutdown` the shorter SHUTDOWN_WAIT_MS bounds it, as it bounds a
 * running extraction.
 */
export const EXTRACT_LOCK_WAIT_MS = 10 * 60_000

/** What only the background side needs from Pi beyond Host. */
export interface BackgroundHostShape {
  /** The status line of `kind` (each kind has its own key, statusKeyOf). */
  readonly setStatus: (kind: BackgroundKind, text: string | undefined) => Effect.Effect<void>
  /** The main session's codemode when it is on (then tasks get their own over the six tools). */
  readonly codemode: Effect.Effect<CodemodeSettings | undefined>
  /**
   * The current session's directory of `.jsonl` files, and whether it is shared by several projects (a custom
   * session directory) rather than Pi's default folder for this cwd. Undefined: no session files (no dream).
   */
  readonly sessionDir?: Effect.Effect<{ readonly dir: string; readonly shared: boolean } | undefined>
}

export class BackgroundHost extends Context.Tag("pm/BackgroundHost")<BackgroundHost, BackgroundHostShape>() {
  static readonly layerNoop: Layer.Layer<BackgroundHost> = Layer.succeed(BackgroundHost, { setStatus: () => Effect.void, codemode: Effect.succeed(undefined) })
}

export interface ModelIdentity {
  readonly provider: string
  readonly api: string
  readonly id: string
}

export interface BackgroundStatus {
  readonly running: boolean
  /** The newest run of each kind. */
  readonly runs: RunsFile
  /** The recent runs of this project (every session's), oldest first. */
  readonly history: RunHistory
  /** This session's background model usage, all runs. */
  readonly totals: UsageTotals
  /** Whether a dream runs in this session now. */
  readonly dreaming?: boolean
  /** The last dream attempt (epoch ms, null: never) and when the time condition is met again. */
  readonly dream?: { readonly lastDreamAt: number | null; readonly eligibleAt: number; readonly minSessions: number } | undefined
}

export interface BackgroundSessionShape {
  /** Session start: locate the project, read the cursor from the branch, start a new generation. */
  readonly start: Effect.Effect<void>
  /** `context_with_system`: the parent's request as about to be sent, and its model. */
  readonly captureRequest: (messages: ReadonlyArray<unknown>, model: ModelIdentity | undefined) => Effect.Effect<void>
  /** `message_end`: a message completed after the capture joins the prefix. */
  readonly messageEnded: (message: unknown) => Effect.Effect<void>
  /**
   * `agent_settled`: dispatch an extraction and the dream check (returns at once; the tasks run in the background).
   * An aborted turn dispatches neither, but starts a trailing extraction deferred earlier.
   */
  readonly settled: (aborted: boolean) => Effect.Effect<void>
  /** `/memory extract`: wait for a running extraction, then run one under the same rules. */
  readonly extractNow: Effect.Effect<RunRecord>
  /** `/memory dream`: wait for this session's running dream, then dream now (thresholds ignored, the lock never). */
  readonly dreamNow: Effect.Effect<RunRecord>
  /** `session_tree`: the cursor as it applies to the new branch; the captured request (the old branch's) is dropped. */
  readonly branchChanged: Effect.Effect<void>
  /**
   * `session_before_compact`: wait for a running extraction, then extract the rest; at most COMPACTION_WAIT_MS in
   * all, and no longer than the event's abort signal allows (then the extraction stops and its cursor stays).
   */
  readonly beforeCompact: (signal?: AbortSignal) => Effect.Effect<void>
  /** `/memory off|on`, revoked trust: running tasks stop at once. */
  readonly invalidate: (reason: string) => Effect.Effect<void>
  /** `session_shutdown`: up to 60 s for background work, then interruption; a reload stops it at once. */
  readonly shutdown: (reason: string) => Effect.Effect<void>
  readonly status: Effect.Effect<BackgroundStatus>
  /** Resolves when no background task of this session runs (tests, print mode). */
  readonly idle: Effect.Effect<void>
}

interface Active {
  readonly location: ProjectLocation
  readonly canonicalMemoryDir: string
  readonly background: BackgroundConfig
}

interface Captured {
  readonly messages: ReadonlyArray<Message>
  readonly model: ModelIdentity
}

/** Yields to the event loop (not to the clock): pending I/O callbacks and handlers run first. */
const nextMacrotask: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/** Succeeds with None once `signal` aborts (at once when it already has). */
const aborted = (signal: AbortSignal): Effect.Effect<Option.Option<never>> =>
  Effect.async<Option.Option<never>>((resume) => {
    if (signal.aborted) return resume(Effect.succeedNone)
    const onAbort = () => resume(Effect.succeedNone)
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

/** An error's reason for the record: its message, else its `reason` field, else its tag (never an empty string). */
export const reasonOf = (e: { readonly message?: string; readonly reason?: string; readonly _tag?: string }): string =>
  (e.message !== undefined && e.message !== "" ? e.message : undefined) ??
    (typeof e.reason === "string" && e.reason !== "" ? e.reason : undefined) ?? e._tag ?? "unknown error"

const defectReason = (cause: Cause.Cause<unknown>): string => {
  const line = Cause.pretty(cause).split("\n")[0]?.trim()
  return line === undefined || line === "" ? "unknown error" : line
}

/**
 * A task that returned: an error answer from the model, or changes it tried and could not make while saving none,
 * is a failure; otherwise it saved files or had nothing to save.
 */
const ranOutcome = (
  stop: StopReason,
  errorMessage: string | undefined,
  changed: number,
  unsaved: ReadonlyArray<{ readonly file: string; readonly reason: string }>,
  detail: string
): { readonly outcome: RunRecord["outcome"]; readonly detail: string } =>
  stop === "api-error"
    ? { outcome: "failed", detail: `model error: ${errorMessage === undefined || errorMessage === "" ? "no message" : errorMessage}` }
    : stop === "too-large"
    ? { outcome: "failed", detail: `stopped before a request that would not fit: ${errorMessage ?? "the model's context window"}` }
    : changed === 0 && unsaved.length > 0
    ? { outcome: "failed", detail: `${unsaved.length} change(s) could not be made` }
    : { outcome: changed > 0 ? "saved" : "nothing", detail }

/** What a person is told when a background run saved files: which task, and every file it changed. */
export const savedNotice = (r: RunRecord): string =>
  `Project memory: the ${r.kind === "extract" ? "extraction" : "dream"} saved ${r.filesChanged.join(", ")} (/memory undo takes it back).`

const skipText: Record<string, string> = {
  "nothing-new": "no new messages",
  "main-agent-wrote": "the main agent already wrote memory",
  "too-few-words": "no user message of at least 3 words"
}

export const makeBackgroundSession = Effect.gen(function*() {
  const host = yield* Host
  const bgHost = yield* BackgroundHost
  const fs = yield* FileSystem
  const config = yield* ConfigService
  const locator = yield* ProjectLocator
  const registry = yield* ModelRegistry
  const extractor = yield* Extractor
  const dreamService = yield* Dream
  const attempt = yield* DreamAttempt
  const scope = yield* Effect.scope

  const generation = yield* Ref.make(0)
  const active = yield* Ref.make<Active | undefined>(undefined)
  const cursor = yield* Ref.make<string | undefined>(undefined)
  const captured = yield* Ref.make<Captured | undefined>(undefined)
  /** Notices sent as `nextTurn` since the last request was captured: they ride along with the next one. */
  const history = yield* Ref.make<RunHistory>([])
  /** One save of background-runs.json at a time in this process (extraction and dream finish side by side). */
  const saving = yield* Effect.makeSemaphore(1)
  /** Per kind: whether its failure was told (said once, and once when it works again), for the process's sessions. */
  const failures = yield* Ref.make<Record<BackgroundKind, FailureState>>({ extract: working, dream: working })
  const totals = yield* Ref.make<UsageTotals>(zeroUsage)
  /** The extraction in flight (at most one per session), and whether a turn settled while it ran. */
  const current = yield* Ref.make<Fiber.RuntimeFiber<void, never> | undefined>(undefined)
  const trailing = yield* Ref.make(false)
  const fibers = yield* FiberSet.make<void, never>().pipe(Scope.extend(scope))
  /** The dream in flight in this session (at most one; turns that settle meanwhile do not queue another). */
  const dreamCurrent = yield* Ref.make<Fiber.RuntimeFiber<void, never> | undefined>(undefined)

  const safe = <A>(effect: Effect.Effect<A>, fallback: A): Effect.Effect<A> =>
    // A stale host context (after reload) throws: treat it as "no longer valid" rather than a crash.
    Effect.catchAllDefect(effect, () => Effect.succeed(fallback))

  const readBackgroundConfig = fs.readRegularFile(config.configPath, 1 << 20).pipe(
    Effect.map((r) => decodeBackgroundConfig(config.configPath, Buffer.from(r.bytes).toString("utf8"))),
    Effect.orElseSucceed(() => ({ config: defaultBackgroundConfig, warnings: [] as ReadonlyArray<string> })),
    Effect.tap(({ warnings }) => Effect.forEach(warnings, (w) => safe(host.notify(`Project memory: ${w}`, "warning"), undefined))),
    Effect.map(({ config }) => config)
  )

  const runsPath = (a: Active) => join(a.location.projectDir, RUNS_FILE)

  const readHistory = (a: Active): Effect.Effect<RunHistory> =>
    fs.readRegularFile(runsPath(a), 1 << 20).pipe(
      Effect.map((r) => parseRunHistory(Buffer.from(r.bytes).toString("utf8"))),
      Effect.orElseSucceed((): RunHistory => [])
    )

  /** A notification in the UI; in print mode the host writes it as one line on stderr. */
  const tell = (level: "warning" | "info", text: string) => safe(host.notify(text, level), undefined)

  /**
   * A configured model Pi does not know is a configuration problem, told once at session start (and by `pm doctor`);
   * the extraction's and the dream's failures it then causes are not told again.
   */
  const reportedModels = new Set<string>()
  const checkConfiguredModels = (selectorModel: string | undefined, background: BackgroundConfig) =>
    Effect.forEach(
      [
        { key: "extractor.model", value: background.extractor.model, kind: "extract" as const },
        { key: "dream.model", value: background.dream.model, kind: "dream" as const },
        { key: "selector.model", value: selectorModel, kind: undefined }
      ],
      ({ key, value, kind }) =>
        value === undefined
          ? Effect.void
          : registry.resolve(value).pipe(
            Effect.matchEffect({
              onSuccess: () => Effect.void,
              onFailure: (e) =>
                Effect.gen(function*() {
                  if (kind !== undefined) yield* Ref.update(failures, (f) => ({ ...f, [kind]: configuredFailure(Date.now()) }))
                  if (reportedModels.has(`${key}=${value}`)) return
                  reportedModels.add(`${key}=${value}`)
                  yield* tell("warning", `Project memory: config.json ${key} "${value}" is not usable: ${e.message}. ${kind === undefined ? "Recall" : kind === "extract" ? "Extraction" : "The dream"} fails until it is fixed (pm doctor checks it).`)
                })
            })
          ),
      { discard: true }
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
    yield* Ref.set(cursor, yield* branchCursor)
    yield* Ref.set(history, yield* readHistory(a))
    yield* checkConfiguredModels(cfg.selector.model, a.background)
  })

  /** The cursor on the current branch (src/background/cursor.ts): what any branch's extraction covered of it. */
  const branchCursor = Effect.gen(function*() {
    const branch = (yield* safe(host.branch, [])) as ReadonlyArray<TreeEntry>
    const entries = host.entries === undefined ? branch : (yield* safe(host.entries, branch)) as ReadonlyArray<TreeEntry>
    return cursorOnBranch(branch, entries, [yield* Ref.get(cursor)])
  })

  const captureRequest = (messages: ReadonlyArray<unknown>, model: ModelIdentity | undefined) =>
    Ref.set(
      captured,
      model === undefined ? undefined : { messages: [...(messages as ReadonlyArray<Message>)], model }
    )

  const messageEnded = (message: unknown) =>
    Ref.update(captured, (c) => {
      const m = message as Message | undefined
      if (c === undefined || m === undefined) return c
      if (m.role !== "user" && m.role !== "assistant" && m.role !== "toolResult") return c
      // The same message can reach us twice (the capture already holds what was sent): keep one.
      if (c.messages.includes(m)) return c
      return { ...c, messages: [...c.messages, m] }
    })

  /** Valid while the generation is the one the task started in, the project is trusted and the task's switch is on. */
  const validity = (startedIn: number, kind: "extraction" | "dream"): Effect.Effect<void, TaskInvalid> =>
    Effect.gen(function*() {
      if ((yield* Ref.get(generation)) !== startedIn) {
        return yield* Effect.fail(new TaskInvalid({ reason: "project memory was reloaded, turned off or restarted" }))
      }
      if (!(yield* safe(host.isTrusted, false))) {
        return yield* Effect.fail(new TaskInvalid({ reason: "the project is no longer trusted" }))
      }
      const { config: cfg } = yield* config.load
      const switches = switchesFor(cfg, (yield* Ref.get(active))?.location.projectRoot)
      if (!switches.memory.on) return yield* Effect.fail(new TaskInvalid({ reason: "project memory was turned off" }))
      if (!switches[kind].on) return yield* Effect.fail(new TaskInvalid({ reason: offReason(kind, switches[kind]) }))
    })

  /** Whether a settled turn starts this kind of task: its switch as config.json says now. */
  const switchedOn = (kind: "extraction" | "dream") =>
    Effect.gen(function*() {
      const a = yield* Ref.get(active)
      if (a === undefined) return false
      return switchesFor((yield* config.load).config, a.location.projectRoot)[kind].on
    })

  /**
   * Adds the run to the project's history (re-read first: other sessions of the project add theirs) and writes it
   * under a temporary name of its own, then renames it into place; then tells the person when a failure starts or
   * ends (a run asked for by hand reports itself, so it only moves the state).
   */
  const saveRun = (a: Active, record: RunRecord) =>
    Effect.gen(function*() {
      yield* saving.withPermits(1)(Effect.gen(function*() {
        const next = addRun(mergeRunHistories(yield* readHistory(a), yield* Ref.get(history)), record)
        yield* Ref.set(history, next)
        const path = runsPath(a)
        const temp = `${path}.${process.pid}.${randomUUID()}.tmp`
        yield* fs.writeFile(temp, serializeRunHistory(next)).pipe(
          Effect.zipRight(fs.rename(temp, path)),
          Effect.catchAll(() => fs.unlink(temp).pipe(Effect.ignore))
        )
      }))
      const told = yield* Ref.modify(failures, (f) => {
        const { state, notice } = failureNotice(f[record.kind], record)
        return [notice, { ...f, [record.kind]: state }] as const
      })
      if (told !== undefined && record.trigger !== "manual") yield* tell(told.level, told.text)
      // Every save is announced, naming the files (a run asked for by hand reports them itself).
      if (record.filesChanged.length > 0 && record.trigger !== "manual") yield* tell("info", savedNotice(record))
    })

  const advance = (to: string | undefined) =>
    Effect.gen(function*() {
      if (to === undefined || to === (yield* Ref.get(cursor))) return
      yield* Ref.set(cursor, to)
      yield* safe(host.appendEntry(CURSOR_ENTRY, { cursor: to }), undefined)
    })

  /** One extraction, start to finish, recorded. Never fails: failures are part of the record. */
  const extractOnce = (trigger: RunRecord["trigger"]): Effect.Effect<RunRecord> =>
    Effect.gen(function*() {
      const a = yield* Ref.get(active)
      const startedIn = yield* Ref.get(generation)
      const base = { kind: "extract" as const, trigger, filesChanged: [], turns: 0, usage: zeroUsage }
      if (a === undefined) return { ...base, at: Date.now(), outcome: "skipped", detail: "project memory is inactive" } satisfies RunRecord
      const invalid = yield* Effect.flip(validity(startedIn, "extraction")).pipe(Effect.option)
      if (Option.isSome(invalid)) return { ...base, at: Date.now(), outcome: "skipped", detail: invalid.value.reason } satisfies RunRecord
      const usage = yield* Ref.make(zeroUsage)
      const cwd = yield* host.cwd
      const home = homedir()
      const isMemoryPath = (raw: string) => {
        const abs = resolveToolPath(raw, cwd, home)
        return abs !== undefined && (isInsideDir(a.location.memoryDir, abs) || isInsideDir(a.canonicalMemoryDir, abs))
      }
      const sessionId = yield* safe(host.sessionId, "no-session")
      const parent = yield* Ref.get(captured)
      const onUsage = (u: Usage | undefined) =>
        Ref.update(usage, (t) => addUsage(t, u)).pipe(Effect.zipRight(Ref.update(totals, (t) => addUsage(t, u))))
      const onChange = changeRecorder(host, "extraction", [a.canonicalMemoryDir, a.location.memoryDir])
      const run = Effect.gen(function*() {
        const model = yield* registry.resolve(a.background.extractor.model)
        return yield* extractor.extract({
          location: a.location,
          cwd,
          branch: (yield* safe(host.branch, [])) as ReadonlyArray<BranchEntry>,
          cursor: yield* branchCursor,
          parent: parent === undefined
            ? undefined
            : ({ messages: parent.messages, model: parent.model, sessionId } satisfies ParentRequest),
          model: model as Model<Api>,
          taskSessionId: `${sessionId}-memory-extract`,
          sessionId,
          maxTurns: a.background.extractor.maxTurns,
          maxTokens: a.background.extractor.maxTokens,
          requestTimeoutMs: a.background.extractor.requestTimeoutSeconds * 1000,
          isMemoryPath,
          check: validity(startedIn, "extraction"),
          onChange,
          onUsage,
          codemode: yield* safe(bgHost.codemode, undefined),
          lockWaitMs: EXTRACT_LOCK_WAIT_MS,
          onLockWait: () => Ref.set(waited, true),
          onStart: Effect.zipRight(Ref.set(waited, false), bgHost.setStatus("extract", "memory: extracting"))
        })
      })
      const waited = yield* Ref.make(false)
      // Interrupted from outside (invalidation, shutdown): the record is written on the way out, the cursor stays.
      const recordStopped = Effect.all([Ref.get(usage), Ref.get(waited)]).pipe(
        Effect.flatMap(([spent, waiting]) =>
          saveRun(a, {
            ...base,
            at: Date.now(),
            outcome: "stopped",
            detail: !waiting
              ? "interrupted"
              : "interrupted while waiting for extract.lock (another process held it); these messages are extracted by the next run in this session",
            turns: spent.requests,
            usage: spent
          })
        )
      )
      const exit = yield* run.pipe(Effect.ensuring(bgHost.setStatus("extract", undefined)), Effect.onInterrupt(() => recordStopped), Effect.exit)
      const spent = yield* Ref.get(usage)
      const record: RunRecord = Exit.match(exit, {
        onSuccess: (o: ExtractionOutcome): RunRecord =>
          o.status === "skipped"
            ? { ...base, at: Date.now(), outcome: "skipped", detail: skipText[o.reason] ?? o.reason }
            : o.status === "busy"
            ? {
              ...base,
              at: Date.now(),
              outcome: "busy",
              detail: `extract.lock was held by ${o.holder} for all of the ${Math.round(o.waitedMs / 1000)} s waited; these messages are extracted by the next run in this session`
            }
            : o.stop === "too-large" && o.turns === 0
            ? { ...base, at: Date.now(), outcome: "skipped", detail: o.errorMessage ?? "the request does not fit the model's context window" }
            : o.stop === "aborted"
            ? { ...base, at: Date.now(), outcome: "stopped", detail: "the model request was aborted", turns: o.turns, usage: spent }
            : (o.writeFailures?.length ?? 0) > 0
            ? {
              ...base,
              at: Date.now(),
              outcome: "failed",
              detail: `${o.writeFailures!.length} write${o.writeFailures!.length === 1 ? "" : "s"} failed, so memory was not saved: ${o.writeFailures![0]}`,
              filesChanged: o.filesChanged.map((p) => (isInsideDir(a.canonicalMemoryDir, p) ? relative(a.canonicalMemoryDir, p) : p)),
              turns: o.turns,
              usage: spent
            }
            : {
              ...base,
              at: Date.now(),
              ...ranOutcome(
                o.stop,
                o.errorMessage,
                o.filesChanged.length,
                o.unsaved ?? [],
                `${o.stop === "max-turns" ? `${o.mode} request, turn limit reached` : `${o.mode} request`}${o.shortened === undefined ? "" : ` (${o.shortened})`}`
              ),
              filesChanged: o.filesChanged.map((p) => (isInsideDir(a.canonicalMemoryDir, p) ? relative(a.canonicalMemoryDir, p) : p)),
              turns: o.turns,
              usage: spent,
              ...((o.unsaved ?? []).length > 0 ? { unsaved: o.unsaved } : {})
            },
        onFailure: (cause): RunRecord => {
          const failure = Cause.failureOption(cause)
          const interrupted = Cause.isInterruptedOnly(cause)
          return {
            ...base,
            at: Date.now(),
            outcome: interrupted || (Option.isSome(failure) && failure.value._tag === "TaskInvalid") ? "stopped" : "failed",
            detail: interrupted ? "interrupted" : Option.isSome(failure) ? reasonOf(failure.value) : defectReason(cause),
            turns: spent.requests,
            usage: spent
          }
        }
      })
      // Returned outcomes advance the cursor (skips, API errors and the turn limit included); a throw, an
      // interruption, an aborted request or invalidation leaves it, so the same messages are tried again.
      if (
        Exit.isSuccess(exit) && exit.value.status !== "busy" && !(exit.value.status === "ran" && exit.value.stop === "aborted") &&
        (yield* Ref.get(generation)) === startedIn
      ) {
        yield* advance(exit.value.advanceTo)
      }
      // "Nothing new" is not a run: the last real one stays on record.
      if (!(Exit.isSuccess(exit) && exit.value.status === "skipped" && exit.value.reason === "nothing-new")) yield* saveRun(a, record)
      return record
    })

  /**
   * One trailing extraction for turns that settled while an extraction ran, once the session is idle again. While the
   * agent runs, the mark is kept (deferred, not dropped): the turn it runs settles later and dispatches the messages
   * with its own extraction.
   */
  const trailingRuns: Effect.Effect<void> = Effect.gen(function*() {
    while (yield* Ref.getAndSet(trailing, false)) {
      if (!(yield* safe(host.isIdle, true))) {
        yield* Ref.set(trailing, true)
        return
      }
      yield* extractOnce("trailing")
    }
  })

  /** Starts an extraction loop (`first`, then the trailing runs) as the extraction in flight. */
  const startLoop = (first: Effect.Effect<unknown>) =>
    Effect.gen(function*() {
      const loop: Effect.Effect<void> = Effect.gen(function*() {
        // The settled turn's handler returns first: the task starts on a later turn of the event loop.
        yield* nextMacrotask
        yield* first
        yield* trailingRuns
      }).pipe(Effect.ensuring(Ref.set(current, undefined)))
      const fiber = yield* FiberSet.run(fibers, loop)
      yield* Ref.set(current, fiber)
      return fiber
    })

  /** Starts an extraction fiber (with its trailing follow-ups) unless one runs; returns the fiber in flight. */
  const dispatch = (trigger: RunRecord["trigger"]) =>
    Effect.gen(function*() {
      const running = yield* Ref.get(current)
      if (running !== undefined) {
        yield* Ref.set(trailing, true)
        return running
      }
      // This run reads the branch as it is now: a mark deferred earlier is covered by it.
      yield* Ref.set(trailing, false)
      return yield* startLoop(extractOnce(trigger))
    })

  /** The deferred trailing extraction, when one is marked and none runs. */
  const runDeferred = Effect.gen(function*() {
    if ((yield* Ref.get(trailing)) && (yield* Ref.get(current)) === undefined) yield* startLoop(Effect.void)
  })

  const awaitCurrent = Effect.gen(function*() {
    const running = yield* Ref.get(current)
    if (running !== undefined) yield* Fiber.await(running)
  })

  /**
   * Waits for the running extraction, then runs one more and waits for it too. Turns that settle meanwhile mark a
   * trailing extraction, started when it ends (unless the session is busy: then the mark waits for the next turn).
   */
  const extractAfterCurrent = (trigger: RunRecord["trigger"]) =>
    Effect.gen(function*() {
      yield* awaitCurrent
      yield* Ref.set(trailing, false)
      const done = yield* Effect.makeLatch(false)
      let record: RunRecord | undefined
      const fiber = yield* FiberSet.run(
        fibers,
        extractOnce(trigger).pipe(
          Effect.tap((r) => Effect.sync(() => void (record = r))),
          Effect.ensuring(done.open),
          Effect.asVoid
        )
      )
      yield* Ref.set(current, fiber)
      // A caller that stops waiting (the compaction wait's deadline) stops the extraction too.
      yield* Fiber.await(fiber).pipe(
        Effect.onInterrupt(() => Fiber.interrupt(fiber)),
        Effect.ensuring(Ref.update(current, (c) => (c === fiber ? undefined : c)))
      )
      yield* runDeferred
      return record ?? ({ kind: "extract", at: Date.now(), trigger, outcome: "stopped", detail: "interrupted", filesChanged: [], turns: 0, usage: zeroUsage } satisfies RunRecord)
    })

  /** Ends the extraction in flight, if any (its run is recorded as stopped; the cursor stays). */
  const interruptCurrent = Effect.gen(function*() {
    const running = yield* Ref.getAndSet(current, undefined)
    yield* Ref.set(trailing, false)
    if (running !== undefined) yield* Fiber.interrupt(running)
  })

  const invalidate = (_reason: string) =>
    Effect.gen(function*() {
      yield* Ref.update(generation, (g) => g + 1)
      yield* FiberSet.clear(fibers)
      yield* Ref.set(current, undefined)
      yield* Ref.set(dreamCurrent, undefined)
      yield* Ref.set(trailing, false)
    })

  const idle = FiberSet.awaitEmpty(fibers)

  // ---- Dream: dispatched after the same settled turns, on its own lock, never waiting for the extractor. ----

  const statePathsOf = (a: Active) => ({ rootDir: a.location.memoryRootDir, legacyFile: a.location.legacyStatePath })

  const dreamCheckRequest = (a: Active) =>
    Effect.gen(function*() {
      const where = bgHost.sessionDir === undefined ? undefined : yield* safe(bgHost.sessionDir, undefined)
      if (where === undefined || where.dir === "") return undefined
      const roots = new Map<string, boolean>()
      // In a directory shared by several projects, a session counts when its cwd lies in this project.
      const belongsToProject = (cwd: string | undefined) =>
        Effect.gen(function*() {
          if (cwd === undefined) return false
          const known = roots.get(cwd)
          if (known !== undefined) return known
          const located = yield* locator.locate(cwd).pipe(Effect.option)
          const ours = Option.isSome(located) && located.value.projectRoot === a.location.projectRoot
          roots.set(cwd, ours)
          return ours
        })
      return {
        paths: statePathsOf(a),
        sessionDir: where.dir,
        currentSessionId: yield* safe(host.sessionId, undefined),
        thresholds: a.background.dreamThresholds,
        ...(where.shared ? { belongsToProject } : {})
      } satisfies DreamCheckRequest
    })

  const dreamDetail = (r: DreamTaskResult): string => {
    const how = r.stop === "max-turns" ? "turn limit reached" : "done"
    const index = r.index.overTarget
      ? `; MEMORY.md is over 160 lines or 20,000 characters (${r.index.lines} lines, ${r.index.chars} characters): later additions may be cut off`
      : ""
    const capped = r.deletesRefused.length > 0 ? `; ${deleteCapNote(r.deletesRefused, r.topicsAtStart ?? 0)}` : ""
    return `${how}${index}${capped}`
  }

  /**
   * One dream, when due (or by hand), start to finish. Returns the record when there was a run or a skip worth
   * keeping, undefined when not due. Never fails: failures are part of the record.
   */
  const dreamOnce = (trigger: "turn" | "manual"): Effect.Effect<RunRecord | undefined> =>
    Effect.gen(function*() {
      const base = { kind: "dream" as const, trigger, filesChanged: [], turns: 0, usage: zeroUsage }
      const a = yield* Ref.get(active)
      const startedIn = yield* Ref.get(generation)
      if (a === undefined) return trigger === "manual" ? ({ ...base, at: Date.now(), outcome: "skipped", detail: "project memory is inactive" } satisfies RunRecord) : undefined
      const invalid = yield* Effect.flip(validity(startedIn, "dream")).pipe(Effect.option)
      if (Option.isSome(invalid)) return trigger === "manual" ? ({ ...base, at: Date.now(), outcome: "skipped", detail: invalid.value.reason } satisfies RunRecord) : undefined
      const request = yield* dreamCheckRequest(a)
      if (request === undefined) {
        return trigger === "manual" ? ({ ...base, at: Date.now(), outcome: "skipped", detail: "this session keeps no session files" } satisfies RunRecord) : undefined
      }
      // By hand: a fresh scan for the prompt's session list, no thresholds. After a turn: time first, then the scan.
      const decided = trigger === "manual"
        ? yield* attempt.sessionsNow(request).pipe(Effect.map((sessions) => ({ sessions, expectedVersion: undefined })), Effect.either)
        : yield* attempt.check(request).pipe(
          Effect.map((c) => (c._tag === "Due" ? { sessions: c.sessions, expectedVersion: c.stateVersion } : undefined)),
          Effect.either
        )
      if (decided._tag === "Left") {
        const record = { ...base, at: Date.now(), outcome: "failed", detail: decided.left.reason } satisfies RunRecord
        yield* saveRun(a, record)
        return record
      }
      if (decided.right === undefined) return undefined
      const { sessions, expectedVersion } = decided.right
      const usage = yield* Ref.make(zeroUsage)
      const cwd = yield* host.cwd
      const sessionId = yield* safe(host.sessionId, "no-session")
      const onUsage = (u: Usage | undefined) =>
        Ref.update(usage, (t) => addUsage(t, u)).pipe(Effect.zipRight(Ref.update(totals, (t) => addUsage(t, u))))
      const onChange = changeRecorder(host, "dream", [a.canonicalMemoryDir, a.location.memoryDir])
      const model = yield* registry.resolve(a.background.dream.model).pipe(Effect.either)
      if (model._tag === "Left") {
        const record = { ...base, at: Date.now(), outcome: "failed", detail: `dream.model: ${reasonOf(model.left)}` } satisfies RunRecord
        yield* saveRun(a, record)
        return record
      }
      const run = attempt.run({
        paths: request.paths,
        sessions,
        ...(expectedVersion !== undefined ? { expectedVersion } : {}),
        task: (ids, held) =>
          dreamService.consolidate({
            location: a.location,
            cwd,
            sessionDir: request.sessionDir,
            sessionIds: ids,
            model: model.right as Model<Api>,
            taskSessionId: `${sessionId}-memory-dream`,
            sessionId,
            maxTurns: a.background.dream.maxTurns,
            maxTokens: a.background.dream.maxTokens,
            requestTimeoutMs: a.background.dream.requestTimeoutSeconds * 1000,
            // Before each model and tool call and each publish: still valid, and dream.lock still ours. A lost lock
            // also ends the task at once (the lock service interrupts it).
            check: validity(startedIn, "dream").pipe(
              Effect.zipRight(held.pipe(Effect.mapError((e) => new TaskInvalid({ reason: `dream.lock was lost (${e.reason})` }))))
            ),
            onChange,
            onUsage,
            onStart: bgHost.setStatus("dream", "memory: dreaming")
          })
      })
      const recordStopped = Ref.get(usage).pipe(
        Effect.flatMap((spent) =>
          saveRun(a, { ...base, at: Date.now(), outcome: "stopped", detail: "interrupted", turns: spent.requests, usage: spent })
        )
      )
      const exit = yield* run.pipe(Effect.ensuring(bgHost.setStatus("dream", undefined)), Effect.onInterrupt(() => recordStopped), Effect.exit)
      const spent = yield* Ref.get(usage)
      const relativeToMemory = (p: string) => (isInsideDir(a.canonicalMemoryDir, p) ? relative(a.canonicalMemoryDir, p) : p)
      const record: RunRecord = Exit.match(exit, {
        onSuccess: (o: DreamRunOutcome<DreamTaskResult>): RunRecord =>
          o._tag === "Busy"
            ? { ...base, at: Date.now(), outcome: "busy", detail: "dream.lock is held" }
            : o._tag === "Superseded"
            ? { ...base, at: Date.now(), outcome: "skipped", detail: "another session started a dream first" }
            : o._tag === "Failed"
            ? {
              ...base,
              at: Date.now(),
              outcome: "failed",
              detail: `${o.reason}${o.rolledBack ? " (the attempt time was rolled back)" : ""}`,
              turns: spent.requests,
              usage: spent
            }
            : (o.value.writeFailures?.length ?? 0) > 0
            ? {
              ...base,
              at: Date.now(),
              outcome: "failed",
              detail: `${o.value.writeFailures!.length} write${o.value.writeFailures!.length === 1 ? "" : "s"} failed, so memory was not saved: ${o.value.writeFailures![0]}`,
              filesChanged: o.value.filesChanged.map(relativeToMemory),
              turns: o.value.turns,
              usage: spent
            }
            : {
              ...base,
              at: Date.now(),
              ...ranOutcome(o.value.stop, o.value.errorMessage, o.value.filesChanged.length, o.value.unsaved ?? [], dreamDetail(o.value)),
              filesChanged: o.value.filesChanged.map(relativeToMemory),
              turns: o.value.turns,
              usage: spent,
              ...((o.value.unsaved ?? []).length > 0 ? { unsaved: o.value.unsaved } : {})
            },
        onFailure: (cause): RunRecord => ({
          ...base,
          at: Date.now(),
          outcome: Cause.isInterruptedOnly(cause) ? "stopped" : "failed",
          detail: Cause.isInterruptedOnly(cause)
            ? "interrupted"
            : Option.match(Cause.failureOption(cause), { onNone: () => defectReason(cause), onSome: (e) => reasonOf(e) }),
          turns: spent.requests,
          usage: spent
        })
      })
      if (!(Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause))) yield* saveRun(a, record)
      return record
    })

  /** Starts a dream fiber unless one runs in this session; returns the fiber in flight. */
  const dispatchDream = (trigger: "turn" | "manual", result?: (r: RunRecord | undefined) => void) =>
    Effect.gen(function*() {
      const running = yield* Ref.get(dreamCurrent)
      if (running !== undefined) return running
      const fiber = yield* FiberSet.run(
        fibers,
        // Like the extraction: the settled turn's handler returns before the check reads state or scans.
        nextMacrotask.pipe(
          Effect.zipRight(dreamOnce(trigger)),
          Effect.tap((r) => Effect.sync(() => result?.(r))),
          Effect.asVoid,
          Effect.ensuring(Ref.set(dreamCurrent, undefined))
        )
      )
      yield* Ref.set(dreamCurrent, fiber)
      return fiber
    })

  const dreamNow = Effect.gen(function*() {
    const running = yield* Ref.get(dreamCurrent)
    if (running !== undefined) yield* Fiber.await(running)
    let record: RunRecord | undefined
    const fiber = yield* dispatchDream("manual", (r) => void (record = r))
    yield* Fiber.await(fiber)
    return record ?? ({ kind: "dream", at: Date.now(), trigger: "manual", outcome: "stopped", detail: "interrupted", filesChanged: [], turns: 0, usage: zeroUsage } satisfies RunRecord)
  })

  const dreamStatus = Effect.gen(function*() {
    const a = yield* Ref.get(active)
    if (a === undefined) return undefined
    const last = yield* attempt.lastDreamAt(statePathsOf(a)).pipe(Effect.orElseSucceed(() => null))
    const t = a.background.dreamThresholds
    return { lastDreamAt: last, eligibleAt: eligibleAt(last, t), minSessions: t.minSessions }
  })

  const shutdown = (reason: string) =>
    Effect.gen(function*() {
      if (reason !== "reload") yield* idle.pipe(Effect.timeoutOption(Duration.millis(SHUTDOWN_WAIT_MS)))
      yield* invalidate(reason)
    })

  return {
    start,
    captureRequest,
    messageEnded,
    // Extraction and dream are dispatched side by side; neither waits for the other.
    // An aborted turn dispatches nothing of its own; a trailing extraction deferred for earlier turns (they settled
    // while the agent was busy again) runs now that the session is idle.
    settled: (aborted) =>
      aborted
        ? runDeferred
        : Effect.gen(function*() {
          // A switch turned off in config.json starts nothing; one turned off mid-run stops the run (validity).
          if (yield* switchedOn("extraction")) yield* dispatch("turn")
          if (yield* switchedOn("dream")) yield* dispatchDream("turn")
        }),
    extractNow: extractAfterCurrent("manual"),
    dreamNow,
    // Bounded: past the wait the extraction is interrupted (its cursor stays) and compaction goes ahead.
    beforeCompact: (signal) =>
      extractAfterCurrent("compaction").pipe(
        Effect.timeoutOption(Duration.millis(COMPACTION_WAIT_MS)),
        (wait) => (signal === undefined ? wait : Effect.raceFirst(wait, aborted(signal))),
        Effect.flatMap((done) => (Option.isSome(done) ? Effect.void : interruptCurrent))
      ),
    branchChanged: Effect.gen(function*() {
      yield* Ref.set(captured, undefined)
      yield* Ref.set(cursor, yield* branchCursor)
    }),
    invalidate,
    shutdown,
    status: Effect.gen(function*() {
      return {
        running: (yield* Ref.get(current)) !== undefined,
        runs: latestRuns(yield* Ref.get(history)),
        history: yield* Ref.get(history),
        totals: yield* Ref.get(totals),
        dreaming: (yield* Ref.get(dreamCurrent)) !== undefined,
        dream: yield* dreamStatus
      } satisfies BackgroundStatus
    }),
    idle
  } satisfies BackgroundSessionShape
})

export class BackgroundSession extends Context.Tag("pm/BackgroundSession")<BackgroundSession, BackgroundSessionShape>() {
  /** The service's one constructor (its layer's, and the extension graph's). */
  static readonly make = makeBackgroundSession
  static readonly layer: Layer.Layer<
    BackgroundSession,
    never,
    Host | BackgroundHost | FileSystem | ConfigService | ProjectLocator | ModelRegistry | Extractor | Dream | DreamAttempt
  > = Layer.scoped(BackgroundSession, BackgroundSession.make)
}
