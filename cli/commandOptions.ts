/**
 * The options and arguments of every `pm` subcommand, and the type a handler receives them as (`Parsed`). Both the
 * command line (cli/commandLine.ts) and the handlers it loads import them from here, so no handler imports the
 * command line back. Declarations only: nothing here parses, runs a handler or makes a service.
 */
import * as Args from "@effect/cli/Args"
import type * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"

/** The parsed options of a subcommand, as its handler receives them. */
export type Parsed<C extends Command.Command.Config> = Command.Command.ParseConfig<C>

const cwdOption = Options.directory("cwd").pipe(
  Options.withDescription("Project directory (default: the current directory)"),
  Options.withDefault(".")
)
const jsonOption = Options.boolean("json").pipe(Options.withDescription("Machine-readable output on stdout"))
/** `--cwd` and `--json`, which every subcommand takes. */
export const commonOptions = { cwd: cwdOption, json: jsonOption }
/** For the inspecting commands: the directory must exist (checked while parsing). */
const memoryDirOption = Options.directory("memory-dir").pipe(
  Options.withDescription("Read this memory directory instead of the project's"),
  Options.optional
)
/** For list, show and search: the browse service reports a missing directory itself. */
const browseMemoryDirOption = Options.text("memory-dir").pipe(
  Options.withDescription("Use this memory directory instead of the project's (it must exist)"),
  Options.optional
)

/** Repeated arguments that may be absent (`Args.repeated`), which help shows in brackets. */
export const OPTIONAL_REPEATED_ARGS: ReadonlySet<string> = new Set(["FILE"])

export const scanOptions = { ...commonOptions, memoryDir: memoryDirOption }
export const lintOptions = {
  ...commonOptions,
  memoryDir: memoryDirOption,
  files: Args.text({ name: "FILE" }).pipe(
    Args.withDescription("Files to check (from the current directory, else the memory directory); default: all topics and MEMORY.md"),
    Args.repeated
  )
}
export const recallOptions = {
  ...commonOptions,
  memoryDir: memoryDirOption,
  model: Options.text("model").pipe(
    Options.withDescription("Selector model as provider/id (default: selector.model in config.json, then Pi's default model)"),
    Options.optional
  ),
  select: Options.text("select").pipe(Options.withDescription("Skip the model: render exactly these files"), Options.repeated),
  query: Args.text({ name: "QUERY" }).pipe(Args.withDescription("The message to recall memories for, as a user would type it"))
}
export const bashCheckOptions = {
  ...commonOptions,
  memoryDir: memoryDirOption,
  command: Args.text({ name: "COMMAND" }).pipe(
    Args.withDescription("A shell command to classify; without it, JSON Lines on stdin"),
    Args.optional
  )
}
/** For the commands that read or change the project's memory state (project, status, doctor, log, undo, forget). */
const stateMemoryDirOption = Options.directory("memory-dir").pipe(
  Options.withDescription("Use this memory directory (it must exist) instead of the project's"),
  Options.optional
)
export const projectOptions = { ...commonOptions, memoryDir: stateMemoryDirOption }
export const statusOptions = { ...commonOptions, memoryDir: stateMemoryDirOption }
export const logOptions = {
  ...commonOptions,
  memoryDir: stateMemoryDirOption,
  limit: Options.integer("limit").pipe(Options.withDescription("Show at most this many tasks (newest first)"), Options.optional)
}
/** How long forget and undo wait for the background locks (a live holder's; a dead holder's is taken at once). */
const waitOption = Options.integer("wait").pipe(
  Options.withDescription("Seconds to wait for a background task that holds memory's locks (default 120); progress goes to stderr"),
  Options.optional
)
export const undoOptions = {
  ...commonOptions,
  memoryDir: stateMemoryDirOption,
  wait: waitOption,
  task: Args.text({ name: "task" }).pipe(Args.withDescription("The task to undo (default: the newest not yet undone)"), Args.optional),
  to: Options.text("to").pipe(
    Options.withDescription("Write the task's previous bytes of each file under this folder instead of changing memory"),
    Options.optional
  )
}
export const syncOptions = {
  ...commonOptions,
  wait: waitOption,
  name: Options.text("name").pipe(
    Options.withDescription("With init: the project's name in the remote, the same on every machine (default: the repository's origin remote)"),
    Options.optional
  ),
  action: Args.choice([["init", "init"], ["status", "status"]] as const, { name: "ACTION" }).pipe(
    Args.withDescription("init REMOTE: turn sync on with this git remote; status: what the last sync did and what waits; none: sync now"),
    Args.optional
  ),
  remote: Args.text({ name: "REMOTE" }).pipe(Args.withDescription("With init: any git remote (a bare repository's path, an ssh or https URL)"), Args.optional)
}
export const listOptions = {
  ...commonOptions,
  memoryDir: browseMemoryDirOption,
  limit: Options.integer("limit").pipe(
    Options.withDescription("Show at most this many topics, newest first (default 200; 0 shows every one)"),
    Options.withDefault(200)
  ),
  offset: Options.integer("offset").pipe(Options.withDescription("Skip this many of the newest topics first (default 0)"), Options.withDefault(0))
}
export const showOptions = {
  ...commonOptions,
  memoryDir: browseMemoryDirOption,
  name: Args.text({ name: "NAME" }).pipe(Args.withDescription("A topic: its file name with or without .md, or the name in its frontmatter"))
}
export const searchOptions = {
  ...commonOptions,
  memoryDir: browseMemoryDirOption,
  // Several words need no quotes: `pm search pnpm migrate` looks for both.
  query: Args.text({ name: "WORDS" }).pipe(Args.withDescription("Words to look for in topic names, descriptions and bodies"), Args.atLeast(1))
}
export const forgetOptions = {
  ...commonOptions,
  memoryDir: stateMemoryDirOption,
  wait: waitOption,
  names: Args.text({ name: "NAME" }).pipe(
    Args.withDescription("Topics to delete: file names with or without .md, or frontmatter names"),
    Args.atLeast(1)
  )
}

export const switchOptions = {
  ...commonOptions,
  project: Options.boolean("project").pipe(Options.withDescription("Only for this project (the one --cwd is in), in config.json's projects")),
  part: Args.choice([["memory", "memory"], ["extraction", "extraction"], ["dream", "dream"], ["recall", "recall"], ["history", "history"]] as const, { name: "PART" }).pipe(
    Args.withDescription("extraction, dream or recall: switch only that part (default: all of memory); history: the memory's history in git (off unless turned on)"),
    Args.optional
  )
}
export const rememberOptions = {
  ...commonOptions,
  wait: waitOption,
  type: Options.choice("type", ["user", "feedback", "project", "reference"] as const).pipe(
    Options.withDescription("The memory's type (default: project)"),
    Options.withDefault("project" as const)
  ),
  allowRisky: Options.boolean("allow-risky").pipe(
    Options.withDescription("Save it even though it reads as an instruction to do something risky (curl | sh, --no-verify, force pushes, no TLS checks, skipped tests, sending data out)")
  ),
  text: Args.text({ name: "TEXT" }).pipe(Args.withDescription("What to remember, as one line or several words"), Args.atLeast(1))
}
export const reviewOptions = {
  ...commonOptions,
  memoryDir: stateMemoryDirOption,
  wait: waitOption,
  action: Args.choice([["approve", "approve"], ["drop", "drop"]] as const, { name: "ACTION" }).pipe(
    Args.withDescription("approve ID saves a held write as memory (pm undo takes it back); drop ID discards it; without one, list them"),
    Args.optional
  ),
  id: Args.text({ name: "ID" }).pipe(Args.withDescription("The held write's id, as the list shows it"), Args.optional)
}
export const contextOptions = { ...commonOptions }
export const extractOptions = {
  ...commonOptions,
  wait: Options.integer("wait").pipe(
    Options.withDescription("Seconds to wait while another process runs the queue (default 120); progress goes to stderr"),
    Options.optional
  ),
  worker: Options.boolean("worker").pipe(
    Options.withDescription("Run as the background worker a pi -p run starts: leave at once when another process runs the queue, else run it again while jobs queued meanwhile wait (at most 30 min)")
  )
}
const evalModelOption = Options.text("model").pipe(
  Options.withDescription("The model as provider/id (default: selector.model for recall, extractor.model for extraction, then the model Pi starts with)"),
  Options.optional
)
/** `pm eval` and `pm eval extract`: the shipped set against a model. */
export const evalOptions = { ...commonOptions, model: evalModelOption }
/** `pm eval recall`: the shipped folders, or a set of one's own. */
export const evalRecallOptions = {
  ...evalOptions,
  set: Options.directory("set").pipe(
    Options.withDescription("Run this set instead of the shipped one: DIR/memory/ (a memory folder) and DIR/prompts.jsonl"),
    Options.optional
  )
}
