/**
 * sed, per DECISIONS D7: `s///` and filtering commands when sed reads stdin; with file operands only `-n` with
 * printing expressions: `p`, `=`, `l`, `q`, and `s///` (which under -n prints only through its `p` flag:
 * `sed -n 's/a/b/p' f`); never `-i`, `w`, `W`, `e`, `r`, `R`, `s///w`, `s///e`.
 *
 * Scripts are read with a small grammar of exactly the allowed forms; anything it does not recognise is rejected,
 * so an unusual spelling of a forbidden command cannot slip through as "something else".
 */
import type { XargsPolicy } from "./commandRule.ts"
import { hasOption, isRejected, scanOptions, type OptionSpec, type ParsedArgs } from "./options.ts"
import { show, type Word } from "./words.ts"

export const SED_SPEC: OptionSpec = {
  strict: true,
  shortFlags: "nErszub",
  shortArg: "efl",
  badShort: {
    i: "edits files in place",
    f: "reads the script from a file the guard cannot check"
  },
  long: {
    quiet: "none",
    silent: "none",
    expression: "required",
    "regexp-extended": "none",
    separate: "none",
    "null-data": "none",
    "zero-terminated": "none",
    unbuffered: "none",
    "line-length": "required",
    binary: "none",
    posix: "none",
    debug: "none",
    sandbox: "none",
    "follow-symlinks": "none",
    help: "none",
    version: "none"
  },
  badLong: {
    "in-place": "edits files in place",
    file: "reads the script from a file the guard cannot check"
  }
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9"
const isBlank = (c: string | undefined): boolean => c === " " || c === "\t"

/** Reads text up to an unescaped delimiter; returns the index after it, or -1. */
const skipDelimited = (s: string, i: number, delim: string, allowNewline: boolean): number => {
  for (; i < s.length; i++) {
    const c = s[i]!
    if (c === "\\") {
      i++
      continue
    }
    if (c === "\n" && !allowNewline) return -1
    if (c === delim) return i + 1
  }
  return -1
}

/** One address: `N`, `$`, `N~S`, `/re/[IM]`, `\cREc[IM]`. Returns the index after it, the same index if none, or -1. */
const readAddress = (s: string, i: number, second: boolean): number => {
  const c = s[i]
  if (c === "$") return i + 1
  if (second && (c === "+" || c === "~")) {
    let j = i + 1
    if (!isDigit(s[j])) return -1
    while (isDigit(s[j])) j++
    return j
  }
  if (isDigit(c)) {
    let j = i
    while (isDigit(s[j])) j++
    if (s[j] === "~") {
      j++
      if (!isDigit(s[j])) return -1
      while (isDigit(s[j])) j++
    }
    return j
  }
  let delim: string | undefined
  let j = i
  if (c === "/") {
    delim = "/"
    j = i + 1
  } else if (c === "\\") {
    delim = s[i + 1]
    if (delim === undefined || delim === "\n" || delim === "\\") return -1
    j = i + 2
  }
  if (delim === undefined) return i
  j = skipDelimited(s, j, delim, false)
  if (j < 0) return -1
  while (s[j] === "I" || s[j] === "M") j++
  return j
}

/** `[addr[,addr]][!]`. Returns the index after it, or -1. */
const readAddresses = (s: string, i: number): number => {
  let j = readAddress(s, i, false)
  if (j < 0) return -1
  if (j > i) {
    while (isBlank(s[j])) j++
    if (s[j] === ",") {
      j++
      while (isBlank(s[j])) j++
      const k = readAddress(s, j, true)
      if (k <= j) return -1
      j = k
    }
  }
  while (isBlank(s[j])) j++
  if (s[j] === "!") {
    j++
    while (isBlank(s[j])) j++
  }
  return j
}

const skipSeparators = (s: string, i: number): number => {
  while (i < s.length && (isBlank(s[i]) || s[i] === "\n" || s[i] === ";")) i++
  return i
}

/** Commands that only shape what sed prints (no file, no program, no text argument): allowed on standard input. */
const FILTER_COMMANDS = "p=qQdDnNgGhHxlzPF"
/** What sed may run on file operands (with -n): printing (`l` prints with escapes shown) and quitting only (and `s///`,
 *  below). */
const PRINT_COMMANDS = "p=lqQ"

const FORBIDDEN_COMMANDS: Readonly<Record<string, string>> = {
  w: "writes to a file",
  W: "writes to a file",
  r: "reads a file chosen inside the script",
  R: "reads a file chosen inside the script",
  e: "executes a command",
  a: "appends text (its argument runs to the end of the line, which the guard does not read)",
  i: "inserts text (its argument runs to the end of the line, which the guard does not read)",
  c: "changes lines to text (its argument runs to the end of the line, which the guard does not read)",
  b: "branches to a label (labels are not read by the guard)",
  t: "branches to a label (labels are not read by the guard)",
  T: "branches to a label (labels are not read by the guard)",
  ":": "defines a label (labels are not read by the guard)",
  v: "is not needed",
  "#": "starts a comment (the guard does not read sed comments)"
}

/** What a script holds, when it is one the guard can read. */
export interface SedScript {
  /** Every command is one of PRINT_COMMANDS or `s///` (blocks and addresses aside): fit for file operands with -n.
   *  A substitution only changes the pattern space, which -n does not print; its `p` flag prints the changed line.
   *  Its w and e flags, the only ones that reach outside sed, are refused by readSubstitution. */
  readonly printOnly: boolean
  /** Holds a `p` command (it prints every selected line again unless -n is given). */
  readonly prints: boolean
  /** Holds an `s` or `y` command. */
  readonly substitutes: boolean
}

const S_FLAGS_OK = new Set(["g", "p", "i", "I", "m", "M"])

/** `s<d>re<d>replacement<d>[flags]` from the `s`: the index after it, or the reason it is not allowed. */
const readSubstitution = (script: string, at: number): number | string => {
  let i = at + 1
  const delim = script[i]
  if (delim === undefined || delim === "\\" || delim === "\n") return "the s command has no valid delimiter"
  i = skipDelimited(script, i + 1, delim, true)
  if (i < 0) return "the s command's regular expression is not terminated"
  i = skipDelimited(script, i, delim, false)
  if (i < 0) return "the s command's replacement is not terminated"
  for (; i < script.length; i++) {
    const c = script[i]!
    if (S_FLAGS_OK.has(c) || isDigit(c)) continue
    if (c === "w" || c === "W") return "the s///w flag writes to a file"
    if (c === "e") return "the s///e flag executes the pattern space as a command"
    break
  }
  return i
}

/** `y<d>src<d>dst<d>`: the index after it, or the reason. */
const readTransliteration = (script: string, at: number): number | string => {
  const delim = script[at + 1]
  if (delim === undefined || delim === "\\" || delim === "\n") return "the y command has no valid delimiter"
  const i = skipDelimited(script, at + 2, delim, false)
  const j = i < 0 ? -1 : skipDelimited(script, i, delim, false)
  return j < 0 ? "the y command is not terminated" : j
}

/**
 * Reads a whole script: commands `[addr[,addr]][!]CMD` separated by `;` or newlines, `{ ... }` blocks (nested),
 * `s///` (flags g p i I m M and a count), `y///`, and the commands of FILTER_COMMANDS (`q`/`Q` with an exit code, `l`
 * with a line length). Anything else, and every command that writes, reads or runs something, is a reason.
 */
export const readScript = (script: string): SedScript | string => {
  let printOnly = true
  let prints = false
  let substitutes = false
  let depth = 0
  let i = skipSeparators(script, 0)
  if (i >= script.length) return "the sed script is empty"
  while (i < script.length) {
    if (script[i] === "}") {
      if (depth === 0) return "the sed script closes a block `}` it never opened"
      depth--
      i++
    } else {
      const j = readAddresses(script, i)
      if (j < 0) return `the sed address at \`${script.slice(i, i + 20)}\` is not a plain line number, \`$\` or /regex/`
      const cmd = script[j]
      if (cmd === undefined) return "the sed script ends after an address, without a command"
      let k = j + 1
      if (cmd === "{") {
        depth++
        i = skipSeparators(script, k)
        continue
      }
      if (cmd === "s" || cmd === "y") {
        const r = cmd === "s" ? readSubstitution(script, j) : readTransliteration(script, j)
        if (typeof r === "string") return r
        k = r
        substitutes = true
        if (cmd === "y") printOnly = false
      } else if (FILTER_COMMANDS.includes(cmd)) {
        if (!PRINT_COMMANDS.includes(cmd)) printOnly = false
        if (cmd === "p") prints = true
        if (cmd === "q" || cmd === "Q" || cmd === "l") {
          while (isBlank(script[k])) k++
          while (isDigit(script[k])) k++
        }
      } else {
        const why = Object.hasOwn(FORBIDDEN_COMMANDS, cmd) ? FORBIDDEN_COMMANDS[cmd] : "is not one this guard reads"
        return `sed command \`${cmd}\` ${why}; allowed: s///, y///, p, =, q, Q, d, and { } blocks of them`
      }
      i = k
    }
    while (isBlank(script[i])) i++
    if (i < script.length && script[i] !== ";" && script[i] !== "\n" && script[i] !== "}") {
      return `unexpected \`${script.slice(i, i + 10)}\` after a command in the sed script`
    }
    i = skipSeparators(script, i)
  }
  if (depth > 0) return "the sed script opens a block `{` it never closes"
  return { printOnly, prints, substitutes }
}

const WITH_FILES =
  "with file operands sed may run only -n with printing commands (`p`, `=`, `l`, `q` to stop, and `s/a/b/p`), optionally after line or /regex/ addresses and in { } blocks; pipe the file in (`cat FILE | sed ...`) for y///, d and the like"

/** A script of printing commands only (`p`, `=`, `l`, `q`, `Q`, `s///`, blocks): what sed may run on files, with -n. */
export const printOnlyScript = (script: string): string | undefined => {
  const r = readScript(script)
  if (typeof r === "string") return r
  return r.printOnly ? undefined : `the script does more than print; ${WITH_FILES}`
}

/** A script sed may run on its standard input: substitutions, transliterations and filtering commands. */
export const substitutionScript = (script: string): string | undefined => {
  const r = readScript(script)
  return typeof r === "string" ? r : undefined
}

/** The scripts of a parsed sed (every -e value, else the first operand) and its file operands. */
export const sedScripts = (parsed: ParsedArgs): { readonly scripts: ReadonlyArray<Word>; readonly files: ReadonlyArray<Word> } => {
  const scripts: Array<Word> = []
  for (const o of parsed.options) {
    if ((o.name === "-e" || o.name === "--expression") && o.value !== undefined) scripts.push(o.value)
  }
  if (scripts.length > 0 || parsed.operands.length === 0) return { scripts, files: parsed.operands }
  return { scripts: [parsed.operands[0]!], files: parsed.operands.slice(1) }
}

export const checkSed = (cmd: string, args: ReadonlyArray<Word>): string | undefined => {
  const parsed = scanOptions(cmd, args, SED_SPEC)
  if (isRejected(parsed)) return parsed.reject
  const { scripts, files } = sedScripts(parsed)
  if (scripts.length === 0) return "`sed` needs a script"
  const quiet = hasOption(parsed, "-n", "--quiet", "--silent")
  // Several -e scripts are joined with newlines by sed: each is read on its own, and none may leave a block open.
  const read: Array<SedScript> = []
  for (const s of scripts) {
    const r = readScript(s.value)
    if (typeof r === "string") return `\`sed\`: ${r} (script ${show(s)})`
    read.push(r)
  }
  if (files.length > 0) {
    const busy = read.findIndex((r) => !r.printOnly)
    if (busy >= 0) {
      return `\`sed\`: the script ${show(scripts[busy]!)} does more than print, and sed has file operand ${show(files[0]!)}; ${WITH_FILES}`
    }
    if (!quiet) return "`sed` with file operands needs -n and printing commands; add -n"
    return undefined
  }
  if (!quiet && read.some((r) => r.prints && !r.substitutes)) {
    return "`sed` printing scripts need -n (without it every line prints twice); add -n"
  }
  return undefined
}

/**
 * Where xargs may add words to sed: only file operands, so only after a `--` among the fixed words, only with -n and
 * printing scripts, and never where the script is read: a script taken from the operands (no -e) must come before
 * the added words, or `xargs -I {} sed -n -- {}` would run each input line as the script (`e CMD`, `w FILE`).
 */
export const sedXargs = (args: ReadonlyArray<Word>): XargsPolicy => {
  const p = scanOptions("sed", args, SED_SPEC)
  if (isRejected(p)) return -1
  const { scripts } = sedScripts(p)
  const quiet = hasOption(p, "-n", "--quiet", "--silent")
  if (!quiet || scripts.length === 0 || scripts.some((s) => printOnlyScript(s.value) !== undefined)) {
    return { never: "xargs would give sed file operands, and with files sed may run only -n with printing commands" }
  }
  if (p.closedAt < 0) return -1
  const fromOperand = p.operands[0] === scripts[0] ? args.indexOf(scripts[0]!) : -1
  return Math.max(p.closedAt, fromOperand)
}
