/**
 * The `pm` graph: the command line (cli/commandLine.ts) over the layers each subcommand needs.
 *
 * - every subcommand: the shared core (layers/app/Core.ts);
 * - `recall`: Recall and Selector over a ModelRegistry backed by pi's model runtime, whose packages load on the first
 *   model request (so `--select`, a query the selector would skip and every other subcommand never load them);
 * - `bash-check`: BashGuard, which loads the bash parser;
 * - `list`, `show`, `search`, `forget`: MemoryBrowse.
 * - `extract`: the extension's own background graph (layers/app/ExtensionApp.ts) with pm's pieces, built by its
 *   handler (cli/extract.ts) from a dynamic import, so no other subcommand loads the background agents.
 * - `eval`: recall over Pi's model runtime and the extension's background graph over a temporary agent directory,
 *   both built by its handler (cli/eval.ts).
 *
 * Every layer here is imported when its subcommand runs, as the handlers are: parsing, `--help` and `--version`
 * load and build no service.
 */
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Core } from "../layers/app/Core.ts"
import {
  bashCheckCommand,
  contextCommand,
  offCommand,
  onCommand,
  rememberCommand,
  reviewCommand,
  doctorCommand,
  evalCommand,
  extractCommand,
  forgetCommand,
  lintCommand,
  listCommand,
  logCommand,
  projectCommand,
  recallCommand,
  scanCommand,
  searchCommand,
  showCommand,
  statusCommand,
  undoCommand,
  syncCommand
} from "./commandLine.ts"
import { noteCommitted } from "./committedPlaces.ts"
import { cliPlatformContext } from "./platform.ts"

/** What @effect/cli itself needs to parse, print help and run the wizard: no pm service. A context, not a layer. */
export const cliContext = Context.add(cliPlatformContext, CliConfig.CliConfig, CliConfig.make({ showBuiltIns: false }))

/** The layer `pick` takes from the module `load` imports, imported when the layer is built. */
const loaded = <M, A, E, R>(load: () => Promise<M>, pick: (module: M) => Layer.Layer<A, E, R>) =>
  Layer.unwrapEffect(Effect.map(Effect.promise(load), pick))

const graphs = () => import("../layers/app/App.ts")
const browse = loaded(graphs, (m) => m.browseLayer)
/** The bash parser and its grammar are loaded only when `pm bash-check` runs. */
const bashGuard = loaded(() => import("../layers/safety/BashGuard.ts"), (m) => m.BashGuard.layer)
const recallOverPi = (cwd: string) =>
  loaded(
    () => Promise.all([graphs(), import("./PiModelRuntime.ts")]),
    ([g, pi]) => g.recallLayer.pipe(Layer.provideMerge(pi.piModelRegistry(cwd)))
  )

/**
 * Makes the core in the running handler's own fiber, not through a layer (see layers/app/Core.ts). @effect/cli's
 * `transformHandler` keeps the handler's requirements in its type whatever the transform provides; the cast states
 * what this transform does, removing the core's services.
 */
const aroundCore = <Name extends string, R, E, A>(command: Command.Command<Name, R, E, A>) =>
  Command.transformHandler(command, (handler) =>
    Effect.flatMap(Effect.promise(() => import("../layers/app/Core.ts")), (m) => m.withCore(handler, {}, noteCommitted))
  ) as unknown as Command.Command<Name, Exclude<R, Core>, E, A>

/**
 * The command tree. The core is made around whichever subcommand runs (a transform of the parent command), so it
 * is built only when a handler runs: `--help`, `--version` and usage errors build none.
 */
export const pmCommand = Command.make("pm").pipe(
  Command.withDescription("Pi Project Memory: inspect and check a project's memory"),
  Command.withSubcommands([
    projectCommand,
    scanCommand,
    lintCommand,
    recallCommand.pipe(Command.provide(({ cwd }) => recallOverPi(cwd))),
    bashCheckCommand.pipe(Command.provide(bashGuard)),
    statusCommand,
    doctorCommand,
    logCommand,
    undoCommand,
    syncCommand,
    listCommand.pipe(Command.provide(browse)),
    showCommand.pipe(Command.provide(browse)),
    searchCommand.pipe(Command.provide(browse)),
    forgetCommand.pipe(Command.provide(browse)),
    onCommand,
    offCommand,
    rememberCommand.pipe(Command.provide(browse)),
    reviewCommand.pipe(Command.provide(browse)),
    contextCommand,
    extractCommand,
    evalCommand
  ]),
  aroundCore
)
