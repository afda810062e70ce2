/**
 * What `pm` accepts: every subcommand's name and help over its options and arguments (cli/commandOptions.ts), and
 * nothing of what they do. Each handler lives in a module imported when its subcommand runs (cli/inspect.ts, recall.ts, status.ts, journal.ts,
 * memoryCommands.ts, review.ts, extract.ts, eval.ts), so parsing a command line, `--help` and `--version` evaluate none of the services, and
 * `pm scan` none of the writer, the recall services or the model runtime.
 */
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import {
  bashCheckOptions,
  contextOptions,
  evalOptions,
  evalRecallOptions,
  extractOptions,
  forgetOptions,
  lintOptions,
  listOptions,
  logOptions,
  projectOptions,
  recallOptions,
  rememberOptions,
  reviewOptions,
  scanOptions,
  searchOptions,
  showOptions,
  statusOptions,
  switchOptions,
  syncOptions,
  undoOptions
} from "./commandOptions.ts"
import { anyCommitted } from "./committedPlaces.ts"

/** Runs `handle` from the module `load` imports; the import happens when the subcommand runs, once per process. */
const handledBy = <M, A, E, R>(load: () => Promise<M>, handle: (module: M) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.promise(load), handle)

/**
 * A command that may commit to the memory history (remember, forget, undo, review approve), then the push of what it
 * committed when sync is on for the project (cli/pushAfter.ts, loaded only then).
 */
const pushingAfter = <A, E, R>(command: Effect.Effect<A, E, R>, json: boolean) =>
  Effect.tap(command, () => (anyCommitted() ? handledBy(() => import("./pushAfter.ts"), (m) => m.pushCommitted(json)) : Effect.void))

const inspect = () => import("./inspect.ts")
const settings = () => import("./settings.ts")
const recall = () => import("./recall.ts")
const status = () => import("./status.ts")
const journal = () => import("./journal.ts")
const browse = () => import("./memoryCommands.ts")
const extract = () => import("./extract.ts")
const evaluate = () => import("./eval.ts")
const review = () => import("./review.ts")
const sync = () => import("./sync.ts")

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
export const undoCommand = Command.make("undo", undoOptions, (o) => pushingAfter(handledBy(journal, (m) => m.undo(o)), o.json)).pipe(
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
export const forgetCommand = Command.make("forget", forgetOptions, (o) => pushingAfter(handledBy(browse, (m) => m.forget(o)), o.json)).pipe(
  Command.withDescription("Delete topics and their MEMORY.md lines (journaled: `pm undo` restores them); exit 1 when a name is refused")
)
export const onCommand = Command.make("on", switchOptions, (o) => handledBy(settings, (m) => m.on(o))).pipe(
  Command.withDescription("Turn memory (or one PART: extraction, dream, recall) on in config.json, for every project or with --project this one")
)
export const offCommand = Command.make("off", switchOptions, (o) => handledBy(settings, (m) => m.off(o))).pipe(
  Command.withDescription("Turn memory (or one PART: extraction, dream, recall) off in config.json, for every project or with --project this one")
)
export const rememberCommand = Command.make("remember", rememberOptions, (o) => pushingAfter(handledBy(settings, (m) => m.remember(o)), o.json)).pipe(
  Command.withDescription("Save TEXT as a new memory topic and index line (checked and journaled: `pm undo` takes it back); exit 1 when refused")
)
export const reviewCommand = Command.make("review", reviewOptions, (o) => pushingAfter(handledBy(review, (m) => m.review(o)), o.json)).pipe(
  Command.withDescription("List the background writes held for review (their words came from outside text), or approve ID or drop ID")
)
export const contextCommand = Command.make("context", contextOptions, (o) => handledBy(settings, (m) => m.context(o))).pipe(
  Command.withDescription("Show what memory adds to a request of this project, with its size in characters and tokens")
)
export const extractCommand = Command.make("extract", extractOptions, (o) => handledBy(extract, (m) => m.extract(o))).pipe(
  Command.withDescription(
    "Run the extractions that ended sessions handed over to this project's queue, oldest first, and wait for them (exit 1 when one fails or stays queued)"
  )
)
const evalRecallCommand = Command.make("recall", evalRecallOptions, (o) => handledBy(evaluate, (m) => m.evalRecall(o))).pipe(
  Command.withDescription("Measure recall: precision and recall at 5, and abstention on prompts that need no memory (the shipped set, or --set DIR)")
)
const evalExtractCommand = Command.make("extract", evalOptions, (o) => handledBy(evaluate, (m) => m.evalExtract(o))).pipe(
  Command.withDescription("Measure extraction: expected memories saved, forbidden saves and planted instructions kept out, on the shipped conversations")
)
export const evalCommand = Command.make("eval", evalOptions, (o) => handledBy(evaluate, (m) => m.evalBoth(o))).pipe(
  Command.withDescription("Measure memory quality against a model Pi knows: recall and extraction on the shipped set, with requests, tokens and cost"),
  Command.withSubcommands([evalRecallCommand, evalExtractCommand])
)
export const syncCommand = Command.make("sync", syncOptions, (o) => handledBy(sync, (m) => m.sync(o))).pipe(
  Command.withDescription("Sync this project's memory with a git remote: `pm sync init REMOTE` turns it on, `pm sync` syncs now, `pm sync status` shows what waits")
)
