/** The `pm` subcommands. Each translates its options into service calls and prints; nothing else. */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { existsSync, readdirSync, statSync } from "node:fs"
import { resolve } from "node:path"
import { sha256Hex24 } from "../src/projectKey.ts"
import { emptyRecallState } from "../src/recallState.ts"
import type { ProjectLocation } from "../src/storage.ts"
import { ConfigService } from "../layers/ConfigService.ts"
import { MemoryStore } from "../layers/MemoryStore.ts"
import { ModelRegistry } from "../layers/ModelRegistry.ts"
import { ProjectLocator } from "../layers/ProjectLocator.ts"
import { passesWhitespaceThreshold, Recall } from "../layers/Recall.ts"
import { age, EXIT_PROBLEMS, fail, printJson, printLine, setExit, table } from "./output.ts"

const cwdOption = Options.directory("cwd").pipe(
  Options.withDescription("Project directory (default: the current directory)"),
  Options.withDefault(".")
)
const jsonOption = Options.boolean("json").pipe(Options.withDescription("Machine-readable output on stdout"))
/** `--cwd` and `--json`, which every subcommand takes (DECISIONS D9). */
export const commonOptions = { cwd: cwdOption, json: jsonOption }
const memoryDirOption = Options.directory("memory-dir").pipe(
  Options.withDescription("Read this memory directory instead of the project's"),
  Options.optional
)

const common = commonOptions

/**
 * Locates the project, reporting config warnings on stderr (never on stdout, which may be JSON). `inspect` only
 * looks: nothing is claimed or created.
 */
const locateWith = (how: "locate" | "inspect") => (cwd: string) =>
  Effect.gen(function* () {
    const config = yield* ConfigService
    const { warnings } = yield* config.load
    for (const w of warnings) process.stderr.write(`pm: warning: ${w.message}\n`)
    return yield* (yield* ProjectLocator)[how](resolve(cwd))
  })
const locate = locateWith("locate")
const inspect = locateWith("inspect")

/** A `--memory-dir` that is missing or unreadable is an error naming it, not an empty memory. */
const existingMemoryDir = (dir: string) =>
  Effect.try({
    try: () => {
      if (!statSync(dir).isDirectory()) throw new Error(`memory directory ${dir} is not a directory`)
      readdirSync(dir)
      return dir
    },
    catch: (e) => {
      const code = (e as NodeJS.ErrnoException).code
      return {
        message: code === "ENOENT"
          ? `memory directory ${dir} does not exist`
          : code === undefined ? (e as Error).message : `memory directory ${dir} cannot be read (${code})`
      }
    }
  })

const memoryDirOf = (cwd: string, override: Option.Option<string>) =>
  Option.isSome(override) ? existingMemoryDir(resolve(override.value)) : locate(cwd).pipe(Effect.map((l) => l.memoryDir))

const orFail = <A, E extends { readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.catchAll((e) => fail(e.message)))

export const projectCommand = Command.make("project", common, ({ cwd, json }) =>
  orFail(
    Effect.gen(function* () {
      // Inspection only: nothing is created for a project that has no memory yet.
      const l: ProjectLocation = yield* inspect(cwd)
      const out = {
        projectRoot: l.projectRoot,
        projectKey: l.projectKey,
        projectDir: l.projectDir,
        memoryDir: l.memoryDir,
        memoryRootHash: l.memoryRootHash,
        storageRoot: l.storageRoot
      }
      if (json) return yield* printJson(out)
      yield* printLine(table(["", ""], Object.entries(out).map(([k, v]) => [k, v])).split("\n").slice(1).join("\n"))
    })
  )
).pipe(Command.withDescription("Show where the project's memory lives"))

export const scanCommand = Command.make("scan", { ...common, memoryDir: memoryDirOption }, ({ cwd, json, memoryDir }) =>
  orFail(
    Effect.gen(function* () {
      const dir = yield* memoryDirOf(cwd, memoryDir)
      const store = yield* MemoryStore
      // The index first: reading it may backfill a missing one from the topics.
      const index = yield* store.readIndex(dir)
      const { topics, skipped } = yield* store.scanTopics(dir)
      if (json) {
        return yield* printJson({
          memoryDir: dir,
          index: { exists: index.exists, lines: index.lines, chars: index.chars, truncated: index.truncated },
          topics: topics.map((t) => ({
            filename: t.filename,
            name: t.name ?? null,
            description: t.description ?? null,
            type: t.type ?? null,
            mtime: new Date(t.fileMtimeMs).toISOString()
          })),
          skipped
        })
      }
      const now = Date.now()
      yield* printLine(`Memory: ${dir}`)
      yield* printLine(
        `Index:  ${index.exists ? `MEMORY.md, ${index.lines} lines, ${index.chars} characters${index.truncated ? " (truncated when loaded)" : ""}${index.backfilled ? " (created from the topics just now)" : ""}` : "no MEMORY.md"}`
      )
      yield* printLine(`Topics: ${topics.length}${skipped.length > 0 ? `, ${skipped.length} skipped` : ""}`)
      if (topics.length > 0) {
        yield* printLine()
        yield* printLine(
          table(
            ["AGE", "TYPE", "FILE", "DESCRIPTION"],
            topics.map((t) => [age(t.fileMtimeMs, now), t.type ?? "-", t.filename, t.description ?? "(no description)"])
          )
        )
      }
      if (skipped.length > 0) {
        yield* printLine()
        yield* printLine(table(["SKIPPED", "REASON"], skipped.map((s) => [s.filename, s.reason])))
      }
    })
  )
).pipe(Command.withDescription("List the project's memory topics, newest first"))

export const lintCommand = Command.make(
  "lint",
  { ...common, memoryDir: memoryDirOption, files: Args.text({ name: "FILE" }).pipe(
      Args.withDescription("Files to check (from the current directory, else the memory directory); default: all topics and MEMORY.md"),
      Args.repeated
    ) },
  ({ cwd, json, memoryDir, files }) =>
    orFail(
      Effect.gen(function* () {
        // @effect/cli hands an unknown option to the FILE arguments; it is bad usage, not a file to lint.
        const option = files.find((f) => f.startsWith("-"))
        if (option !== undefined) return yield* fail(`unknown option ${option} (name a file starting with - as ./${option})`)
        const dir = yield* memoryDirOf(cwd, memoryDir)
        // A FILE names a file from the current directory (or an absolute path); one not found there is looked up
        // in the memory directory, as before.
        const named = files.map((f) => (existsSync(resolve(f)) ? resolve(f) : f))
        const results = yield* (yield* MemoryStore).lint(dir, named)
        const withProblems = results.filter((r) => r.problems.length > 0)
        if (withProblems.length > 0) yield* setExit(EXIT_PROBLEMS)
        if (json) return yield* printJson(withProblems)
        if (withProblems.length === 0) return yield* printLine(`No problems in ${results.length} file${results.length === 1 ? "" : "s"}.`)
        for (const r of withProblems) {
          yield* printLine(r.file)
          for (const p of r.problems) yield* printLine(`  ${p.code}: ${p.message}`)
        }
      })
    )
).pipe(Command.withDescription("Check topic files and the index for format and size problems (exit 1 when any)"))

export const recallCommand = Command.make(
  "recall",
  {
    ...common,
    memoryDir: memoryDirOption,
    model: Options.text("model").pipe(Options.withDescription("Selector model as provider/id (default: selector.model in config.json, then Pi's default model)"), Options.optional),
    select: Options.text("select").pipe(Options.withDescription("Skip the model: render exactly these files"), Options.repeated),
    query: Args.text({ name: "QUERY" }).pipe(Args.withDescription("The message to recall memories for, as a user would type it"))
  },
  ({ cwd, json, memoryDir, model, select, query }) =>
    orFail(
      Effect.gen(function* () {
        const config = yield* ConfigService
        const dir = yield* memoryDirOf(cwd, memoryDir)
        const modelFlag = Option.getOrUndefined(model)
        const { config: cfg } = yield* config.load
        const request = {
          memoryDir: dir,
          query,
          state: emptyRecallState,
          modelRef: modelFlag ?? cfg.selector.model,
          sessionId: `pm-cli-${sha256Hex24(dir)}`,
          nowMs: Date.now(),
          ...(select.length > 0 ? { select } : {})
        }
        if (select.length === 0 && !passesWhitespaceThreshold(query)) {
          // The selector never runs for such text; say so rather than load a model for nothing.
          yield* Effect.sync(() => process.stderr.write("pm: note: the selector runs only for text with a space inside it; nothing to recall\n"))
          const none = { selected: [], injection: "", budgetUsed: 0 }
          return yield* json ? printJson(none) : printLine("(nothing to inject)")
        }
        if (select.length > 0) {
          const known = new Set((yield* (yield* MemoryStore).scanTopics(dir)).topics.map((t) => t.filename))
          const unknown = select.filter((f) => !known.has(f))
          if (unknown.length > 0) return yield* fail(`not a topic in ${dir}: ${unknown.join(", ")}`)
        }
        // pi's model runtime is loaded only when the selector is really asked (never for --select). A model that
        // cannot be resolved is an error of the command (exit 2, D9), not a finding: it is checked before recall,
        // whose selector would only turn it into a warning (the right thing inside Pi, not here).
        if (select.length === 0) yield* (yield* ModelRegistry).resolve(request.modelRef)
        const outcome = yield* (yield* Recall).recall(request)
        for (const w of outcome.warnings) yield* Effect.sync(() => process.stderr.write(`pm: warning: ${w}\n`))
        if (outcome.warnings.length > 0) yield* setExit(EXIT_PROBLEMS)
        const out = { selected: outcome.selected, injection: outcome.injection, budgetUsed: outcome.budgetUsed }
        if (json) return yield* printJson(out)
        yield* printLine(out.injection === "" ? "(nothing to inject)" : out.injection)
        yield* printLine()
        yield* printLine(`Selected: ${out.selected.join(", ") || "none"}; budget used: ${out.budgetUsed} units`)
      })
    )
).pipe(Command.withDescription("Pick the memories relevant to QUERY and show what would be injected"))

export const bashCheckCommand = Command.make(
  "bash-check",
  { ...common, memoryDir: memoryDirOption, command: Args.text({ name: "COMMAND" }).pipe(
    Args.withDescription("A shell command to classify; without it, JSON Lines on stdin"),
    Args.optional
  ) },
  ({ cwd, json, memoryDir, command }) =>
    orFail(
      Effect.gen(function* () {
        const dir = yield* memoryDirOf(cwd, memoryDir)
        // The guard's module (and the bash parser it loads) is imported only for this command.
        const { bashCheck } = yield* Effect.promise(() => import("./bashCheck.ts"))
        const code = yield* bashCheck({ cwd, json, memoryDir: dir, command: Option.getOrUndefined(command), stdin: process.stdin })
        yield* setExit(code)
      })
    )
).pipe(
  Command.withDescription(
    "Classify a background-agent shell command: read-only, delete or rejected (exit 1 when rejected); without COMMAND, JSON Lines on stdin"
  )
)
