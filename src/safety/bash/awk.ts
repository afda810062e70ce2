/**
 * awk: the program text is tokenised just far enough to find what can write or run something: `system`, any
 * single `|` (output to a command, `cmd | getline`, gawk's `|&` coprocesses and /inet sockets), `>`/`>>` after
 * `print`/`printf` (output to a file), `@` (gawk's indirect calls, `@load`, `@include`), and what chooses files at
 * run time (`getline`, `ARGV`, `ARGC`; gawk opens `/inet/...` names as network sockets).
 *
 * Strings, regex literals and comments are skipped. Where a `/` could start either a regex or a division, it is read
 * as a division, so a regex's text is checked as code rather than code being skipped as a regex.
 */
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

const isIdentStart = (c: string): boolean => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_"
const isIdent = (c: string | undefined): boolean => c !== undefined && (isIdentStart(c) || (c >= "0" && c <= "9"))

/** Keywords after which an expression (and so a regex literal) may start. */
const EXPRESSION_STARTERS = new Set(["print", "printf", "return", "in", "do", "else", "case"])

/**
 * Words that are rejected wherever they appear in the program text, inside strings, regexes and comments too: no
 * lexing decides whether they count, so a lexer that reads a `/` or a `#` differently from awk cannot hide them.
 */
const FORBIDDEN_ANYWHERE: ReadonlyArray<readonly [string, string]> = [
  ["system", "calls `system`, which runs a shell command"],
  ["getline", "uses `getline`, which reads a file or command chosen at run time; pass the files as operands"],
  ["ARGV", "uses `ARGV`, which can change the files awk opens at run time"],
  ["ARGC", "uses `ARGC`, which can change the files awk opens at run time"],
  ["ENVIRON", "reads `ENVIRON` (the environment, where secrets live)"],
  ["PROCINFO", "uses gawk's `PROCINFO`, which controls sockets, coprocesses and input handling"],
  ["inet", "names `/inet`, which gawk opens as a network socket"],
  ["@", "uses `@` (an indirect function call, @load or @include)"]
]

/**
 * The lexing-free part of the check: forbidden words anywhere, any single `|` (only `||` is allowed, read greedily as
 * awk's lexer does), and any `>` after the first `print`/`printf` in the text (output redirection is only possible
 * after one; a comparison before it, as in `$3 > 100 { print }`, stays allowed).
 */
const awkTextProblem = (program: string): string | undefined => {
  for (const [word, why] of FORBIDDEN_ANYWHERE) {
    if (program.includes(word)) return `the awk program ${why}`
  }
  for (let i = program.indexOf("|"); i >= 0; i = program.indexOf("|", i + 1)) {
    if (program[i + 1] === "|") {
      i++
      continue
    }
    return "the awk program uses `|`, which pipes output to a command or reads from one (use grep -E for alternation)"
  }
  const print = program.indexOf("print")
  if (print >= 0 && program.indexOf(">", print) >= 0) {
    return "the awk program has a `>` after `print`, which can redirect output into a file; compare before the action (`$3 > 100 { print }`) or filter with grep"
  }
  return undefined
}

const AMBIGUOUS = Symbol("ambiguous")

/** awk's keywords and `length` (callable without parentheses): after them a `/` may start a regex or divide. */
const AWK_KEYWORDS = new Set([
  "BEGIN", "END", "BEGINFILE", "ENDFILE", "function", "func", "if", "else", "while", "for", "do", "break", "continue",
  "next", "nextfile", "exit", "return", "delete", "in", "getline", "print", "printf", "switch", "case", "default", "length"
])

/**
 * The precise reading, used only when it cannot disagree with awk about where strings, regexes and comments are: every
 * `/` outside a string must stand where awk surely starts a regex (at the start, after `{ } ; ( , ! ~ && ||` or a
 * line break outside parentheses) or surely divides (after a number, a variable, a string or `]`), and no regex may
 * hold `[` (dialects disagree on whether `/` ends a regex inside a bracket expression). Anything else is AMBIGUOUS,
 * and the blunt raw-text rules apply. Within it, `|` and `>` inside strings, regexes and comments are text; outside,
 * a single `|` is a pipe and a `>` at the level of a print statement (not inside its parentheses) a redirection.
 */
const preciseProblem = (program: string): string | undefined | typeof AMBIGUOUS => {
  const n = program.length
  let depth = 0
  let printDepth = -1
  /** What came last: "start" (a regex may start), "operand" (a `/` divides), "other" (unsure). */
  let last: "start" | "operand" | "other" = "start"
  let prevToken = ""
  for (let i = 0; i < n; i++) {
    const c = program[i]!
    if (c === " " || c === "\t" || c === "\r") continue
    if (c === "\\" && program[i + 1] === "\n") {
      i++
      continue
    }
    if (c === "\n") {
      if (prevToken !== "," && prevToken !== "&&" && prevToken !== "||" && prevToken !== "{") printDepth = -1
      if (depth === 0) last = "start"
      else last = "other"
      prevToken = "\n"
      continue
    }
    if (c === "#") {
      while (i + 1 < n && program[i + 1] !== "\n") i++
      continue
    }
    if (c === '"') {
      let j = i + 1
      for (; j < n; j++) {
        if (program[j] === "\\") j++
        else if (program[j] === '"' || program[j] === "\n") break
      }
      if (j >= n || program[j] === "\n") return "the awk program has an unterminated string"
      i = j
      last = "operand"
      prevToken = '"'
      continue
    }
    if (c === "/") {
      if (last === "operand") {
        last = "other"
        prevToken = "/"
        continue
      }
      if (last !== "start") return AMBIGUOUS
      let j = i + 1
      for (; j < n; j++) {
        const d = program[j]
        if (d === "\\") j++
        else if (d === "[") return AMBIGUOUS
        else if (d === "\n") return "the awk program has an unterminated regular expression"
        else if (d === "/") break
      }
      if (j >= n) return "the awk program has an unterminated regular expression"
      i = j
      last = "operand"
      prevToken = "/re/"
      continue
    }
    if (isIdentStart(c)) {
      let j = i + 1
      while (isIdent(program[j])) j++
      const word = program.slice(i, j)
      i = j - 1
      prevToken = word
      if (word === "print" || word === "printf") printDepth = depth
      last = AWK_KEYWORDS.has(word) ? "other" : "operand"
      continue
    }
    if (c >= "0" && c <= "9") {
      while (i + 1 < n && (isIdent(program[i + 1]) || program[i + 1] === ".")) i++
      last = "operand"
      prevToken = "0"
      continue
    }
    prevToken = c
    switch (c) {
      case "|":
        if (program[i + 1] === "|") {
          i++
          prevToken = "||"
          last = "start"
          continue
        }
        return "the awk program uses `|` outside a string, which pipes output to a command or reads from one"
      case ">":
        if (printDepth >= 0 && depth === printDepth) {
          return "the awk program redirects print output with `>`, which writes a file (compare inside parentheses: `print ($1 > 2)`)"
        }
        if (program[i + 1] === "=") i++
        last = "other"
        continue
      case "&":
        if (program[i + 1] === "&") {
          i++
          prevToken = "&&"
          last = "start"
          continue
        }
        last = "other"
        continue
      case ";":
      case "{":
      case "}":
        printDepth = -1
        last = "start"
        continue
      case "(":
        depth++
        last = "start"
        continue
      case ")":
        depth--
        if (depth < printDepth) printDepth = -1
        last = "other"
        continue
      case ",":
      case "!":
      case "~":
        last = "start"
        continue
      case "]":
        last = "operand"
        continue
      case "$":
        last = "other"
        continue
      default:
        last = "other"
    }
  }
  return undefined
}

/** Returns a reason when the program can write or execute, undefined when it is read-only. */
export const awkProgramProblem = (program: string): string | undefined => {
  for (const [word, why] of FORBIDDEN_ANYWHERE) {
    if (program.includes(word)) return `the awk program ${why}`
  }
  const precise = preciseProblem(program)
  if (precise !== AMBIGUOUS) return precise
  const text = awkTextProblem(program)
  if (text !== undefined) return text
  let depth = 0
  /** Paren depth at which the current print/printf statement started, or -1. */
  let printDepth = -1
  let prevOperand = false
  /** Last significant token, to tell a continuation newline (after `,` `&&` `||`) from a statement end. */
  let last = ""
  const n = program.length
  for (let i = 0; i < n; i++) {
    const c = program[i]!
    if (c === " " || c === "\t" || c === "\r") continue
    if (c === "\\" && program[i + 1] === "\n") {
      i++
      continue
    }
    if (c === "\n") {
      if (last !== "," && last !== "&&" && last !== "||") printDepth = -1
      prevOperand = false
      continue
    }
    if (c === "#") {
      while (i + 1 < n && program[i + 1] !== "\n") i++
      continue
    }
    if (c === '"') {
      let j = i + 1
      for (; j < n; j++) {
        if (program[j] === "\\") j++
        else if (program[j] === '"') break
      }
      if (j >= n) return "the awk program has an unterminated string"
      i = j
      prevOperand = true
      last = '"'
      continue
    }
    if (c === "/" && !prevOperand) {
      let j = i + 1
      for (; j < n; j++) {
        const d = program[j]
        if (d === "\\") j++
        else if (d === "\n") return "the awk program has an unterminated regular expression"
        else if (d === "/") break
      }
      if (j >= n) return "the awk program has an unterminated regular expression"
      i = j
      prevOperand = true
      last = "/re/"
      continue
    }
    if (isIdentStart(c)) {
      let j = i + 1
      while (isIdent(program[j])) j++
      const word = program.slice(i, j)
      i = j - 1
      last = word
      if (word === "system") return "the awk program calls `system`, which runs a shell command"
      // What awk opens at run time is out of static sight: gawk reads `/inet/...` names as network sockets.
      if (word === "getline") return "the awk program uses `getline`, which reads a file or command chosen at run time; pass the files as operands"
      if (word === "ARGV" || word === "ARGC") return `the awk program uses \`${word}\`, which can change the files awk opens at run time`
      if (word === "print" || word === "printf") {
        printDepth = depth
        prevOperand = false
        continue
      }
      prevOperand = !EXPRESSION_STARTERS.has(word)
      continue
    }
    if (c >= "0" && c <= "9") {
      while (i + 1 < n && (isIdent(program[i + 1]) || program[i + 1] === ".")) i++
      prevOperand = true
      last = "0"
      continue
    }
    switch (c) {
      case "@":
        return "the awk program uses `@` (an indirect function call, @load or @include)"
      case "|":
        if (program[i + 1] === "|") {
          i++
          last = "||"
          prevOperand = false
          continue
        }
        return "the awk program uses `|`, which pipes output to a command or reads from one (use grep -E for alternation outside /regex/)"
      case ">":
        if (printDepth >= 0 && depth === printDepth) {
          return "the awk program redirects print output with `>`, which writes a file"
        }
        if (program[i + 1] === "=" || program[i + 1] === ">") i++
        break
      case ";":
      case "{":
      case "}":
        printDepth = -1
        break
      case "(":
        depth++
        break
      case ")":
        depth--
        if (depth < printDepth) printDepth = -1
        prevOperand = true
        last = ")"
        continue
      case "]":
        prevOperand = true
        last = "]"
        continue
      case "&":
        if (program[i + 1] === "&") {
          i++
          last = "&&"
          prevOperand = false
          continue
        }
        break
      case "+":
      case "-":
        if (program[i + 1] === c) {
          // ++ / -- : could end an operand (x++) or start one (++x). Reading it as an operand end keeps a following
          // `/` a division, the safe reading.
          i++
          prevOperand = true
          last = c + c
          continue
        }
        break
      default:
        if (c.charCodeAt(0) > 127) {
          // Not awk syntax outside strings: awk would refuse the program. Keep the conservative reading.
          prevOperand = true
          last = c
          continue
        }
    }
    prevOperand = false
    last = c
  }
  return undefined
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
