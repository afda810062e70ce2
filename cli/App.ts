/**
 * The `pm` graph: the shared core (layers/App.ts), Node's platform context and the CLI settings for every
 * subcommand, plus the layers only some subcommands need, attached to those subcommands alone:
 *
 * - `recall`: Recall and Selector over a ModelRegistry backed by pi's model runtime, loaded on the first model
 *   request (so `--select`, a query the selector would skip and every other subcommand never load it);
 * - `bash-check`: BashGuard, which loads the bash parser.
 */
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { resolve } from "node:path"
import { browseLayer, coreLayer, recallLayer } from "../layers/App.ts"
import type { BashGuard, BashParserLoadError } from "../layers/BashGuard.ts"
import { ConfigService, type ConfigEnvironment } from "../layers/ConfigService.ts"
import { ModelRegistry } from "../layers/ModelRegistry.ts"
import { bashCheckCommand, lintCommand, projectCommand, recallCommand, scanCommand } from "./commands.ts"
import { extensionsFromEnv, loadPiModelBackend } from "./PiModelRuntime.ts"
import { cliPlatform } from "./platform.ts"
import { doctorCommand, statusCommand } from "./status.ts"
import { logCommand, undoCommand } from "./journal.ts"
import { forgetCommand, listCommand, searchCommand, showCommand } from "./memoryCommands.ts"

/** What @effect/cli itself needs to parse, print help and run the wizard: no pm service. */
export const cliLayer = Layer.merge(cliPlatform, CliConfig.layer({ showBuiltIns: false }))

/** pi's model runtime over the agent directory, with the project's settings at `cwd`; loaded on first use. */
export const piModelRegistry = (cwd: string): Layer.Layer<ModelRegistry, never, ConfigService> =>
  ModelRegistry.fromBackendLoader(
    Effect.flatMap(ConfigService, (config) =>
      Effect.flatMap(extensionsFromEnv(), (extensions) =>
        loadPiModelBackend({ agentDir: config.agentDir, cwd: resolve(cwd), extensions })
      )
    )
  )

/** The bash parser and its grammar are loaded only when `pm bash-check` runs. */
const bashGuardOnDemand: Layer.Layer<BashGuard, BashParserLoadError> = Layer.unwrapEffect(
  Effect.promise(() => import("../layers/BashGuard.ts")).pipe(Effect.map((m) => m.BashGuard.layer))
)

/**
 * The command tree. The core services are provided around whichever subcommand runs (a transform of the parent
 * command), so they are built only when a handler runs: `--help`, `--version` and usage errors build none.
 */
export const pmCommand = Command.make("pm").pipe(
  Command.withDescription("Pi Project Memory: inspect and check a project's memory"),
  Command.withSubcommands([
    projectCommand,
    scanCommand,
    lintCommand,
    recallCommand.pipe(Command.provide(({ cwd }) => recallLayer.pipe(Layer.provideMerge(piModelRegistry(cwd))))),
    bashCheckCommand.pipe(Command.provide(bashGuardOnDemand)),
    statusCommand,
    doctorCommand,
    logCommand,
    undoCommand,
    listCommand.pipe(Command.provide(browseLayer)),
    showCommand.pipe(Command.provide(browseLayer)),
    searchCommand.pipe(Command.provide(browseLayer)),
    forgetCommand.pipe(Command.provide(browseLayer))
  ]),
  Command.provide(coreLayer())
)
