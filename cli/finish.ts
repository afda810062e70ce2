/**
 * How a `pm` run that failed ends, whichever way it ran (cli/general.ts, cli/fastPath.ts): a layer a subcommand
 * needs that could not be built (a tagged error, the bash parser's) is one `pm:` line; anything else is Effect's
 * account of the cause. Both exit 2. A run that succeeded keeps the exit code its handler set.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { EXIT_ERROR, printError } from "./output.ts"

const isTaggedError = (u: unknown): u is { readonly _tag: string; readonly message: string } =>
  u instanceof Error && typeof (u as { _tag?: unknown })._tag === "string"

export const finish = <A, E>(exit: Exit.Exit<A, E>): void => {
  if (Exit.isSuccess(exit)) return
  const error = Cause.failureOption(exit.cause)
  Effect.runSync(printError(error._tag === "Some" && isTaggedError(error.value) ? error.value.message : Cause.pretty(exit.cause)))
  process.exitCode = EXIT_ERROR
}
