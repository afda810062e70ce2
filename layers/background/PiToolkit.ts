/**
 * The parts of the Pi host's own module that the background side calls at run time: the tool definitions the six
 * task tools wrap, the in-memory session manager and codemode factory of task-level codemode, and the converter
 * from session messages to what a provider receives.
 *
 * Contract: these are always the host's copies, handed over by whoever loaded the extension. Pi maps the package's
 * name to its own modules only for the file its loader compiles (the extension's entry); a chunk that imported the
 * name itself would find no package in an install from the registry (the host is a peer dependency) and, in a
 * development checkout, a second Pi in the dev dependencies. So the entry imports the host once and passes it here,
 * and nothing below `extension/` imports Pi at run time.
 */
import type * as PiHost from "@earendil-works/pi-coding-agent"
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

export type PiToolkitShape = Pick<
  typeof PiHost,
  | "createReadToolDefinition"
  | "createFindToolDefinition"
  | "createGrepToolDefinition"
  | "createWriteToolDefinition"
  | "createEditToolDefinition"
  | "createBashToolDefinition"
  | "createLocalBashOperations"
  | "createCodemodeExtension"
  | "SessionManager"
  | "convertToLlm"
>

export class PiToolkit extends Context.Tag("pm/PiToolkit")<PiToolkit, PiToolkitShape>() {
  /** The toolkit over a loaded host module (the entry's import, or a test's). */
  static readonly layer = (host: PiToolkitShape): Layer.Layer<PiToolkit> => Layer.succeed(PiToolkit, host)
}
