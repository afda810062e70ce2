/**
 * The six tools of a background task, wrapped from Pi's own tool definitions with the parent session's cwd at task
 * start: `read`, `find`, `grep` as Pi runs them (find over Node's glob instead of `fd`; grep with a 20 s limit),
 * `write` and `edit` with Pi's schemas and diff output but publishing through the task's MemoryWriter handle, and
 * `bash` behind the BashGuard (delete verdicts carried out by `runDelete`, read-only ones by Pi's bash).
 *
 * Every call first runs the task's validity check (trust, generation, lock); once it fails, the tools are dead and
 * every later call returns an error. Pi's tool definitions come from the host's own module (`PiToolkit`), never from
 * an import of ours.
 */
import type { AgentToolResult } from "@earendil-works/pi-agent-core"
import type { Tool } from "@earendil-works/pi-ai"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import { existsSync } from "node:fs"
import { access, glob, mkdtemp, readFile, realpath, rename, rm, stat } from "node:fs/promises"
import { homedir, tmpdir } from "node:os"
import { basename, dirname, join, relative, resolve } from "node:path"
import { decodeConfig } from "../../src/project/config.ts"
import { deleteAllowed, deleteCapReason, deleteLimit } from "../../src/writes/deleteCap.ts"
import { isProtectedPath, protectedByContent, type ProtectionOptions } from "../../src/safety/protectedPaths.ts"
import { newDanglingLinks } from "../../src/memory/memoryQuery.ts"
import { applyEdits, type Replacement } from "../../src/writes/readBaseline.ts"
import { detectSecrets, secretRefusalReason } from "../../src/safety/secrets.ts"
import { configPathOf, storageRootOf } from "../../src/storage/layout.ts"
import { backgroundWriteRefusal } from "../../src/writes/backgroundWrite.ts"
import { resolveToolPath } from "../../src/safety/toolPath.ts"
import { runDelete } from "../safety/BashGuard.ts"
import type { BashGuardShape } from "../safety/bashGuardShape.ts"
import { loadProtection, protectedReadReason, protectedReason, protectedRefusal } from "../safety/ProtectedReads.ts"
import { agentDirFromEnv } from "../project/ConfigService.ts"
import { isInsideDir } from "./paths.ts"
import { loadWhenUnavailable, makeSandboxedTools } from "./sandboxed.ts"
import { defaultSandbox, type SandboxShape } from "../safety/Sandbox.ts"
import type { WhenUnavailable } from "../../src/safety/sandbox.ts"
import { checkToolArguments } from "./toolArguments.ts"
import type { MemoryTask } from "../writes/memoryTask.ts"
import { TaskInvalid } from "../writes/writeErrors.ts"
import type { PiToolkitShape } from "./PiToolkit.ts"

export const BACKGROUND_TOOL_NAMES = ["read", "find", "grep", "write", "edit", "bash"] as const
export type BackgroundToolName = (typeof BACKGROUND_TOOL_NAMES)[number]

export const GREP_TIMEOUT_MS = 20_000
export const BASH_DEFAULT_TIMEOUT_S = 120
export const BASH_MAX_TIMEOUT_S = 600
export { GLOB_VISIT_LIMIT } from "../safety/ProtectedReads.ts"

export type ToolResult = AgentToolResult<unknown>

/** A change a task tried and could not make. */
export interface UnsavedChange {
  readonly file: string
  readonly reason: string
}

/** A successful change in memory, reported at once (change notices, the run's file list). */
export interface MemoryChange {
  readonly op: "write" | "edit" | "delete"
  readonly path: string
}

/**
 * An `onChange` that notes each changed path once in `files` (the task's run record) before handing the change on.
 */
export const recordingChanges =
  (files: Array<string>, then: (change: MemoryChange) => Effect.Effect<void>) =>
  (change: MemoryChange): Effect.Effect<void> =>
    Effect.sync(() => {
      if (!files.includes(change.path)) files.push(change.path)
    }).pipe(Effect.zipRight(then(change)))

export interface TaskTool {
  readonly name: BackgroundToolName | "codemode"
  /** What the model is told: Pi's own description and parameters. */
  readonly declaration: Tool
  readonly execute: (toolCallId: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<ToolResult>
}

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
  /** The OS sandbox of bash and grep (layers/background/sandboxed.ts). Default: the process's own. */
  readonly sandbox?: SandboxShape
  /** Without a sandbox: refuse bash, or run it behind the guard alone. Default: the user's config.json. */
  readonly whenUnavailable?: WhenUnavailable
  /**
   * The task's runtime (`Effect.runtime()` inside the task): every effect a tool runs (the check, reads' baselines,
   * writes, deletes, the guard) runs with it, so the task's clock, services and fiber refs apply. Default: Effect's.
   */
  readonly runtime?: Runtime.Runtime<never>
}

export interface DeleteCapStatus {
  readonly topics: number
  readonly limit: number
  readonly deleted: number
  /** Files whose delete was refused by the cap. */
  readonly refused: ReadonlyArray<string>
}


export interface CodemodeSettings {
  readonly mode: "on" | "only"
  readonly inlineBudget: number | undefined
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
  /**
   * Marks the tools dead (every later call fails), ends what the tools still run (a write or delete already under
   * way finishes first: it is never left to land after the task) and removes the task's temporary folder.
   */
  readonly close: (reason: string) => Promise<void>
}

export const errorResult = (text: string): ToolResult => ({ content: [{ type: "text", text }], details: undefined, isError: true })

const textResult = (text: string): ToolResult => ({ content: [{ type: "text", text }], details: undefined })

/** fd matches a pattern without a slash against file names anywhere below the search folder. */
const globPattern = (pattern: string): string => (pattern.includes("/") ? pattern : `**/${pattern}`)

const nodeGlob = async (
  pattern: string,
  cwd: string,
  options: { ignore: Array<string>; limit: number },
  hidden: (absolutePath: string) => Promise<boolean> = async () => false
): Promise<Array<string>> => {
  const found: Array<string> = []
  const skip = (p: string) => /(^|\/)(node_modules|\.git)(\/|$)/.test(p)
  for await (const entry of glob(globPattern(pattern), { cwd, exclude: skip })) {
    if (skip(entry)) continue
    if (await hidden(resolve(cwd, entry))) continue
    found.push(resolve(cwd, entry))
    if (found.length >= options.limit) break
  }
  return found
}

/** A file as the model knows it: relative to memory when inside it. */
const memoryLabel = (memoryDir: string, absolutePath: string): string =>
  isInsideDir(memoryDir, absolutePath) ? relative(memoryDir, absolutePath).split("\\").join("/") : absolutePath

/**
 * The credential guard on the final content of a write or edit: nothing is written when it holds a secret, and the
 * model is told which kind and where (never the value), so it can redact and retry.
 */
export const refuseCredentials = (memoryDir: string, absolutePath: string, content: string): void => {
  const findings = detectSecrets(content)
  if (findings.length > 0) throw new Error(secretRefusalReason(findings, memoryLabel(memoryDir, absolutePath)))
}

/** The size cap and, for topic files, the required header (src/writes/backgroundWrite.ts), on the final content. */
export const refuseUnfitContent = (memoryDir: string, absolutePath: string, content: string): void => {
  if (!isInsideDir(memoryDir, absolutePath)) return
  const refusal = backgroundWriteRefusal(memoryLabel(memoryDir, absolutePath), content)
  if (refusal !== undefined) throw new Error(refusal)
}

export { loadProtection, protectedReason, protectedRefusal } from "../safety/ProtectedReads.ts"

/** The file named by one line of Pi's grep output (`path:N: text`, or `path-N- text` for context), every reading of it. */
const grepLinePaths = (line: string): Array<string> => {
  const paths: Array<string> = []
  for (const m of line.matchAll(/(?::(\d+): |-(\d+)- )/g)) paths.push(line.slice(0, m.index))
  return paths
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
  let dead: string | undefined

  /**
   * Every effect of a tool runs as a fiber of the task's runtime, tracked until it ends, so that closing the tools
   * (the task ended, or was interrupted) ends them too: closing interrupts each and waits for it. A change to memory
   * (`change`) is not interrupted but awaited: the task's check, stopped before the tools close (stoppableCheck),
   * fails at its last step before publishing, so a write under way ends without landing, never later.
   */
  const runtime = options.runtime ?? Runtime.defaultRuntime
  const inFlight = new Map<Fiber.RuntimeFiber<unknown, unknown>, boolean>()
  const track = <A, E>(effect: Effect.Effect<A, E>, change: boolean): Promise<Exit.Exit<A, E>> =>
    new Promise((resume) => {
      if (dead !== undefined) return resume(Exit.fail(new TaskInvalid({ reason: dead }) as E))
      const fiber = Runtime.runFork(runtime)(effect)
      inFlight.set(fiber, change)
      fiber.addObserver((exit) => {
        inFlight.delete(fiber)
        resume(exit)
      })
    })
  /** An effect of a tool; its failure is thrown. */
  const runEffect = async <A, E>(effect: Effect.Effect<A, E>, change = false): Promise<A> => {
    const exit = await track(effect, change)
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    if (Option.isSome(failure)) throw failure.value
    throw new Error(Cause.isInterruptedOnly(exit.cause) ? "the background task was stopped" : Cause.pretty(exit.cause).split("\n")[0])
  }
  /** Runs a writer effect for Pi's tool; the error keeps its tag (`PublishFailed`: the disk, not the model, failed). */
  const run = async <A, E extends { readonly message: string }>(effect: Effect.Effect<A, E>): Promise<A> =>
    runEffect(effect, true).catch((e: unknown) => {
      const tag = (e as { _tag?: string })._tag
      throw Object.assign(new Error(e instanceof Error || typeof (e as { message?: unknown }).message === "string" ? (e as Error).message : String(e)), { tag })
    })

  const changed = (change: MemoryChange) => runEffect(options.onChange(change))
  /**
   * Writes that failed for a reason of the system (full disk, read-only, I/O), in publishing or in journaling: the
   * run failed to save memory. Refusals of the model's request (a stale read, a path outside memory) are not these.
   */
  const writeFailures: Array<string> = []
  const SYSTEM_FAILURES = new Set(["PublishFailed", "JournalFailed", "LockFailed"])
  const noteFailure = (e: unknown): never => {
    if (SYSTEM_FAILURES.has((e as { tag?: string }).tag ?? "")) writeFailures.push((e as Error).message)
    throw e
  }
  const indexPath = join(memoryDir, "MEMORY.md")
  /**
   * The index may not gain a line for a topic that does not exist: when the topic's write failed (a full disk) or
   * was refused, its index line is refused too, so MEMORY.md never links memory that was not saved.
   */
  const refuseDanglingIndex = async (absolutePath: string, content: string): Promise<void> => {
    if (resolve(absolutePath) !== indexPath) return
    const before = await readFile(indexPath, "utf8").catch(() => "")
    const dangling = newDanglingLinks(before, content, (file) => existsSync(join(memoryDir, file)))
    if (dangling.length === 0) return
    throw new Error(
      `MEMORY.md was not changed: it would link ${dangling.join(", ")}, which ${dangling.length === 1 ? "does" : "do"} not exist. ` +
        "Write the topic file first (if its write failed, say so and stop); then add its line."
    )
  }

  const protection = options.protection ?? await loadProtection()
  const guardPath = (absolutePath: string) => protectedReason(absolutePath, protection)
  /** The refusal for a tool's path argument (the searched folder for find and grep, cwd by default). */
  const refusePath = async (raw: unknown): Promise<ToolResult | undefined> => {
    const requested = typeof raw === "string" && raw !== "" ? raw : "."
    const absolute = resolveToolPath(requested, cwd, homedir())
    if (absolute === undefined) return undefined
    const reason = await guardPath(absolute)
    return reason === undefined ? undefined : errorResult(protectedRefusal(reason))
  }

  const readDef = pi.createReadToolDefinition(cwd)
  const findDef = pi.createFindToolDefinition(cwd, {
    operations: {
      exists: existsSync,
      glob: (pattern, searchCwd, o) => nodeGlob(pattern, searchCwd, o, async (p) => (await guardPath(p)) !== undefined)
    }
  })
  const grepDef = pi.createGrepToolDefinition(cwd)
  const writeDef = pi.createWriteToolDefinition(cwd, {
    operations: {
      // The writer creates missing folders inside memory itself; nothing is ever created elsewhere.
      mkdir: async () => undefined,
      writeFile: async (absolutePath, content) => {
        refuseUnfitContent(memoryDir, absolutePath, content)
        refuseCredentials(memoryDir, absolutePath, content)
        await refuseDanglingIndex(absolutePath, content)
        // Journaled by the writer (its task handle carries the journal), from the bytes it replaces.
        const result = await run(writer.write(absolutePath, content)).catch(noteFailure)
        await changed({ op: "write", path: result.path })
      }
    }
  })
  /** What Pi's edit read, per file: to tell an exact replacement (the writer's edit) from a fuzzy one. */
  const editSeen = new Map<string, string>()
  const pendingEdits = new Map<string, ReadonlyArray<Replacement>>()
  const editDef = pi.createEditToolDefinition(cwd, {
    operations: {
      access: (absolutePath) => access(absolutePath),
      readFile: async (absolutePath) => {
        const bytes = await readFile(absolutePath)
        editSeen.set(absolutePath, bytes.toString("utf8"))
        return bytes
      },
      writeFile: async (absolutePath, content) => {
        refuseUnfitContent(memoryDir, absolutePath, content)
        refuseCredentials(memoryDir, absolutePath, content)
        await refuseDanglingIndex(absolutePath, content)
        const before = editSeen.get(absolutePath)
        const edits = pendingEdits.get(absolutePath) ?? []
        const exact = before === undefined ? undefined : applyEdits(before, edits)
        // Exact replacements go through the writer's edit (which may re-apply them to a file changed since the read);
        // anything Pi matched loosely is published as a whole-file write under the same baseline rules.
        const result = await (exact?._tag === "Applied" && exact.content === content
          ? run(writer.edit(absolutePath, edits))
          : run(writer.write(absolutePath, content))).catch(noteFailure)
        await changed({ op: "edit", path: result.path })
      }
    }
  })
  const sandboxed = await makeSandboxedTools({
    sandbox: options.sandbox ?? defaultSandbox(),
    pi,
    cwd,
    memoryDir,
    protection,
    whenUnavailable: options.whenUnavailable ?? await loadWhenUnavailable()
  })
  const bashDef = pi.createBashToolDefinition(cwd, sandboxed.bashOperations && { operations: sandboxed.bashOperations })

  /** Per file, why its last write or edit failed; a later success of either clears it. */
  const failedChanges = new Map<string, string>()
  const noteChangeAttempt = (name: BackgroundToolName, args: Record<string, unknown>, result: ToolResult): ToolResult => {
    if (name !== "write" && name !== "edit") return result
    const absolute = resolveToolPath(String(args["path"]), cwd, homedir())
    const file = absolute === undefined ? String(args["path"]) : memoryLabel(memoryDir, absolute)
    if (result.isError !== true) failedChanges.delete(file)
    else {
      const first = result.content.map((c) => (c.type === "text" ? c.text : "")).join("").trim().split("\n")[0] ?? ""
      failedChanges.set(file, first.length > 200 ? `${first.slice(0, 199)}…` : first)
    }
    return result
  }
  /** Pi's own repair of common argument mistakes (edit: `edits` sent as a string or one object), run before the check. */
  const prepareOf: Partial<Record<BackgroundToolName, ((args: unknown) => unknown) | undefined>> = {
    edit: (editDef as { prepareArguments?: (args: unknown) => unknown }).prepareArguments
  }
  const guarded = (name: BackgroundToolName, body: (id: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<ToolResult>) =>
    async (id: string, raw: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> => {
      if (dead !== undefined) return errorResult(`This background task was stopped (${dead}); no tool may run any more.`)
      const valid = await runEffect(Effect.either(options.check))
        .catch(() => ({ _tag: "Left" as const, left: new TaskInvalid({ reason: dead ?? "the background task was stopped" }) }))
      if (valid._tag === "Left") {
        dead = valid.left.reason
        return errorResult(valid.left.message)
      }
      // The arguments against the tool's schema before any of its code runs (a copy: the transcript keeps the call).
      const prepare = prepareOf[name]
      const checked = checkToolArguments(name, prepare === undefined ? raw : prepare(structuredClone(raw)))
      if (checked._tag === "Invalid") return errorResult(checked.message)
      const args = checked.args
      try {
        return noteChangeAttempt(name, args, await body(id, args, signal))
      } catch (e) {
        return noteChangeAttempt(name, args, errorResult(`${name} failed: ${e instanceof Error ? e.message : String(e)}`))
      }
    }

  const viaPi = (def: { execute: (...a: Array<any>) => Promise<unknown> }) => (id: string, args: Record<string, unknown>, signal: AbortSignal) =>
    def.execute(id, args, signal, undefined, undefined) as Promise<ToolResult>

  const read = async (id: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> => {
    const refused = await refusePath(args["path"])
    if (refused !== undefined) return refused
    const raw = typeof args["path"] === "string" ? args["path"] : ""
    const absolute = resolveToolPath(raw, cwd, homedir())
    const before = absolute === undefined ? undefined : await stat(absolute).catch(() => undefined)
    const result = await viaPi(readDef)(id, args, signal)
    if (absolute === undefined || result.isError === true) return result
    const image = result.content.some((c) => c.type === "image") ||
      result.content.some((c) => c.type === "text" && c.text.startsWith("Read image file"))
    const truncated = (result.details as { truncation?: { truncated?: boolean } } | undefined)?.truncation?.truncated === true
    const offset = typeof args["offset"] === "number" ? args["offset"] : undefined
    const limit = typeof args["limit"] === "number" ? args["limit"] : undefined
    const outcome = image
      ? { kind: "image" as const }
      : { kind: "text" as const, truncated, ...(offset === undefined ? {} : { offset }), ...(limit === undefined ? {} : { limit }) }
    // The baseline is what the tool saw only if the file did not move under the read; otherwise none is recorded.
    const after = await stat(absolute).catch(() => undefined)
    const content = after === undefined ? undefined : await readFile(absolute, "utf8").catch(() => undefined)
    const steady = before !== undefined && after !== undefined && content !== undefined &&
      before.mtimeMs === after.mtimeMs && before.size === after.size && before.ino === after.ino
    await runEffect(
      steady
        ? writer.recordRead(absolute, outcome, { content, mtimeMs: after.mtimeMs })
        : writer.recordRead(absolute, { kind: "image" })
    )
    return result
  }

  const find = async (id: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> =>
    (await refusePath(args["path"])) ?? viaPi(findDef)(id, args, signal)

  /** grep over a folder may pass through credential stores: their lines are dropped from the output. */
  const grep = async (id: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> => {
    const refused = await refusePath(args["path"])
    if (refused !== undefined) return refused
    const searched = resolveToolPath(typeof args["path"] === "string" && args["path"] !== "" ? args["path"] : ".", cwd, homedir())!
    const searchedIsDir = await stat(searched).then((s) => s.isDirectory(), () => false)
    const result = await grepUnfiltered(id, args, signal)
    if (result.isError === true || !searchedIsDir) return result
    const verdicts = new Map<string, boolean>()
    const hides = async (line: string): Promise<boolean> => {
      for (const path of grepLinePaths(line)) {
        let hidden = verdicts.get(path)
        if (hidden === undefined) {
          hidden = (await guardPath(resolve(searched, path))) !== undefined
          verdicts.set(path, hidden)
        }
        if (hidden) return true
      }
      return false
    }
    const content: Array<ToolResult["content"][number]> = []
    let dropped = 0
    for (const c of result.content) {
      if (c.type !== "text") {
        content.push(c)
        continue
      }
      const kept: Array<string> = []
      for (const line of c.text.split("\n")) {
        if (await hides(line)) dropped++
        else kept.push(line)
      }
      content.push({ ...c, text: kept.join("\n") })
    }
    if (dropped === 0) return result
    content.push({ type: "text", text: `\n[${dropped} line(s) from protected credential files were left out]` })
    return { ...result, content }
  }

  const grepUnfiltered = async (id: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> => {
    const controller = new AbortController()
    const onAbort = () => controller.abort()
    signal.addEventListener("abort", onAbort, { once: true })
    try {
      const outcome = await runEffect(
        Effect.tryPromise(() => sandboxed.grep?.(args, controller.signal) ?? viaPi(grepDef)(id, args, controller.signal)).pipe(
          Effect.timeoutOption(Duration.millis(GREP_TIMEOUT_MS)),
          Effect.either
        )
      )
      if (outcome._tag === "Left") throw outcome.left.error
      if (Option.isNone(outcome.right)) {
        controller.abort()
        return errorResult(`grep took longer than ${GREP_TIMEOUT_MS / 1000} s and was stopped; narrow the pattern or the path.`)
      }
      return outcome.right.value
    } finally {
      signal.removeEventListener("abort", onAbort)
    }
  }

  const edit = async (id: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> => {
    // Before Pi's edit opens anything: its errors would tell whether a guessed text is in a protected file.
    const refused = await refusePath(args["path"])
    if (refused !== undefined) return refused
    const edits = Array.isArray(args["edits"]) ? (args["edits"] as ReadonlyArray<Replacement>) : []
    const absolute = typeof args["path"] === "string" ? resolveToolPath(args["path"], cwd, homedir()) : undefined
    if (absolute !== undefined) pendingEdits.set(absolute, edits)
    try {
      return await viaPi(editDef)(id, args, signal)
    } finally {
      if (absolute !== undefined) {
        pendingEdits.delete(absolute)
        editSeen.delete(absolute)
      }
    }
  }

  let capDeleted = 0
  const capRefused: Array<string> = []
  /** A delete under the cap: refused past the line, counted when a file really went. */
  const cappedRemove = async (absolutePath: string, remove: () => Promise<{ readonly removed: boolean; readonly path: string }>) => {
    const cap = options.deleteCap
    if (cap === undefined) return remove()
    const exists = await stat(absolutePath).then(() => true, () => false)
    if (exists && !deleteAllowed(capDeleted + 1, cap.topics)) {
      const file = memoryLabel(memoryDir, absolutePath)
      capRefused.push(file)
      throw new Error(deleteCapReason(file, capDeleted, cap.topics))
    }
    const result = await remove()
    if (result.removed) capDeleted++
    return result
  }

  const bash = async (id: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> => {
    const command = typeof args["command"] === "string" ? args["command"] : ""
    const verdict = await runEffect(options.guard.classify(command, { memoryDir, cwd, reads: { home: protection.home } }))
    if (verdict.verdict === "rejected") return errorResult(`Command refused in a background memory task: ${verdict.reason}`)
    if (verdict.verdict === "read-only") {
      // What the command may open, checked before it runs (a guard without the plan refuses: nothing is unchecked).
      const why = verdict.reads === undefined ? "the guard gave no list of what it reads" : await protectedReadReason(verdict.reads, protection)
      if (why !== undefined) return errorResult(protectedRefusal(why))
    }
    if (verdict.verdict === "delete") {
      // Only files really removed are changes: `rm -f` of a missing file succeeds without one.
      const gone: Array<string> = []
      const outcome = await runEffect(
        runDelete(
          verdict,
          (path, o) =>
            Effect.tryPromise({
              try: () =>
                cappedRemove(resolve(cwd, path), () => run(writer.remove(path, o))),
              catch: (e) => (e instanceof Error ? e : new Error(String(e)))
            }).pipe(Effect.tap((r) => Effect.sync(() => void (r.removed && gone.push(r.path))))),
          (e) => e.message
        )
      )
      for (const path of gone) await changed({ op: "delete", path })
      const text = outcome.output === "" ? `Removed ${gone.length} file(s).` : outcome.output.trimEnd()
      return outcome.exitCode === 0 ? textResult(text) : errorResult(`${text}\n\nCommand exited with code ${outcome.exitCode}`)
    }
    if (sandboxed.bashRefusal !== undefined) return errorResult(sandboxed.bashRefusal)
    const requested = typeof args["timeout"] === "number" && args["timeout"] > 0 ? args["timeout"] : BASH_DEFAULT_TIMEOUT_S
    const toRun = verdict.run ?? command
    const result = await viaPi(bashDef)(id, { command: toRun, timeout: Math.min(requested, BASH_MAX_TIMEOUT_S) }, signal)
    const full = (result.details as { fullOutputPath?: string } | undefined)?.fullOutputPath
    if (typeof full !== "string") return result
    // The full log moves into the task's own folder, which goes when the task ends.
    const moved = join(tempDir, basename(full))
    const ok = await rename(full, moved).then(() => true, () => false)
    if (!ok) {
      logs.add(full)
      return result
    }
    return {
      ...result,
      content: result.content.map((c) => (c.type === "text" ? { ...c, text: c.text.replaceAll(full, moved) } : c)),
      details: { ...(result.details as object), fullOutputPath: moved }
    }
  }

  const declare = (def: { name: string; description: string; parameters: unknown }): Tool =>
    ({ name: def.name, description: def.description, parameters: def.parameters as Tool["parameters"] })

  const tools: ReadonlyArray<TaskTool> = [
    { name: "read", declaration: declare(readDef), execute: guarded("read", read) },
    { name: "find", declaration: declare(findDef), execute: guarded("find", find) },
    { name: "grep", declaration: declare(grepDef), execute: guarded("grep", grep) },
    { name: "write", declaration: declare(writeDef), execute: guarded("write", async (id, args, signal) => (await refusePath(args["path"])) ?? viaPi(writeDef)(id, args, signal)) },
    { name: "edit", declaration: declare(editDef), execute: guarded("edit", edit) },
    { name: "bash", declaration: declare(bashDef), execute: guarded("bash", bash) }
  ]
  const exposed = options.codemode === undefined
    ? tools
    : await withCodemode(pi, cwd, tools, options.codemode).catch(async (e: unknown) => {
        await sandboxed.close()
        throw e
      })
  return {
    tools: exposed,
    byName: (name) => exposed.find((t) => t.name === name),
    unsaved: () => [...failedChanges].map(([file, reason]) => ({ file, reason })),
    writeFailures: () => [...writeFailures],
    deleteCapStatus: () =>
      options.deleteCap === undefined
        ? undefined
        : { topics: options.deleteCap.topics, limit: deleteLimit(options.deleteCap.topics), deleted: capDeleted, refused: [...capRefused] },
    close: async (reason) => {
      dead ??= reason
      // A change under way fails at its last check (the task's check was stopped first); the rest is interrupted.
      await Promise.all([...inFlight].map(([fiber, change]) => Runtime.runPromise(runtime)(change ? Fiber.await(fiber) : Fiber.interrupt(fiber))))
      await sandboxed.close()
      for (const log of logs) await rm(log, { force: true }).catch(() => undefined)
      await rm(tempDir, { recursive: true, force: true }).catch(() => undefined)
    }
  }
}

/** Whether `path` (already absolute) lies inside `dir`. */

/**
 * Task-level codemode: Pi's own codemode tool, registered through a minimal extension API of ours, whose scripts can
 * call only the task's six tools (each call goes through the same guarded executors) and whose `store()` lives in an
 * in-memory session of the task's own.
 */
const withCodemode = async (
  pi: PiToolkitShape,
  cwd: string,
  six: ReadonlyArray<TaskTool>,
  settings: CodemodeSettings
): Promise<ReadonlyArray<TaskTool>> => {
  const sessionManager = pi.SessionManager.inMemory(cwd)
  let definition: { description: string; parameters: unknown; execute: (...a: Array<any>) => Promise<unknown> } | undefined
  const api = {
    registerTool: (def: typeof definition) => void (definition = def),
    appendEntry: (customType: string, data: unknown) => void sessionManager.appendCustomEntry(customType, data),
    getAllTools: () => six.map((t) => ({ name: t.name, description: t.declaration.description, parameters: t.declaration.parameters, promptGuidelines: [] })),
    getSettings: () => ({})
  }
  await pi.createCodemodeExtension({ mode: settings.mode, ...(settings.inlineBudget === undefined ? {} : { inlineBudget: settings.inlineBudget }), models: false })(api as never)
  if (definition === undefined) throw new Error("codemode did not register its tool")
  const def = definition
  let nested = 0
  const agentTools = six.map((t) => ({ name: t.name, label: t.name, description: t.declaration.description, parameters: t.declaration.parameters, execute: t.execute }))
  const codemode: TaskTool = {
    name: "codemode",
    declaration: { name: "codemode", description: def.description, parameters: def.parameters as Tool["parameters"] },
    execute: (id, raw, signal) => {
      const checked = checkToolArguments("codemode", raw)
      if (checked._tag === "Invalid") return Promise.resolve(errorResult(checked.message))
      const args = checked.args
      return def.execute(id, args, signal, undefined, {
        cwd,
        tools: agentTools,
        sessionManager,
        modelRegistry: undefined,
        executeTool: async (name: string, toolArgs: unknown, o?: { signal?: AbortSignal }) => {
          const toolCall = { type: "toolCall", id: `${id}/${++nested}`, name, arguments: toolArgs }
          const tool = six.find((t) => t.name === name)
          const result = tool === undefined
            ? errorResult(`The tool "${name}" is not available in this background memory task.`)
            : await tool.execute(toolCall.id, (toolArgs ?? {}) as Record<string, unknown>, o?.signal ?? signal)
          return { toolCall, result, isError: result.isError === true }
        }
      }) as Promise<ToolResult>
    }
  }
  return settings.mode === "only" ? [codemode] : [...six, codemode]
}

export { isInsideDir } from "./paths.ts"
