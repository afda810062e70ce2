/**
 * sed, per DECISIONS D7: a single `s///` expression only when sed reads stdin; with file operands only `-n` with
 * printing expressions (`p` after optional line or range addresses); never `-i`, `w`, `W`, `e`, `r`, `R`, `s///w`,
 * `s///e`.
 *
 * Scripts are read with a small grammar of exactly the allowed forms; anything it does not recognise is rejected,
 * so an unusual spelling of a forbidden command cannot slip through as "something else".
 */
import { hasOption, isRejected, scanOptions, type OptionSpec } from "./options.ts"
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

/**
 * A script of simple commands from `allowed`, each `[addr[,addr]][!]CMD` separated by `;` or newlines: `p` (print),
 * `=` (print the line number), `q`/`Q` with an optional exit code (quit), `d` (delete from the output).
 */
const simpleScript = (script: string, allowed: string, what: string): string | undefined => {
  let i = skipSeparators(script, 0)
  if (i >= script.length) return "the sed script is empty"
  while (i < script.length) {
    const j = readAddresses(script, i)
    if (j < 0) return `the sed address at \`${script.slice(i, i + 20)}\` is not a plain line number, \`$\` or /regex/`
    const cmd = script[j]
    if (cmd === undefined || !allowed.includes(cmd)) {
      return `sed command \`${cmd ?? "end of script"}\` is not allowed; ${what}`
    }
    let k = j + 1
    if (cmd === "q" || cmd === "Q") while (isDigit(script[k])) k++
    while (isBlank(script[k])) k++
    if (k < script.length && script[k] !== ";" && script[k] !== "\n") {
      return `unexpected \`${script.slice(k, k + 10)}\` after \`${cmd}\` in the sed script`
    }
    i = skipSeparators(script, k)
  }
  return undefined
}

const WITH_FILES =
  "with file operands sed may run only -n with printing commands (`p`, `=`, and `q` to stop), optionally after line or /regex/ addresses; on standard input also `d` or one s///"

/** A script of printing commands only (`p`, `=`, `q`, `Q`): what sed may run on files, with -n. */
export const printOnlyScript = (script: string): string | undefined => simpleScript(script, "p=qQ", WITH_FILES)

/** A filtering script for standard input: printing commands plus `d`. */
export const filterScript = (script: string): string | undefined => simpleScript(script, "p=qQd", WITH_FILES)

const hasCommand = (script: string, cmd: string): boolean => {
  let i = skipSeparators(script, 0)
  while (i < script.length) {
    const j = readAddresses(script, i)
    if (j < 0) return false
    if (script[j] === cmd) return true
    let k = j + 1
    while (k < script.length && script[k] !== ";" && script[k] !== "\n") k++
    i = skipSeparators(script, k)
  }
  return false
}

const S_FLAGS_OK = new Set(["g", "p", "i", "I", "m", "M"])

/** One substitution: `[addr[,addr]][!]s<d>re<d>replacement<d>[flags]`, flags from g p i I m M and digits. */
export const substitutionScript = (script: string): string | undefined => {
  let i = skipSeparators(script, 0)
  const j = readAddresses(script, i)
  if (j < 0 || script[j] !== "s") return "the script is not a single s/// command"
  i = j + 1
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
  let k = i
  while (k < script.length && (isBlank(script[k]) || script[k] === ";" || script[k] === "\n")) k++
  if (k < script.length) {
    return `only a single s/// expression is allowed; \`${script.slice(i, i + 20)}\` follows it`
  }
  return undefined
}

const looksLikeSubstitution = (script: string): boolean => {
  const i = skipSeparators(script, 0)
  const j = readAddresses(script, i)
  return j >= 0 && script[j] === "s"
}

export const checkSed = (cmd: string, args: ReadonlyArray<Word>): string | undefined => {
  const parsed = scanOptions(cmd, args, SED_SPEC)
  if (isRejected(parsed)) return parsed.reject
  const scripts: Array<Word> = []
  for (const o of parsed.options) {
    if ((o.name === "-e" || o.name === "--expression") && o.value !== undefined) scripts.push(o.value)
  }
  let files = parsed.operands
  if (scripts.length === 0) {
    const first = files[0]
    if (first === undefined) return "`sed` needs a script"
    scripts.push(first)
    files = files.slice(1)
  }
  const quiet = hasOption(parsed, "-n", "--quiet", "--silent")
  const anySubst = scripts.some((s) => looksLikeSubstitution(s.value))
  if (anySubst) {
    if (files.length > 0) {
      return `\`sed\` may run s/// only on its standard input; it has file operand ${show(files[0]!)}. Pipe the file in instead (\`cat FILE | sed ...\`) or use -n with printing commands`
    }
    if (scripts.length > 1) return "`sed` may run a single s/// expression; it was given several scripts"
    const r = substitutionScript(scripts[0]!.value)
    return r === undefined ? undefined : `\`sed\`: ${r} (in ${show(scripts[0]!)})`
  }
  for (const s of scripts) {
    const r = files.length > 0 ? printOnlyScript(s.value) : filterScript(s.value)
    if (r !== undefined) return `\`sed\`: ${r} (script ${show(s)})`
  }
  if (!quiet) {
    if (files.length > 0) return "`sed` with file operands needs -n and printing commands; add -n"
    if (scripts.some((s) => hasCommand(s.value, "p"))) return "`sed` printing scripts need -n (without it every line prints twice); add -n"
  }
  return undefined
}
