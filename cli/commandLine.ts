/**
 * What `pm` accepts: every subcommand's name, options, arguments and help, and nothing of what they do. Each
 * handler lives in a module imported when its subcommand runs (cli/inspect.ts, recall.ts, status.ts, journal.ts,
 * memoryCommands.ts), so parsing a command line, `--help` and `--version` evaluate none of the services, and
 * `pm scan` none of the writer, the recall services or the model runtime.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"

/** Runs `handle` from the module `load` imports; the import happens when the subcommand runs, once per process. */
const handledBy = <M, A, E, R>(load: () => Promise<M>, handle: (module: M) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.promise(load), handle)

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
export const listOptions = { ...commonOptions, memoryDir: browseMemoryDirOption }
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
  part: Args.choice([["memory", "memory"], ["extraction", "extraction"], ["dream", "dream"], ["recall", "recall"]] as const, { name: "PART" }).pipe(
    Args.withDescription("extraction, dream or recall: switch only that part (default: all of memory)"),
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
  text: Args.text({ name: "TEXT" }).pipe(Args.withDescription("What to remember, as one line or several words"), Args.atLeast(1))
}
export const contextOptions = { ...commonOptions }

const inspect = () => import("./inspect.ts")
const settings = () => import("./settings.ts")
const recall = () => import("./recall.ts")
const status = () => import("./status.ts")
const journal = () => import("./journal.ts")
const browse = () => import("./memoryCommands.ts")

export const projectCommand = Command.make("project", projectOptions, (o) => handledBy(inspect, (m) => m.project(o))).pipe(
  Command.withDescription("Show where the project's memory lives")
)
export const scanCommand = Command.make("scan", scanOptions, (o) => handledBy(inspect, (m) => m.scan(o))).pipe(
  Command.withDescription("List the project's memory topics, newest first")
)
export const lintCommand = Command.make("lint", lintOptions, (o) => handledBy(inspect, (m) => m.lint(o))).pipe(
  Command.withDescription("Check topic files and the index for format and size problems (exit 1 when any)")
)
export const recallCommand = Command.make("recall", recallOptions, (o) => handledBy(recall, (m) => m.recall(o))).pipe(
  Command.withDescription("Pick the memories relevant to QUERY and show what would be injected")
)
export const bashCheckCommand = Command.make("bash-check", bashCheckOptions, (o) => handledBy(inspect, (m) => m.bashCheck(o))).pipe(
  Command.withDescription(
    "Classify a background-agent shell command: read-only, delete or rejected (exit 1 when rejected); without COMMAND, JSON Lines on stdin"
  )
)
export const statusCommand = Command.make("status", statusOptions, (o) => handledBy(status, (m) => m.status(o))).pipe(
  Command.withDescription("Show the project's memory at a glance: directory, topics, last dream, locks, versions")
)
export const doctorCommand = Command.make("doctor", statusOptions, (o) => handledBy(status, (m) => m.doctor(o))).pipe(
  Command.withDescription("Check configuration, versions, locks, state and memory files; exit 1 when anything needs attention")
)
export const logCommand = Command.make("log", logOptions, (o) => handledBy(journal, (m) => m.log(o))).pipe(
  Command.withDescription("List the changes background tasks and commands made to memory, newest first")
)
export const undoCommand = Command.make("undo", undoOptions, (o) => handledBy(journal, (m) => m.undo(o))).pipe(
  Command.withDescription("Restore the files of the newest task (or TASK) to their exact previous bytes")
)
export const listCommand = Command.make("list", listOptions, (o) => handledBy(browse, (m) => m.list(o))).pipe(
  Command.withDescription("List topics with their type, age, description and whether MEMORY.md links them")
)
export const showCommand = Command.make("show", showOptions, (o) => handledBy(browse, (m) => m.show(o))).pipe(
  Command.withDescription("Print one topic file with its frontmatter, age and staleness")
)
export const searchCommand = Command.make("search", searchOptions, (o) => handledBy(browse, (m) => m.search(o))).pipe(
  Command.withDescription("Search topics by words, best match first, with the line that matched")
)
export const forgetCommand = Command.make("forget", forgetOptions, (o) => handledBy(browse, (m) => m.forget(o))).pipe(
  Command.withDescription("Delete topics and their MEMORY.md lines (journaled: `pm undo` restores them); exit 1 when a name is refused")
)
export const onCommand = Command.make("on", switchOptions, (o) => handledBy(settings, (m) => m.on(o))).pipe(
  Command.withDescription("Turn memory (or one PART: extraction, dream, recall) on in config.json, for every project or with --project this one")
)
export const offCommand = Command.make("off", switchOptions, (o) => handledBy(settings, (m) => m.off(o))).pipe(
  Command.withDescription("Turn memory (or one PART: extraction, dream, recall) off in config.json, for every project or with --project this one")
)
export const rememberCommand = Command.make("remember", rememberOptions, (o) => handledBy(settings, (m) => m.remember(o))).pipe(
  Command.withDescription("Save TEXT as a new memory topic and index line (checked and journaled: `pm undo` takes it back); exit 1 when refused")
)
export const contextCommand = Command.make("context", contextOptions, (o) => handledBy(settings, (m) => m.context(o))).pipe(
  Command.withDescription("Show what memory adds to a request of this project, with its size in characters and tokens")
)
