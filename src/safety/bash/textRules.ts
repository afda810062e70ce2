/**
 * The rules' parts for programs that filter or print text: sort, uniq, tail, jq and printf. Option specs and word
 * checks only; the allowlist table that binds them to names is in commands.ts.
 *
 * What they refuse: output files (sort -o, uniq's second operand), follow modes that never end (tail -f, `+1f`),
 * programs that run other programs (sort --compress-program), jq programs that read the environment or load modules
 * (and xargs input as jq's program), and `printf -v` (which assigns a shell variable).
 */
import type { XargsPolicy } from "./commandRule.ts"
import { isRejected, scanOptions, type OptionSpec, type ParsedArgs } from "./options.ts"
import { show, type Word } from "./words.ts"

export const SORT: OptionSpec = {
  shortArg: "ktS",
  shortFlags: "bdfgiMhnRrVcCmsuz",
  badShort: { o: "writes its output to a file", T: "writes temporary files into a directory of its choice" },
  badLong: {
    output: "writes its output to a file",
    "compress-program": "runs a compression program",
    "temporary-directory": "writes temporary files into a directory of its choice"
  },
  long: {
    key: "required",
    "field-separator": "required",
    "buffer-size": "required",
    "files0-from": "required",
    "batch-size": "required",
    parallel: "required",
    "random-source": "required",
    sort: "required"
  }
}

export const UNIQ: OptionSpec = {
  strict: true,
  risky: true,
  shortFlags: "cdDiuz",
  shortArg: "fsw",
  long: {
    count: "none",
    repeated: "none",
    "all-repeated": "optional",
    group: "optional",
    "skip-fields": "required",
    "ignore-case": "none",
    "skip-chars": "required",
    unique: "none",
    "zero-terminated": "none",
    "check-chars": "required",
    help: "none",
    version: "none"
  }
}

export const TAIL: OptionSpec = {
  shortArg: "ncs",
  shortFlags: "0123456789qvz",
  // Follow mode never ends (until the tool's timeout). Wildcards are checked by checkTail: an expansion ending in a
  // literal `.suffix` cannot be a follow option (getopt stops tail at the `.`), a bare `*` could be `-f` or `+1f`.
  risky: false,
  badShort: { f: "follows the file forever", F: "follows the file forever" },
  badLong: { follow: "follows the file forever", retry: "waits for the file forever" },
  long: { lines: "required", bytes: "required", "sleep-interval": "required", pid: "required", "max-unchanged-stats": "required" }
}

/** Obsolete `tail +N[bcl][f]` (and `+` words in general): `+1f` follows forever; write `-n +N` instead. */
export const checkTail = (cmd: string, parsed: ParsedArgs): string | undefined => {
  for (const w of parsed.operands) {
    if (w.value.startsWith("+")) {
      return `\`${cmd}\`: ${show(w)} is the obsolete +N form (\`+1f\` follows the file forever); write \`-n +N\` instead`
    }
    if (w.leadingGlob && !parsed.closed) {
      const lastGlob = Math.max(w.value.lastIndexOf("*"), w.value.lastIndexOf("?"), w.value.lastIndexOf("]"))
      if (!w.value.slice(lastGlob + 1).includes(".")) {
        return `\`${cmd}\`: ${show(w)} starts with a wildcard and could expand to \`-f\` or \`+1f\` (follow forever); write \`./${w.value}\` or put \`--\` before it`
      }
    }
  }
  return undefined
}

export const checkUniq = (cmd: string, parsed: ParsedArgs): string | undefined => {
  if (parsed.operands.length > 1) {
    return `\`${cmd}\`: a second operand (${show(parsed.operands[1]!)}) is an output file that uniq writes; give at most one input file`
  }
  const g = parsed.operands.find((w) => w.glob)
  if (g !== undefined) {
    return `\`${cmd}\`: ${show(g)} is a wildcard that could expand to two names, the second of which uniq would overwrite; name one file`
  }
  return undefined
}

export const checkPrintf = (cmd: string, args: ReadonlyArray<Word>): string | undefined => {
  const first = args[0]
  if (first !== undefined && first.value.startsWith("-v")) {
    return `\`${cmd} -v\` assigns a shell variable (it could change PATH for the commands after it); print to stdout instead`
  }
  if (first !== undefined && (first.leadingGlob || (first.glob && first.value.startsWith("-")))) {
    return `\`${cmd}\`: ${show(first)} holds a wildcard where an option could be; quote it`
  }
  return undefined
}

/** jq's `env` builtin and `$ENV` print the environment (API keys among it); `import`/`include` load programs from files. */
export const JQ_SPEC: OptionSpec = {
  shortArg: "L",
  badShort: { f: "reads the program from a file the guard cannot check" },
  badLong: { "from-file": "reads the program from a file the guard cannot check" },
  long: { arg: "pair", argjson: "pair", slurpfile: "pair", rawfile: "pair", indent: "required", "library-path": "required" }
}

export const checkJq = (cmd: string, parsed: ParsedArgs): string | undefined => {
  const program = parsed.operands[0]
  if (program === undefined) return undefined
  const v = program.value
  if (/\$ENV\b/.test(v) || /(?:^|[^.\w$"])env\b/.test(v)) {
    return `\`${cmd}\`: the program ${show(program)} reads the environment (\`env\`, \`$ENV\`), where the agent's API keys are`
  }
  if (/\b(?:import|include|modulemeta|get_search_list)\b/.test(v)) {
    return `\`${cmd}\`: the program ${show(program)} loads jq modules from files the guard cannot check`
  }
  return undefined
}

/**
 * Where xargs may add words to jq: after a `--` among the fixed words and after the program, which must be one of the
 * fixed words (`xargs -I {} jq -- {} f` would run each input line as the program, `env` among them).
 */
export const jqXargs = (args: ReadonlyArray<Word>): XargsPolicy => {
  const p = scanOptions("jq", args, JQ_SPEC)
  if (isRejected(p)) return -1
  const program = p.operands[0]
  if (program === undefined) return { never: "input words would become jq's program, which the guard cannot read" }
  return p.closedAt < 0 ? -1 : Math.max(p.closedAt, args.indexOf(program))
}
