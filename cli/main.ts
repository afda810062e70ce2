/** `pm`: the command line over the same layers as the Pi extension. */
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { coreLayer } from "../layers/App.ts"
import { bashCheckCommand, lintCommand, projectCommand, recallCommand, scanCommand } from "./commands.ts"
import { doctorCommand, statusCommand } from "./status.ts"
import { EXIT_ERROR, printError } from "./output.ts"

// A reader that stops early (`pm scan | head`) is not an error: stop quietly instead of dying on EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(typeof process.exitCode === "number" ? process.exitCode : 0)
    throw error
  })
}

const pm = Command.make("pm").pipe(
  Command.withDescription("Pi Project Memory: inspect and check a project's memory"),
  Command.withSubcommands([projectCommand, scanCommand, lintCommand, recallCommand, bashCheckCommand, statusCommand, doctorCommand])
)

const cli = Command.run(pm, { name: "pm", version: "0.1.0" })

const layer = Layer.mergeAll(coreLayer(), NodeContext.layer, CliConfig.layer({ showBuiltIns: false }))

/** Help and usage errors are styled for a terminal; piped, or with NO_COLOR set, they are plain text. */
const plain = !process.stdout.isTTY || (process.env["NO_COLOR"] ?? "") !== ""
const ANSI = /\u001b\[[0-9;]*m/g
const strip = (args: ReadonlyArray<unknown>) => args.map((a) => (typeof a === "string" ? a.replace(ANSI, "") : a))
const plainConsoleOf = (c: Console.Console): Console.Console => ({
  ...c,
  unsafe: { ...c.unsafe, log: (...args) => c.unsafe.log(...strip(args)), error: (...args) => c.unsafe.error(...strip(args)) },
  log: (...args) => c.log(...strip(args)),
  error: (...args) => c.error(...strip(args))
})

const run = cli(process.argv).pipe(Effect.provide(layer))
const program = plain ? Effect.flatMap(Effect.console, (c) => Effect.withConsole(run, plainConsoleOf(c))) : run

Effect.runPromiseExit(program).then((exit) => {
  if (Exit.isFailure(exit)) {
    const error = Cause.failureOption(exit.cause)
    if (error._tag === "Some" && ValidationError.isValidationError(error.value)) {
      // @effect/cli already printed the usage problem; help requested is not an error.
      if (error.value._tag !== "HelpRequested") process.exitCode = EXIT_ERROR
    } else {
      Effect.runSync(printError(Cause.pretty(exit.cause)))
      process.exitCode = EXIT_ERROR
    }
  }
})
