/**
 * How the read plan (reads.ts) reads a command's words without its full option spec: which words are options, which
 * are operands (skipping the values of the options named), whether a short or long option is present, and where a
 * grep or rg searches (its roots after the pattern, the working directory when none, recursion for grep).
 *
 * Deliberately approximate and only ever used to find more paths to check, never to allow a command: the
 * allowlist's own checks (commands.ts) have already accepted the words.
 */
import type { Word } from "./words.ts"

export const GREPS = new Set(["grep", "egrep", "fgrep"])

export const isOption = (v: string): boolean => v.length > 1 && v.startsWith("-")

/** The words that are not options (after `--`, all of them); `values`: short letters whose value is the next word. */
export const operandsOf = (args: ReadonlyArray<Word>, values: string, longValues: ReadonlySet<string> = new Set()): Array<Word> => {
  const out: Array<Word> = []
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value
    if (v === "--") {
      out.push(...args.slice(i + 1))
      break
    }
    if (v.startsWith("--")) {
      if (!v.includes("=") && longValues.has(v)) i++
      continue
    }
    if (isOption(v)) {
      for (let j = 1; j < v.length; j++) {
        if (values.includes(v[j]!)) {
          if (j === v.length - 1) i++
          break
        }
      }
      continue
    }
    out.push(args[i]!)
  }
  return out
}

export const hasShort = (args: ReadonlyArray<Word>, letters: string, values: string): boolean =>
  args.some((w) => {
    const v = w.value
    if (!isOption(v) || v.startsWith("--")) return false
    for (let j = 1; j < v.length; j++) {
      if (letters.includes(v[j]!)) return true
      if (values.includes(v[j]!)) return false
    }
    return false
  })

export const hasLong = (args: ReadonlyArray<Word>, ...names: ReadonlyArray<string>): boolean =>
  args.some((w) => names.some((n) => w.value === n || w.value.startsWith(`${n}=`)))

export const GREP_VALUES = "efmABCdD"
const GREP_LONG_VALUES = new Set(["--regexp", "--file", "--max-count", "--after-context", "--before-context", "--context", "--devices", "--directories", "--label", "--include", "--exclude", "--exclude-dir", "--exclude-from", "--binary-files"])
export const RG_VALUES = "ABCdEefgjMmrtT"
const RG_LONG_VALUES = new Set(["--regexp", "--file", "--glob", "--iglob", "--type", "--type-not", "--max-count", "--max-depth", "--after-context", "--before-context", "--context", "--replace", "--encoding", "--ignore-file", "--sort", "--sortr", "--threads", "--max-columns", "--max-filesize", "--path-separator", "--type-add", "--colors", "--engine", "--context-separator", "--field-context-separator", "--field-match-separator", "--dfa-size-limit", "--regex-size-limit", "--hyperlink-format", "--generate"])

/** Search roots of a grep or rg (its operands after the pattern; the cwd when there are none). */
export const searchRoots = (name: string, args: ReadonlyArray<Word>): { readonly roots: ReadonlyArray<Word>; readonly cwd: boolean } => {
  const rg = name === "rg"
  const ops = operandsOf(args, rg ? RG_VALUES : GREP_VALUES, rg ? RG_LONG_VALUES : GREP_LONG_VALUES)
  const patternGiven = hasShort(args, "ef", rg ? RG_VALUES : GREP_VALUES) || hasLong(args, "--regexp", "--file") ||
    (rg && hasLong(args, "--files", "--type-list"))
  const roots = patternGiven ? ops : ops.slice(1)
  return { roots, cwd: roots.length === 0 }
}

export const grepRecursive = (args: ReadonlyArray<Word>): boolean =>
  hasShort(args, "rR", GREP_VALUES) || hasLong(args, "--recursive", "--dereference-recursive") ||
  args.some((w, i) => w.value === "--directories=recurse" || w.value === "-drecurse" || (w.value === "-d" && args[i + 1]?.value === "recurse") ||
    (w.value === "--directories" && args[i + 1]?.value === "recurse"))

export const LINE_FILTERS: Readonly<Record<string, string>> = { sort: "ktST", uniq: "fsw", head: "nc", tail: "nc" }
export const isNumber = (v: string): boolean => /^[+-]?[0-9]+[a-zA-Z]?$/.test(v)
