/**
 * The rules' parts for programs that search and list files: grep (and egrep, fgrep), ripgrep, fd and tree (find has
 * a file of its own, find.ts). Option specs and word checks only; the allowlist table that binds them to names is in
 * commands.ts.
 *
 * What they refuse: options that run programs (fd --exec, rg --pre, --search-zip) and tree options outside a fixed
 * form (tree reads later words as option values and can write files).
 */
import type { OptionSpec } from "./options.ts"
import { show, type Word } from "./words.ts"

export const GREP: OptionSpec = {
  globValues: true,
  shortArg: "ABCDdefm",
  long: {
    "after-context": "required",
    "before-context": "required",
    context: "required",
    devices: "required",
    directories: "required",
    regexp: "required",
    file: "required",
    "max-count": "required",
    label: "required",
    include: "required",
    exclude: "required",
    "exclude-from": "required",
    "exclude-dir": "required",
    "binary-files": "required",
    color: "optional",
    colour: "optional"
  }
}

export const RG: OptionSpec = {
  globValues: true,
  shortArg: "ABCdEefgjMmrtT",
  shortFlags: "abcFHhiIlLnNopPqsSuUvVwx0.",
  negation: true,
  badShort: { z: "runs decompression programs on compressed files (--search-zip)" },
  badLong: {
    pre: "runs a preprocessor program on every file",
    "pre-glob": "selects files for a preprocessor program",
    "hostname-bin": "runs a program to find the host name",
    "search-zip": "runs decompression programs on compressed files"
  },
  long: Object.fromEntries(
    [
      "after-context",
      "before-context",
      "context",
      "color",
      "colors",
      "context-separator",
      "dfa-size-limit",
      "encoding",
      "engine",
      "field-context-separator",
      "field-match-separator",
      "file",
      "glob",
      "iglob",
      "ignore-file",
      "max-columns",
      "max-count",
      "max-depth",
      "max-filesize",
      "path-separator",
      "regexp",
      "replace",
      "sort",
      "sortr",
      "threads",
      "type",
      "type-not",
      "type-add",
      "type-clear",
      "generate",
      "hyperlink-format",
      "regex-size-limit"
    ].map((k) => [k, "required" as const])
  )
}
// ripgrep takes no abbreviations: `--ignore` is a flag of its own (the negation of --no-ignore), not `--ignore-file`;
// the guard reads any abbreviation as an option whose value it cannot know.

export const FD: OptionSpec = {
  globValues: true,
  shortArg: "deEtScjo",
  shortFlags: "HIusigFaLp0qh1V",
  badShort: {
    x: "runs a command for each result (--exec)",
    X: "runs a command on the results (--exec-batch)",
    l: "runs `ls` on the results (--list-details)"
  },
  badLong: { exec: "runs a command for each result", "exec-batch": "runs a command on the results", "list-details": "runs `ls` on the results" },
  long: Object.fromEntries(
    [
      "max-depth",
      "min-depth",
      "exact-depth",
      "extension",
      "exclude",
      "type",
      "size",
      "changed-within",
      "changed-before",
      "newer",
      "older",
      "owner",
      "color",
      "threads",
      "base-directory",
      "path-separator",
      "search-path",
      "format",
      "ignore-file",
      "max-results",
      "batch-size",
      "and"
    ].map((k) => [k, "required" as const])
  )
}

/** tree's flags that only change what it lists or how: each its own word (tree does not read clusters the usual way). */
const TREE_FLAGS = new Set([
  "-a", "-d", "-f", "-i", "-l", "-s", "-h", "-D", "-F", "-C", "-n", "-A", "-q", "-N", "-p", "-u", "-g", "-x", "-r", "-t",
  "-v", "-U", "-c", "-Q", "--noreport", "--dirsfirst", "--filesfirst", "--gitignore", "--prune", "--du", "--si", "--matchdirs", "--ignore-case"
])
/** tree's options that take the next word as their value, and what the value must look like. */
const TREE_VALUES: ReadonlyMap<string, RegExp> = new Map([
  ["-L", /^[0-9]{1,4}$/],
  ["--filelimit", /^[0-9]{1,9}$/],
  ["-I", /^[^-]/],
  ["-P", /^[^-]/]
])

/**
 * tree in a fixed form: every option a separate word from TREE_FLAGS or TREE_VALUES (with its value in the next word),
 * directories that do not start with `-`, no wildcard anywhere. tree reads `-Lo 1 FILE` as two options each taking a
 * later word (so FILE is written), and `-o`, `-R`, `--fromfile` write or read other files: none of that is reachable.
 */
export const checkTree = (cmd: string, args: ReadonlyArray<Word>): string | undefined => {
  const form = "tree takes only separate flags (-a -d -f -F -C --noreport --dirsfirst --gitignore ...), `-L N`, `-I PATTERN`, `-P PATTERN` and directories"
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!
    if (w.glob) return `\`${cmd}\`: ${show(w)} holds a wildcard, which could expand into a tree option; name the directory (${form})`
    const valueRule = TREE_VALUES.get(w.value)
    if (valueRule !== undefined) {
      const value = args[i + 1]
      if (value === undefined || value.glob || !valueRule.test(value.value)) {
        return `\`${cmd}\`: \`${w.value}\` needs a plain value in the next word${value === undefined ? "" : `, not ${show(value)}`}`
      }
      i++
      continue
    }
    if (TREE_FLAGS.has(w.value)) continue
    if (w.value.startsWith("-")) return `\`${cmd}\`: option ${show(w)} is not one of the forms this guard allows (${form})`
  }
  return undefined
}
