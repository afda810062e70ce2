/**
 * awk: the command's options (AWK_SPEC: no program files, includes, extensions, dumps or profiles, nothing that writes
 * a file) and operands (none gawk could open as a network socket), then the program text itself, judged by
 * awkProgram.ts for anything that can write or run something.
 */
import { awkProgramProblem } from "./awkProgram.ts"
import { isRejected, scanOptions, type OptionSpec } from "./options.ts"
import { show, type Word } from "./words.ts"

const WRITES_FILE = "writes a file"

export const AWK_SPEC: OptionSpec = {
  strict: true,
  stopAtOperand: true,
  shortFlags: "bcChkMNOPrsStVgn",
  shortArg: "Fv",
  shortOptArg: "L",
  badShort: {
    f: "reads the program from a file the guard cannot check",
    e: "adds program text (--source) the guard does not check",
    E: "reads the program from a file the guard cannot check",
    i: "includes an awk source file the guard cannot check",
    l: "loads a compiled extension (native code)",
    o: `pretty-prints the program into a file (${WRITES_FILE})`,
    p: `writes a profile file`,
    d: `dumps variables into a file`,
    D: "starts the interactive debugger",
    W: "passes implementation options (-W exec, -W dump ...) the guard cannot check"
  },
  long: {
    "field-separator": "required",
    assign: "required",
    "characters-as-bytes": "none",
    traditional: "none",
    copyright: "none",
    "gen-pot": "none",
    help: "none",
    csv: "none",
    lint: "optional",
    "lint-old": "none",
    bignum: "none",
    "use-lc-numeric": "none",
    "non-decimal-data": "none",
    optimize: "none",
    "no-optimize": "none",
    posix: "none",
    "re-interval": "none",
    sandbox: "none",
    trace: "none",
    version: "none"
  },
  badLong: {
    file: "reads the program from a file the guard cannot check",
    source: "adds program text the guard does not check",
    exec: "reads the program from a file the guard cannot check",
    include: "includes an awk source file the guard cannot check",
    load: "loads a compiled extension (native code)",
    "pretty-print": `pretty-prints the program into a file (${WRITES_FILE})`,
    profile: "writes a profile file",
    "dump-variables": "dumps variables into a file",
    debug: "starts the interactive debugger"
  }
}

export const checkAwk = (cmd: string, args: ReadonlyArray<Word>): string | undefined => {
  const parsed = scanOptions(cmd, args, AWK_SPEC)
  if (isRejected(parsed)) return parsed.reject
  const program = parsed.operands[0]
  if (program === undefined) return `\`${cmd}\` needs a program text`
  // gawk opens `/inet/...` operands as sockets; a wildcard that matches nothing stays literal (`/ine[t]/tcp/...`).
  const socket = parsed.operands.slice(1).find((w) => w.value.includes("inet") || (w.glob && w.value.startsWith("/")))
  if (socket !== undefined) return `\`${cmd}\`: ${show(socket)} could name a network socket to gawk (/inet/...)`
  const problem = awkProgramProblem(program.value)
  return problem === undefined ? undefined : `\`${cmd}\`: ${problem} (program ${show(program)})`
}
