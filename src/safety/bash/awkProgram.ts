/**
 * Whether an awk program text can write or run something: `system`, any single `|` (output to a command,
 * `cmd | getline`, gawk's `|&` coprocesses and /inet sockets), `>`/`>>` after `print`/`printf` (output to a file), `@`
 * (gawk's indirect calls, `@load`, `@include`), and what chooses files at run time (`getline`, `ARGV`, `ARGC`; gawk
 * opens `/inet/...` names as network sockets). `awkProgramProblem` returns the reason, or undefined for a read-only
 * program; the options and operands of the awk command are checked in awk.ts.
 *
 * Three layers, each only where the one before cannot decide: forbidden words anywhere in the text (no lexing), a
 * precise lexing that reads strings, regexes and comments as awk does where it cannot disagree with awk, and where it
 * could (an AMBIGUOUS `/` or a `[` in a regex), blunt rules on the raw text followed by a blunt lexing. Both lexings
 * are the one lexer below under a different Reading. Where a `/` could start either a regex or a division, the blunt
 * reading takes it as a division, so a regex's text is checked as code rather than code being skipped as a regex.
 */

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
 * The token before a `/`, as the lexer records it: "" at the start, `"` after a string, "/re/" after a regex, "0"
 * after a number, "\n" after a line break, the word after a name, else the operator (`||`, `&&`, `++`, `--`, `>` or
 * one character).
 */
type Token = string

/** How a lexing reads what the two readings may disagree on. */
interface Reading {
  /** A string ends at a line break (awk's rule, so it is unterminated there), or runs on to the next `"`. */
  readonly stringsEndAtLineBreak: boolean
  /** A `[` inside a regex makes the whole reading AMBIGUOUS (dialects disagree on whether `/` ends a regex there). */
  readonly bracketsAmbiguous: boolean
  /** What a `/` after `prev`, at parenthesis depth `depth`, is. */
  readonly slash: (prev: Token, depth: number) => "regex" | "divide" | typeof AMBIGUOUS
}

/** Tokens after which awk surely starts a regex at a `/`. */
const REGEX_AFTER = new Set(["||", "&&", ";", "{", "}", "(", ",", "!", "~"])

/**
 * The precise reading, used only when it cannot disagree with awk about where strings, regexes and comments are: every
 * `/` outside a string must stand where awk surely starts a regex (at the start, after `{ } ; ( , ! ~ && ||` or a
 * line break outside parentheses) or surely divides (after a number, a variable, a string or `]`), and no regex may
 * hold `[`. Anything else is AMBIGUOUS, and the blunt raw-text rules apply.
 */
const PRECISE: Reading = {
  stringsEndAtLineBreak: true,
  bracketsAmbiguous: true,
  slash: (prev, depth) => {
    if (prev === "" || REGEX_AFTER.has(prev)) return "regex"
    if (prev === "\n") return depth === 0 ? "regex" : AMBIGUOUS
    if (prev === '"' || prev === "/re/" || prev === "0" || prev === "]") return "divide"
    if (isIdentStart(prev[0]!)) return AWK_KEYWORDS.has(prev) ? AMBIGUOUS : "divide"
    return AMBIGUOUS
  }
}

/**
 * The blunt reading, after the raw-text rules have passed: a `/` divides after anything that may end an operand (a
 * string, regex, number, name other than an expression-starting keyword, `)`, `]`, `++`/`--`, or a character that is
 * not awk syntax), and starts a regex otherwise.
 */
const BLUNT: Reading = {
  stringsEndAtLineBreak: false,
  bracketsAmbiguous: false,
  slash: (prev) => {
    if (prev === '"' || prev === "/re/" || prev === "0" || prev === ")" || prev === "]" || prev === "++" || prev === "--") return "divide"
    if (prev !== "" && isIdentStart(prev[0]!)) return EXPRESSION_STARTERS.has(prev) ? "regex" : "divide"
    // ++ / -- could end an operand (x++) or start one (++x): read as an operand end, a following `/` stays a
    // division, the safe reading. A character outside awk syntax makes awk refuse the program: same conservative
    // reading.
    if (prev.length === 1 && prev.charCodeAt(0) > 127) return "divide"
    return "regex"
  }
}

/**
 * Lexes the program under a reading. Within it, `|` and `>` inside strings, regexes and comments are text; outside, a
 * single `|` is a pipe and a `>` at the level of a print statement (not inside its parentheses) a redirection.
 */
const lexProblem = (program: string, reading: Reading): string | undefined | typeof AMBIGUOUS => {
  const n = program.length
  let depth = 0
  /** Paren depth at which the current print/printf statement started, or -1. */
  let printDepth = -1
  let prev: Token = ""
  for (let i = 0; i < n; i++) {
    const c = program[i]!
    if (c === " " || c === "\t" || c === "\r") continue
    if (c === "\\" && program[i + 1] === "\n") {
      i++
      continue
    }
    if (c === "\n") {
      // A line break after `,`, `&&`, `||` or `{` continues the statement.
      if (prev !== "," && prev !== "&&" && prev !== "||" && prev !== "{") printDepth = -1
      prev = "\n"
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
        else if (program[j] === '"' || (reading.stringsEndAtLineBreak && program[j] === "\n")) break
      }
      if (j >= n || program[j] === "\n") return "the awk program has an unterminated string"
      i = j
      prev = '"'
      continue
    }
    if (c === "/") {
      const slash = reading.slash(prev, depth)
      if (slash === AMBIGUOUS) return AMBIGUOUS
      if (slash === "divide") {
        prev = "/"
        continue
      }
      let j = i + 1
      for (; j < n; j++) {
        const d = program[j]
        if (d === "\\") j++
        else if (d === "[" && reading.bracketsAmbiguous) return AMBIGUOUS
        else if (d === "\n") return "the awk program has an unterminated regular expression"
        else if (d === "/") break
      }
      if (j >= n) return "the awk program has an unterminated regular expression"
      i = j
      prev = "/re/"
      continue
    }
    if (isIdentStart(c)) {
      let j = i + 1
      while (isIdent(program[j])) j++
      const word = program.slice(i, j)
      i = j - 1
      prev = word
      if (word === "print" || word === "printf") printDepth = depth
      continue
    }
    if (c >= "0" && c <= "9") {
      while (i + 1 < n && (isIdent(program[i + 1]) || program[i + 1] === ".")) i++
      prev = "0"
      continue
    }
    prev = c
    switch (c) {
      case "|":
        if (program[i + 1] !== "|") return "the awk program uses `|` outside a string, which pipes output to a command or reads from one"
        i++
        prev = "||"
        continue
      case "&":
      case "+":
      case "-":
        if (program[i + 1] === c) {
          i++
          prev = c + c
        }
        continue
      case ">":
        if (printDepth >= 0 && depth === printDepth) {
          return "the awk program redirects print output with `>`, which writes a file (compare inside parentheses: `print ($1 > 2)`)"
        }
        if (program[i + 1] === "=" || program[i + 1] === ">") i++
        continue
      case ";":
      case "{":
      case "}":
        printDepth = -1
        continue
      case "(":
        depth++
        continue
      case ")":
        depth--
        if (depth < printDepth) printDepth = -1
        continue
    }
  }
  return undefined
}

/** Returns a reason when the program can write or execute, undefined when it is read-only. */
export const awkProgramProblem = (program: string): string | undefined => {
  for (const [word, why] of FORBIDDEN_ANYWHERE) {
    if (program.includes(word)) return `the awk program ${why}`
  }
  // Every lexing below runs on a text without the forbidden words: names such as `system` or `@` never reach it.
  const precise = lexProblem(program, PRECISE)
  if (precise !== AMBIGUOUS) return precise
  const text = awkTextProblem(program)
  if (text !== undefined) return text
  // The raw-text rules have refused every single `|` and every `>` after a `print`, so the blunt lexing finds only
  // unterminated strings and regexes; it is never AMBIGUOUS.
  const blunt = lexProblem(program, BLUNT)
  return blunt === AMBIGUOUS ? undefined : blunt
}
