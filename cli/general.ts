/**
 * `pm` through the command line library: the command tree of cli/App.ts run by @effect/cli over its graph, for every
 * command line the fast path (cli/fastPath.ts) leaves to it. Imported by cli/main.ts, and runs on import.
 */
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { logRecordsLayer } from "../layers/app/logRecords.ts"
import { cliContext, pmCommand } from "./App.ts"
import { OPTIONAL_REPEATED_ARGS } from "./commandOptions.ts"
import { finish } from "./finish.ts"
import { EXIT_ERROR, fail } from "./output.ts"
import { strayOption, strayOptionMessage } from "./strayOption.ts"

const cli = Command.run(pmCommand, { name: "pm", version: "0.1.0" })

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

/**
 * @effect/cli's own wording, made pm's: an unknown flag is "pm: Unknown option --bogus", other usage errors start with
 * `pm:`, and `--version` prints one line (the library adds a blank one).
 */
const pmWording = (args: ReadonlyArray<unknown>): ReadonlyArray<unknown> =>
  args.map((a) => {
    if (typeof a !== "string") return a
    if (/^\d+\.\d+\.\d+\n+$/.test(a)) return a.replace(/\n+$/, "")
    const unknown = /Received unknown argument: '(-[^']*)'/.exec(a.replace(ANSI, ""))
    if (unknown !== null) return `pm: Unknown option ${unknown[1]}`
    if (a.includes("USAGE")) return helpText(a)
    const path = /^\s*(Expected path '[^']*' to [^\n]*|Path '[^']*' must [^\n]*)\n*$/.exec(a.replace(ANSI, ""))
    if (path !== null) return `pm: ${path[1]}`
    return a
  })
/** Help: usage lines start with `pm`, and the library's generic type lines ("A directory.") give way to ours. */
const GENERIC = /^(?:\u001b\[[0-9;]*m)*\s*(?:A directory\.|A true or false value\.|A user-defined piece of text\.|A file or directory\.|An integer\.)(?:\u001b\[[0-9;]*m)*\n\n/gm
/** A repeated argument that may be absent ("zero or more times") is optional: the usage line shows it in brackets. */
const optionalRepeated = (text: string): string => {
  const plain = text.replace(/\u001b\[[0-9;]*m/g, "")
  if (!/zero or more times/.test(plain)) return text
  return text
    .replace(/^((?:\u001b\[[0-9;]*m)*\$ [^\n]*?)(<[A-Za-z_-]+>\.\.\.)/gm, "$1[$2]")
    .replace(/^((?:\u001b\[[0-9;]*m)*\$ [^\n]*? )(--[a-z-]+ [a-z]+\.\.\.)/gm, "$1[$2]")
}
/**
 * The subcommand list of `pm --help` has no "zero or more times" to go by: a repeated option is always optional
 * (@effect/cli's `Options.repeated`), and so are the repeated arguments `OPTIONAL_REPEATED_ARGS` names.
 */
const optionalInCommandList = (text: string): string =>
  text.replace(/^(\s*- [a-z-]+ )([^\n]*)$/gm, (_line, head: string, usage: string) =>
    head + usage
      .replace(/(^|\s)(--[a-z-]+ [a-z]+\.\.\.)(?=\s|$)/g, "$1[$2]")
      .replace(/(^|\s)<([A-Za-z_-]+)>\.\.\.(?=\s|$)/g, (m, pre: string, name: string) => (OPTIONAL_REPEATED_ARGS.has(name) ? `${pre}[<${name}>...]` : m)))
/** The subcommand list again in two aligned columns, usage and description, after the brackets were added. */
const realigned = (text: string): string => {
  const line = /^(\s*- [a-z-]+ [^\n]*?) {2,}(\S[^\n]*)$/gm
  const width = Math.max(0, ...[...text.matchAll(line)].map((m) => m[1]!.replace(ANSI, "").length))
  return text.replace(line, (_m, usage: string, description: string) => `${usage}${" ".repeat(width + 2 - usage.replace(ANSI, "").length)}${description}`)
}
const helpText = (text: string): string =>
  realigned(optionalInCommandList(optionalRepeated(text.replace(GENERIC, "").replace(/^((?:\u001b\[[0-9;]*m)*\$ )(?!pm\b)/gm, "$1pm "))))

/**
 * A usage error on stderr is one line starting `pm:`, whatever its kind: a word the command does not take says how
 * to pass several words, an unknown subcommand is named.
 */
/** The options of any subcommand that take a value (the word after them is not a subcommand). */
/** The subcommands that have subcommands of their own, and theirs. */
const NESTED: Readonly<Record<string, ReadonlyArray<string>>> = { eval: ["recall", "extract"] }
const TAKES_VALUE = new Set(["--cwd", "--memory-dir", "--model", "--select", "--limit", "--wait", "--to", "--set"])
const errorWording = (args: ReadonlyArray<unknown>): ReadonlyArray<unknown> =>
  pmWording(args).map((a) => {
    if (typeof a !== "string") return a
    const plainText = a.replace(ANSI, "").trim()
    if (plainText === "" || plainText.startsWith("pm:")) return a
    const extra = /^Received unknown argument: '([^']*)'$/.exec(plainText)
    if (extra !== null) {
      return `pm: unexpected argument '${extra[1]}': this command takes one value there; quote a value of several words ("like this")`
    }
    const sub = /^Invalid subcommand for pm - use one of (.*)$/.exec(plainText)
    if (sub !== null) {
      // The first word that is neither an option nor the value of one.
      const words = process.argv.slice(2)
      const at = words.findIndex((w, i) => !w.startsWith("-") && (i === 0 || !TAKES_VALUE.has(words[i - 1]!)))
      const given = at < 0 ? undefined : words[at]!
      const known = sub[1]!.replace(/'/g, "").split(/,\s*/)
      // A word after a subcommand that has subcommands of its own (`pm eval bogus`): that word is the unknown one.
      const nested = given === undefined ? undefined : NESTED[given]
      const after = words.slice(at + 1)
      const next = after.find((w, i) => !w.startsWith("-") && !(i > 0 && TAKES_VALUE.has(after[i - 1]!)))
      if (nested !== undefined && next !== undefined && !nested.includes(next)) {
        return `pm: unknown subcommand '${next}' of pm ${given}; use one of ${nested.join(", ")} (pm ${given} --help)`
      }
      // A known subcommand after options: the options were given first, where pm takes none.
      if (given !== undefined && known.includes(given)) {
        return `pm: options go after the subcommand: pm ${[given, ...words.slice(0, at), ...words.slice(at + 1)].join(" ")}`
      }
      return `pm: unknown subcommand${given === undefined ? "" : ` '${given}'`}; use one of ${known.join(", ")} (pm --help)`
    }
    return `pm: ${plainText.split("\n")[0]}`
  })

const pmConsoleOf = (c: Console.Console): Console.Console => ({
  ...c,
  unsafe: { ...c.unsafe, log: (...args) => c.unsafe.log(...pmWording(args)), error: (...args) => c.unsafe.error(...errorWording(args)) },
  log: (...args) => c.log(...pmWording(args)),
  error: (...args) => c.error(...errorWording(args))
})

// `pm help [SUBCOMMAND]` is `pm [SUBCOMMAND] --help`.
const argv = process.argv[2] === "help" ? [...process.argv.slice(0, 2), ...process.argv.slice(3, 4), "--help"] : process.argv
// An option a free-text subcommand would take as text is refused before anything runs (cli/strayOption.ts).
const subcommandAt = argv.slice(2).findIndex((w) => !w.startsWith("-"))
const stray = subcommandAt < 0 ? undefined : strayOption(argv[2 + subcommandAt]!, argv.slice(3 + subcommandAt))
// Log records are not for the person at the terminal (layers/app/logRecords.ts).
const run = stray !== undefined
  ? fail(strayOptionMessage(argv[2 + subcommandAt]!, stray))
  : cli(argv).pipe(Effect.provide(cliContext), Effect.provide(logRecordsLayer()))
const program = Effect.flatMap(Effect.console, (c) =>
  Effect.withConsole(run, pmConsoleOf(plain ? plainConsoleOf(c) : c))
)

Effect.runPromiseExit(program).then((exit) => {
  const error = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : undefined
  if (error?._tag === "Some" && ValidationError.isValidationError(error.value)) {
    // @effect/cli already printed the usage problem; help requested is not an error.
    if (error.value._tag !== "HelpRequested") process.exitCode = EXIT_ERROR
  } else finish(exit)
})
