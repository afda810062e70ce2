/**
 * The set-up and plumbing the extraction and the dream share, made once per task service: the status line when the
 * task starts, a validity check that stops with the task, a MemoryWriter task journaled under one task id (so `pm undo`
 * can reverse the task), the six restricted tools over it, and the tool loop on the registry with the request's limits.
 * Whatever way a task ends, its check stops before its tools close, so no write of it lands afterwards, and tools still
 * being made when it ends are closed once made (`toolsFor`). What the task
 * asks and what its result means stay with each task (ExtractorTask.ts, DreamTask.ts).
 *
 * Each task is one whole change (`whole`, layers/writes/journalRecover.ts): kept when it ends as its task says, else
 * rolled back, and rolled back by the next holder of its lock when its process was killed. `recover` is what a task
 * does first, holding its lock: roll back the changes of dead processes it can take the locks of.
 */
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import { randomUUID } from "node:crypto"
import type { LockName } from "../../src/limits.ts"
import { BashGuard } from "../safety/BashGuard.ts"
import { Journal } from "../writes/Journal.ts"
import type { TaskMeta } from "../writes/journalRecord.ts"
import { MemoryWriter } from "../writes/MemoryWriter.ts"
import type { TaskInvalid } from "../writes/writeErrors.ts"
import type { WriteJournal } from "../writes/writeJournal.ts"
import { ModelRegistry } from "../model/ModelRegistry.ts"
import { PiToolkit } from "./PiToolkit.ts"
import { type RunSpec, runTask, type TaskRequest } from "./Runner.ts"
import type { BackgroundTaskRequest } from "./taskRequest.ts"
import type { MemoryChange } from "./tools/taskTool.ts"
import { makeTaskTools, recordingChanges, stoppableCheck, type TaskToolSet, type TaskToolsOptions } from "./tools/TaskTools.ts"

export interface TaskToolsSpec<P, EP, EF> {
  readonly request: BackgroundTaskRequest
  /** The task's validity as the task sees it (the extraction adds its lock); stopped when the task ends. */
  readonly check: Effect.Effect<void, TaskInvalid>
  /** The task's journal, made when the writer task opens. */
  readonly journal: () => WriteJournal
  /** Every memory file the task changed, filled in as it changes them. */
  readonly filesChanged: Array<string>
  /** Every change the task made, in order (filled in as they are made), when the task needs more than the files. */
  readonly changes?: Array<MemoryChange>
  /** Read after the writer task opens and before the tools are made (the dream's topics, for its delete cap). */
  readonly before: Effect.Effect<P, EP>
  /** What the tools get beyond the common options. */
  readonly toolOptions: (prepared: P) => Pick<TaskToolsOptions, "codemode" | "deleteCap" | "sessions" | "provenance">
  /** The task's own error when the tools cannot be set up. */
  readonly setupFailed: (error: unknown) => EF
}

/**
 * The task's tools, made by a promise that an interruption cannot stop (the sandbox's runtime may be starting its
 * processes). A task interrupted meanwhile (its session ended) does not wait for them: they are closed once made, so
 * the sandbox's runtime, whose bridge process would keep the host alive after its session ended, is stopped.
 */
const toolsFor = <EF>(options: TaskToolsOptions, setupFailed: (error: unknown) => EF): Effect.Effect<TaskToolSet, EF> =>
  Effect.async<TaskToolSet, EF>((resume) => {
    let abandoned = false
    makeTaskTools(options).then(
      (tools) => (abandoned ? void tools.close("the task ended before its tools were ready").catch(() => undefined) : resume(Effect.succeed(tools))),
      (e: unknown) => void (abandoned ? undefined : resume(Effect.fail(setupFailed(e))))
    )
    return Effect.sync(() => void (abandoned = true))
  })

export const makeTaskSetup = Effect.gen(function*() {
  const registry = yield* ModelRegistry
  const writer = yield* MemoryWriter
  const guard = yield* BashGuard
  const journal = yield* Journal
  const pi = yield* PiToolkit

  const pathsOf = (request: BackgroundTaskRequest) => ({ rootDir: request.location.memoryRootDir, memoryDir: request.location.memoryDir })

  /**
   * Every change of one task is recorded under one task id before it is published, so `pm undo` can reverse it, and
   * the task is one whole: `keep` says from its end whether its changes stay; otherwise they are rolled back.
   */
  const whole = <A, E, R>(
    request: BackgroundTaskRequest,
    spec: { readonly kind: TaskMeta["kind"]; readonly session: string | null; readonly lock: LockName } & Pick<TaskMeta, "range">,
    body: (journal: WriteJournal) => Effect.Effect<A, E, R>,
    keep: (exit: Exit.Exit<A, E>) => boolean
  ) =>
    journal.whole({
      paths: pathsOf(request),
      meta: {
        task: `${spec.kind}-${randomUUID()}`,
        kind: spec.kind,
        session: spec.session,
        model: `${request.model.provider}/${request.model.id}`,
        ...(spec.range === undefined ? {} : { range: spec.range })
      },
      locks: [spec.lock]
    }, body, keep)

  /** Rolls back the changes killed processes left half done, holding `held` (journalRecover.ts). */
  const recover = (request: BackgroundTaskRequest, held: LockName) => journal.recoverOpen(pathsOf(request), [held])

  /** Runs `body` over the task's tools and stopping check; closes both however `body` ends. */
  const withTaskTools = <P, EP, EF, A, E>(
    spec: TaskToolsSpec<P, EP, EF>,
    body: (tools: TaskToolSet, check: Effect.Effect<void, TaskInvalid>, prepared: P) => Effect.Effect<A, E>
  ): Effect.Effect<A, E | EP | EF> =>
    Effect.gen(function*() {
      const { request } = spec
      if (request.onStart !== undefined) yield* request.onStart
      const { memoryDir } = request.location
      // Once the task ends (returned, failed or interrupted) no write of it may publish any more.
      const { check, stop } = stoppableCheck(spec.check)
      const runtime = yield* Effect.runtime<never>()
      const task = yield* writer.openTask({ memoryDir, cwd: request.cwd, check, journal: spec.journal() })
      const prepared = yield* spec.before
      const options: TaskToolsOptions = {
        pi,
        cwd: request.cwd,
        memoryDir,
        projectRoot: request.location.projectRoot,
        writer: task,
        guard,
        check,
        runtime,
        ...spec.toolOptions(prepared),
        onChange: recordingChanges(spec.filesChanged, (change) =>
          Effect.sync(() => spec.changes?.push(change)).pipe(Effect.zipRight(request.onChange(change))))
      }
      const tools = yield* toolsFor(options, spec.setupFailed)
      return yield* body(tools, check, prepared).pipe(
        Effect.ensuring(stop("the task ended").pipe(Effect.zipRight(Effect.promise(() => tools.close("the task ended")))))
      )
    })

  /** The tool loop over `taskRequest` with the request's model, limits, usage callback and the task's time budget. */
  const run = (
    request: BackgroundTaskRequest,
    taskRequest: TaskRequest,
    tools: TaskToolSet,
    check: Effect.Effect<void, TaskInvalid>,
    budgetMs?: number,
    finishedAfter?: RunSpec["finishedAfter"]
  ) =>
    runTask({
      model: request.model,
      request: taskRequest,
      maxTurns: request.maxTurns,
      maxTokens: request.maxTokens,
      ...(request.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: request.requestTimeoutMs }),
      ...(budgetMs === undefined ? {} : { budgetMs }),
      tools,
      check,
      onUsage: request.onUsage,
      ...(finishedAfter === undefined ? {} : { finishedAfter })
    }).pipe(Effect.provideService(ModelRegistry, registry))

  return { whole, recover, withTaskTools, run }
})
