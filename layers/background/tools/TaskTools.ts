/**
 * The six tools of a background task, wrapped from Pi's own tool definitions with the parent session's cwd at task
 * start: `read`, `find`, `grep` as Pi runs them (find over Node's glob instead of `fd`; grep with a 20 s limit),
 * `write` and `edit` with Pi's schemas and diff output but publishing through the task's MemoryWriter handle, and
 * `bash` behind the BashGuard (delete verdicts carried out by `runDelete`, read-only ones by Pi's bash).
 *
 * Every call first runs the task's validity check (trust, generation, lock); once it fails, the tools are dead and
 * every later call returns an error. Pi's tool definitions come from the host's own module (`PiToolkit`), never from
 * an import of ours.
 *
 * This module puts the task's tools together (one file per tool beside it, the shared protection checks in
 * ./protection.ts, the change records in ./changeRecords.ts) and owns their end: it runs no tool itself.
 */
import * as Effect from "effect/Effect"
import type * as Runtime from "effect/Runtime"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { INDEX_FILE } from "../../../src/storage/layout.ts"
import type { ProtectionOptions } from "../../../src/safety/protectedPaths.ts"
import { type SandboxMode, sandboxMode, type WhenUnavailable } from "../../../src/safety/sandbox.ts"
import type { BashGuardShape } from "../../safety/bashGuardShape.ts"
import { loadProtection } from "../../safety/ProtectedReads.ts"
import { loadReadScope } from "../../safety/readScopeLoad.ts"
import { defaultSandbox, type SandboxShape } from "../../safety/Sandbox.ts"
import type { MemoryTask } from "../../writes/memoryTask.ts"
import { TaskInvalid } from "../../writes/writeErrors.ts"
import type { PiToolkitShape } from "../PiToolkit.ts"
import { makeBashTool } from "./bash.ts"
import { makeChangeRecords } from "./changeRecords.ts"
import { withCodemode } from "./codemode.ts"
import { type DeleteCapStatus, makeDeletePath } from "./delete.ts"
import { makeEditTool } from "./edit.ts"
import { makeFindTool } from "./find.ts"
import { makeGrepTool } from "./grep.ts"
import { makeGuarded } from "./guardedCall.ts"
import { makePathGuard } from "./protection.ts"
import { makeReadTool } from "./read.ts"
import { loadWhenUnavailable, makeSandboxedTools, type SandboxedTools } from "./sandboxed.ts"
import { type CodemodeSettings, declare, type MemoryChange, type TaskTool, type UnsavedChange } from "./taskTool.ts"
import type { ToolContext } from "./toolContext.ts"
import { makeToolRuntime } from "./toolRuntime.ts"
import { makeWriteTool } from "./write.ts"
import { makeNodeFileSystem } from "../../storage/nodeFileSystem.ts"
import { makeHeldStore } from "../../writes/heldStore.ts"
import { makeProvenanceGuard, type ProvenanceSpec } from "./provenanceGuard.ts"

/**
 * An `onChange` that notes each changed path once in `files` (the task's run record) before handing the change on.
 */
export const recordingChanges =
  (files: Array<string>, then: (change: MemoryChange) => Effect.Effect<void>) =>
  (change: MemoryChange): Effect.Effect<void> =>
    Effect.sync(() => {
      if (!files.includes(change.path)) files.push(change.path)
    }).pipe(Effect.zipRight(then(change)))

export interface TaskToolsOptions {
  /** The host's tool definitions and codemode (the host's module, not a copy of ours). */
  readonly pi: PiToolkitShape
  readonly cwd: string
  readonly memoryDir: string
  readonly writer: MemoryTask
  readonly guard: BashGuardShape
  /** Task validity; fails once the task may no longer act. */
  readonly check: Effect.Effect<void, TaskInvalid>
  readonly onChange: (change: MemoryChange) => Effect.Effect<void>
  /** The main session's codemode, when it is on: the task gets its own codemode over the six tools. */
  readonly codemode?: CodemodeSettings | undefined
  /**
   * The dream's delete cap: with the number of topics at the start of the task, deletes beyond `deleteLimit` of them
   * (src/writes/deleteCap.ts) are refused with a reason. Off by default.
   */
  readonly deleteCap?: { readonly topics: number }
  /** Protected reads: the credential stores no tool may open. Default: read from the user's config.json. */
  readonly protection?: ProtectionOptions
  /** The project's root as memory knows it (the main checkout of a linked worktree): part of what the task may read. */
  readonly projectRoot?: string
  /** The dream's: this project's Pi session folder and the sessions it consolidates, which it may read. */
  readonly sessions?: { readonly dir: string; readonly ids: ReadonlyArray<string> }
  /** The OS sandbox of bash and grep (layers/background/tools/sandboxed.ts). Default: the process's own. */
  readonly sandbox?: SandboxShape
  /** Without a sandbox: refuse bash, or run it behind the guard alone. Default: the user's config.json. */
  readonly whenUnavailable?: WhenUnavailable
  /**
   * The task's runtime (`Effect.runtime()` inside the task): every effect a tool runs (the check, reads' baselines,
   * writes, deletes, the guard) runs with it, so the task's clock, services and fiber refs apply. Default: Effect's.
   */
  readonly runtime?: Runtime.Runtime<never>
  /**
   * What the task's writes are judged against (./provenanceGuard.ts): a write whose substance came from outside text
   * is held for the person's review instead of saved. Absent: writes are not judged (and journal no source).
   */
  readonly provenance?: ProvenanceSpec
  /** The index text the model's request already holds word for word (a fork's system prompt), when it does. */
  readonly knownIndex?: () => string | undefined
}

export interface TaskToolSet {
  /** What the model may call: the six, plus `codemode` in "on" mode, or `codemode` alone in "only" mode. */
  readonly tools: ReadonlyArray<TaskTool>
  readonly byName: (name: string) => TaskTool | undefined
  /** The messages of writes and edits that failed for a reason of the system (PublishFailed), in order. */
  readonly writeFailures: () => ReadonlyArray<string>
  /** The delete cap's figures so far (undefined when the cap is off), for the task's status. */
  readonly deleteCapStatus?: () => DeleteCapStatus | undefined
  /** Files whose last `write` or `edit` in this task failed, with the error's first line (the run record's). */
  readonly unsaved?: () => ReadonlyArray<UnsavedChange>
  /** How this task's bash ran: inside the OS sandbox, refused without one, or behind the guard alone (its run record's). */
  readonly sandbox?: SandboxMode
  /**
   * Marks the tools dead (every later call fails), ends what the tools still run (a write or delete already under
   * way finishes first: it is never left to land after the task) and removes the task's temporary folder.
   */
  readonly close: (reason: string) => Promise<void>
}

/**
 * A task's check that also fails once `stop` was called: the writer's last check before each publish consults it,
 * so a write under way when the task ends publishes nothing.
 */
export const stoppableCheck = (check: Effect.Effect<void, TaskInvalid>) => {
  let stopped: string | undefined
  return {
    check: Effect.suspend(() => (stopped === undefined ? check : Effect.fail(new TaskInvalid({ reason: stopped })))),
    stop: (reason: string) => Effect.sync(() => void (stopped ??= reason))
  }
}

export const makeTaskTools = async (options: TaskToolsOptions): Promise<TaskToolSet> => {
  const { pi, cwd, memoryDir, writer } = options
  const tempDir = await mkdtemp(join(tmpdir(), "pm-task-"))
  const logs = new Set<string>()
  const runtime = makeToolRuntime(options.runtime)
  const records = makeChangeRecords(cwd, memoryDir)
  // What every tool may read: the task's scope (layers/safety/readScopeLoad.ts), with the protected paths inside it.
  const configured = options.protection ?? await loadProtection()
  const scope = await loadReadScope({
    cwd,
    projectRoot: options.projectRoot,
    memoryDir,
    sessionDir: options.sessions?.dir,
    sessionIds: options.sessions?.ids,
    home: configured.home,
    agentDir: configured.agentDir
  })
  const protection: ProtectionOptions = { ...configured, scope }
  const provenance = options.provenance === undefined
    ? undefined
    : makeProvenanceGuard(options.provenance, { cwd, memoryDir, runtime, held: makeHeldStore(makeNodeFileSystem()) })
  const context: ToolContext = {
    pi,
    cwd,
    memoryDir,
    writer,
    runtime,
    paths: makePathGuard(cwd, protection),
    records,
    changed: (change) => runtime.runEffect(options.onChange(change)),
    ...(provenance === undefined ? {} : { provenance }),
    ...(options.knownIndex === undefined
      ? {}
      : { knownText: (path: string) => (path === join(memoryDir, INDEX_FILE) ? options.knownIndex!() : undefined) })
  }

  // Pi's definitions are made in this order: read, find, grep, write, edit, then the sandbox, then bash.
  const read = makeReadTool(context)
  const find = makeFindTool(context)
  let sandboxed: SandboxedTools | undefined
  const grep = makeGrepTool(context, () => sandboxed!)
  const write = makeWriteTool(context)
  const edit = makeEditTool(context)
  const whenUnavailable = options.whenUnavailable ?? await loadWhenUnavailable()
  const sandboxedTools = await makeSandboxedTools({
    sandbox: options.sandbox ?? defaultSandbox(),
    pi,
    cwd,
    memoryDir,
    protection,
    whenUnavailable
  })
  sandboxed = sandboxedTools
  // From here on the sandbox is held: a step that throws releases it, or its runtime would outlive the task.
  try {
    const deletes = makeDeletePath(context, options.deleteCap)
    const bash = makeBashTool(context, { guard: options.guard, protection, sandboxed: sandboxedTools, deletes, tempDir, logs })

    const gated = makeGuarded({ runtime, check: options.check, records, prepareOf: { edit: edit.prepareArguments } })
    // Every result the task receives is noted for the judgement of its later writes (codemode's nested calls too).
    const guarded: typeof gated = (name, body) => {
      const run = gated(name, body)
      return async (id, args, signal) => {
        const result = await run(id, args, signal)
        provenance?.noteResult(name, args, result)
        return result
      }
    }
    const six: ReadonlyArray<TaskTool> = [
      { name: "read", declaration: declare(read.definition), execute: guarded("read", read.execute) },
      { name: "find", declaration: declare(find.definition), execute: guarded("find", find.execute) },
      { name: "grep", declaration: declare(grep.definition), execute: guarded("grep", grep.execute) },
      { name: "write", declaration: declare(write.definition), execute: guarded("write", write.execute) },
      { name: "edit", declaration: declare(edit.definition), execute: guarded("edit", edit.execute) },
      { name: "bash", declaration: declare(bash.definition), execute: guarded("bash", bash.execute) }
    ]
    const exposed = options.codemode === undefined ? six : await withCodemode(pi, cwd, six, options.codemode)
    return {
      tools: exposed,
      byName: (name) => exposed.find((t) => t.name === name),
      unsaved: records.unsaved,
      writeFailures: records.writeFailures,
      deleteCapStatus: deletes.status,
      sandbox: sandboxMode(sandboxedTools.availability, whenUnavailable),
      close: async (reason) => {
        runtime.dead ??= reason
        // A change under way fails at its last check (the task's check was stopped first); the rest is interrupted.
        await runtime.settle()
        await sandboxedTools.close()
        for (const log of logs) await rm(log, { force: true }).catch(() => undefined)
        await rm(tempDir, { recursive: true, force: true }).catch(() => undefined)
      }
    }
  } catch (e) {
    await sandboxedTools.close()
    throw e
  }
}
