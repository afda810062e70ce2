/**
 * The allowlist: every command a background agent may run on the read-only path, each with the check of its words.
 *
 * A rule says two things: whether the fixed words are read-only, and how `xargs` may feed it more words (never; at
 * any position; or only where the command no longer reads options, which the rule locates).
 */
import { checkAwk, AWK_SPEC } from "./awk.ts"
import { checkDocker, checkGit, dockerOptionsClosedAt, gitOptionsClosedAt } from "./git.ts"
import { isRejected, scanOptions, type OptionSpec, type ParsedArgs } from "./options.ts"
import { checkSed, printOnlyScript, SED_SPEC } from "./sed.ts"
import { show, type Word } from "./words.ts"

/** How xargs may add words: "any" position, only after the returned index (options closed there; -1 = never closed),
 *  or never. */
export type XargsPolicy = "any" | number | { readonly never: string }

export interface CommandRule {
  readonly check: (cmd: string, args: ReadonlyArray<Word>) => string | undefined
  readonly xargs: (args: ReadonlyArray<Word>) => XargsPolicy
}

const closedAtBy =
  (spec: OptionSpec) =>
  (args: ReadonlyArray<Word>): XargsPolicy => {
    const p = scanOptions("", args, spec)
    return isRejected(p) ? -1 : p.closedAt
  }

const ANY = (): XargsPolicy => "any"

/** A rule from an option spec plus an optional check of the parsed words. */
const specRule = (spec: OptionSpec, extra?: (cmd: string, parsed: ParsedArgs) => string | undefined): CommandRule => {
  const risky = spec.risky ?? (spec.badShort !== undefined || spec.badLong !== undefined)
  return {
    check: (cmd, args) => {
      const parsed = scanOptions(cmd, args, spec)
      if (isRejected(parsed)) return parsed.reject
      return extra?.(cmd, parsed)
    },
    xargs: risky ? closedAtBy(spec) : ANY
  }
}

const AWK_UNDER_XARGS = "input words would become awk operands, and gawk opens operands named /inet/... as network sockets"

const never = (rule: Omit<CommandRule, "xargs">, why: string): CommandRule => ({ ...rule, xargs: () => ({ never: why }) })

const GREP: OptionSpec = {
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

const RG: OptionSpec = {
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

const FD: OptionSpec = {
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

const SORT: OptionSpec = {
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

const UNIQ: OptionSpec = {
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

const DATE: OptionSpec = {
  strict: true,
  shortFlags: "Ru",
  shortArg: "dfr",
  shortOptArg: "I",
  badShort: { s: "sets the system clock" },
  badLong: { set: "sets the system clock" },
  long: {
    date: "required",
    file: "required",
    "iso-8601": "optional",
    "rfc-email": "none",
    "rfc-3339": "required",
    reference: "required",
    utc: "none",
    universal: "none",
    debug: "none",
    resolution: "none",
    help: "none",
    version: "none"
  }
}

const FILE: OptionSpec = {
  shortArg: "eFfmP",
  shortFlags: "bcdEhiIklLNnprsSv0",
  badShort: {
    C: "compiles a magic file and writes the result (--compile)",
    z: "runs decompression programs on compressed files (--uncompress)",
    Z: "runs decompression programs on compressed files (--uncompress-noreport)"
  },
  badLong: {
    compile: "compiles a magic file and writes the result",
    uncompress: "runs decompression programs on compressed files",
    "uncompress-noreport": "runs decompression programs on compressed files"
  },
  long: { exclude: "required", "exclude-quiet": "required", separator: "required", "files-from": "required", "magic-file": "required", parameter: "required" }
}

const TAIL: OptionSpec = {
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
const checkTail = (cmd: string, parsed: ParsedArgs): string | undefined => {
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

const FIND_BAD: Readonly<Record<string, string>> = {
  "-exec": "runs a command for each file",
  "-execdir": "runs a command for each file",
  "-ok": "runs a command for each file",
  "-okdir": "runs a command for each file",
  "-delete": "deletes files",
  "-fprint": "writes its output to a file",
  "-fprint0": "writes its output to a file",
  "-fprintf": "writes its output to a file",
  "-fls": "writes its output to a file"
}

const checkFind = (cmd: string, args: ReadonlyArray<Word>): string | undefined => {
  for (const w of args) {
    const why = Object.hasOwn(FIND_BAD, w.value) ? FIND_BAD[w.value] : undefined
    if (why !== undefined) return `\`${cmd}\`: \`${w.value}\` ${why}; use find only to list files (-print, -printf, -ls)`
    if (w.leadingGlob || (w.glob && w.value.startsWith("-"))) {
      return `\`${cmd}\`: ${show(w)} is an unquoted wildcard, which could expand into a find action such as -delete; quote the pattern ('*.md') or write \`./${w.value}\``
    }
  }
  return undefined
}

const checkUniq = (cmd: string, parsed: ParsedArgs): string | undefined => {
  if (parsed.operands.length > 1) {
    return `\`${cmd}\`: a second operand (${show(parsed.operands[1]!)}) is an output file that uniq writes; give at most one input file`
  }
  const g = parsed.operands.find((w) => w.glob)
  if (g !== undefined) {
    return `\`${cmd}\`: ${show(g)} is a wildcard that could expand to two names, the second of which uniq would overwrite; name one file`
  }
  return undefined
}

const checkDate = (cmd: string, parsed: ParsedArgs): string | undefined => {
  for (const w of parsed.operands) {
    if (!w.value.startsWith("+") || w.glob) {
      return `\`${cmd}\`: operand ${show(w)} would set the system clock; only a +FORMAT operand is allowed`
    }
  }
  if (parsed.operands.length > 1) return `\`${cmd}\` takes at most one +FORMAT operand`
  return undefined
}

const CD: OptionSpec = { strict: true, shortFlags: "LPe@" }

const checkCd = (cmd: string, parsed: ParsedArgs): string | undefined => {
  if (parsed.operands.length > 1) return `\`${cmd}\` takes one directory`
  const g = parsed.operands.find((w) => w.glob)
  return g === undefined ? undefined : `\`${cmd}\`: ${show(g)} is a wildcard; name the directory`
}

const checkPrintf = (cmd: string, args: ReadonlyArray<Word>): string | undefined => {
  const first = args[0]
  if (first !== undefined && first.value.startsWith("-v")) {
    return `\`${cmd} -v\` assigns a shell variable (it could change PATH for the commands after it); print to stdout instead`
  }
  if (first !== undefined && (first.leadingGlob || (first.glob && first.value.startsWith("-")))) {
    return `\`${cmd}\`: ${show(first)} holds a wildcard where an option could be; quote it`
  }
  return undefined
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
const checkTree = (cmd: string, args: ReadonlyArray<Word>): string | undefined => {
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

/** jq's `env` builtin and `$ENV` print the environment (API keys among it); `import`/`include` load programs from files. */
const JQ_SPEC: OptionSpec = {
  shortArg: "L",
  badShort: { f: "reads the program from a file the guard cannot check" },
  badLong: { "from-file": "reads the program from a file the guard cannot check" },
  long: { arg: "pair", argjson: "pair", slurpfile: "pair", rawfile: "pair", indent: "required", "library-path": "required" }
}

const checkJq = (cmd: string, parsed: ParsedArgs): string | undefined => {
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

const XARGS: OptionSpec = {
  strict: true,
  stopAtOperand: true,
  shortFlags: "0rtx",
  shortArg: "dEILnPs",
  shortOptArg: "eil",
  badShort: {
    a: "reads the items from a file instead of standard input",
    p: "prompts on the terminal before each command",
    o: "reopens the terminal as the command's standard input"
  },
  badLong: {
    "arg-file": "reads the items from a file instead of standard input",
    interactive: "prompts on the terminal before each command",
    "open-tty": "reopens the terminal as the command's standard input",
    "process-slot-var": "sets an environment variable for the command"
  },
  long: {
    null: "none",
    delimiter: "required",
    eof: "optional",
    replace: "optional",
    "max-lines": "optional",
    "max-args": "required",
    "max-procs": "required",
    "max-chars": "required",
    "no-run-if-empty": "none",
    verbose: "none",
    exit: "none",
    "show-limits": "none",
    help: "none",
    version: "none"
  }
}

/** Commands that are not allowed, with the reason in words a model can act on. */
const KNOWN_REJECTIONS: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
  [
    ["rm"],
    "deletes files; it is allowed only alone, as `rm [-f|--force] [--] /absolute/path/in/memory/topic.md ...`, with no redirections, variables or other commands"
  ],
  [
    ["mv", "cp", "tee", "touch", "mkdir", "rmdir", "ln", "chmod", "chown", "chgrp", "truncate", "dd", "install", "shred", "unlink", "patch", "mkfifo", "mknod", "split", "csplit"],
    "writes or changes files; background bash is read-only (memory files change through write, edit and the rm delete form)"
  ],
  [
    ["sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "ash", "busybox", "pwsh"],
    "runs a shell (as in `sh -c`), which can run anything"
  ],
  [
    ["eval", "source", ".", "exec", "command", "builtin", "env", "sudo", "doas", "su", "nohup", "nice", "ionice", "timeout", "time", "coproc", "watch", "strace", "ltrace", "setsid", "stdbuf", "chroot", "flock", "parallel", "script"],
    "runs another command, which the guard cannot check"
  ],
  [
    ["gh"],
    "is not allowed: every gh query goes to a server, so words in it (search terms, repository names) could carry data read from files off the machine"
  ],
  [
    ["curl", "wget", "nc", "ncat", "netcat", "ssh", "scp", "sftp", "rsync", "ping", "telnet", "ftp", "socat", "dig", "nslookup", "host"],
    "reaches the network"
  ],
  [
    ["python", "python3", "python2", "node", "nodejs", "deno", "bun", "perl", "ruby", "php", "lua", "tclsh", "npx", "npm", "pnpm", "yarn", "pip", "make", "cmake", "cargo", "go", "java", "gcc", "cc", "clang", "tsc", "vitest", "jest"],
    "runs code"
  ],
  [
    ["vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "less", "more", "most", "man", "info", "top", "htop"],
    "is interactive (an editor, pager or viewer); use cat, head, tail or sed -n instead"
  ],
  [
    ["export", "declare", "typeset", "local", "readonly", "unset", "set", "shopt", "alias", "unalias", "trap", "read", "readarray", "mapfile", "ulimit", "umask", "hash", "enable", "let", "getopts", "shift", "exit", "return", "kill", "pkill", "killall", "wait", "disown", "bg", "fg", "jobs", "history", "fc", "pushd", "popd", "dirs", "test", "[", "[["],
    "changes shell state or is not a read-only query; background bash allows only the listed read-only commands"
  ]
]

const REJECTION_BY_NAME: ReadonlyMap<string, string> = new Map(
  KNOWN_REJECTIONS.flatMap(([names, why]) => names.map((n) => [n, why] as const))
)

const simple = (spec: OptionSpec = {}): CommandRule => specRule(spec)

const RULES: Readonly<Record<string, CommandRule>> = {
  ls: simple({ globValues: true, shortArg: "ITw", long: { hide: "required", ignore: "required", format: "required", sort: "required", time: "required", "time-style": "required", width: "required", tabsize: "required", "block-size": "required", "quoting-style": "required", "indicator-style": "required", color: "optional", hyperlink: "optional" } }),
  cat: simple(),
  head: simple({ shortArg: "nc", long: { lines: "required", bytes: "required" } }),
  // Input words could add -f or a +1f operand: xargs may feed tail only after `--`.
  tail: { check: specRule(TAIL, checkTail).check, xargs: closedAtBy(TAIL) },
  wc: simple({ long: { "files0-from": "required" } }),
  stat: simple({ shortArg: "c", long: { format: "required", printf: "required" } }),
  file: specRule(FILE),
  find: never({ check: checkFind }, "xargs would put its input where find reads paths and actions such as -delete"),
  grep: simple(GREP),
  egrep: simple(GREP),
  fgrep: simple(GREP),
  rg: specRule(RG),
  fd: specRule(FD),
  du: simple({ globValues: true, shortArg: "BdtX", long: { exclude: "required", "exclude-from": "required", "files0-from": "required", "max-depth": "required", threshold: "required", "time-style": "required", "block-size": "required" } }),
  df: simple({ shortArg: "Btx", long: { "block-size": "required", type: "required", "exclude-type": "required" } }),
  sort: specRule(SORT),
  uniq: never({ check: specRule(UNIQ, checkUniq).check }, "input words could become uniq's second operand, an output file it writes"),
  cut: simple({ shortArg: "bcdf", long: { bytes: "required", characters: "required", delimiter: "required", fields: "required", "output-delimiter": "required" } }),
  tr: simple(),
  sed: {
    check: checkSed,
    xargs: (args) => {
      const p = scanOptions("sed", args, SED_SPEC)
      if (isRejected(p)) return -1
      const scripts = p.options.filter((o) => o.name === "-e" || o.name === "--expression").map((o) => o.value?.value ?? "")
      if (scripts.length === 0 && p.operands[0] !== undefined) scripts.push(p.operands[0].value)
      const quiet = p.options.some((o) => o.name === "-n" || o.name === "--quiet" || o.name === "--silent")
      if (!quiet || scripts.some((s) => printOnlyScript(s) !== undefined)) {
        return { never: "xargs would give sed file operands, and with files sed may run only -n with printing commands" }
      }
      return p.closedAt
    }
  },
  jq: specRule(JQ_SPEC, checkJq),
  tree: never({ check: checkTree }, "input words could become tree options, which write files"),
  comm: simple(),
  column: simple({ shortArg: "cdEHlNoOrRsTW" }),
  readlink: simple(),
  od: simple({ shortArg: "AjNStw" }),
  hexdump: simple({ shortArg: "efns" }),
  awk: never({ check: checkAwk }, AWK_UNDER_XARGS),
  gawk: never({ check: checkAwk }, AWK_UNDER_XARGS),
  mawk: never({ check: checkAwk }, AWK_UNDER_XARGS),
  nl: simple({ shortArg: "bdfhilnsvw" }),
  basename: simple({ shortArg: "s", long: { suffix: "required" } }),
  dirname: simple(),
  realpath: simple({ long: { "relative-to": "required", "relative-base": "required" } }),
  echo: { check: () => undefined, xargs: ANY },
  printf: { check: checkPrintf, xargs: ANY },
  pwd: simple(),
  diff: simple({ shortArg: "CDFIlSUWx", long: { "ignore-matching-lines": "required", label: "required", "line-format": "required", "new-line-format": "required", "old-line-format": "required", "unchanged-line-format": "required", "from-file": "required", "to-file": "required", "show-function-line": "required", "starting-file": "required", exclude: "required", "exclude-from": "required", "horizon-lines": "required", ifdef: "required", "tabsize": "required", "width": "required", color: "optional", palette: "required", "unified": "optional", "context": "optional" } }),
  sha256sum: simple(),
  sha1sum: simple(),
  sha224sum: simple(),
  sha384sum: simple(),
  sha512sum: simple(),
  md5sum: simple(),
  b2sum: simple({ shortArg: "l" }),
  cksum: simple({ shortArg: "al" }),
  true: { check: () => undefined, xargs: ANY },
  date: never({ check: specRule(DATE, checkDate).check }, "input words could become an operand that sets the clock"),
  cd: never({ check: specRule(CD, checkCd).check }, "cd is a shell builtin; xargs cannot run it"),
  git: { check: checkGit, xargs: gitOptionsClosedAt },
  docker: { check: checkDocker, xargs: dockerOptionsClosedAt },
  xargs: never({ check: (cmd, args) => checkXargs(cmd, args) }, "`xargs` inside `xargs` is not allowed")
}

export const ALLOWED_COMMANDS: ReadonlyArray<string> = Object.keys(RULES)

const RULE_MAP: ReadonlyMap<string, CommandRule> = new Map(Object.entries(RULES))

export const ruleFor = (name: string): CommandRule | undefined => RULE_MAP.get(name)

/** The reason a command name is not allowed. */
const ALLOWLIST_TEXT = ALLOWED_COMMANDS.filter((c) => c !== "gawk" && c !== "mawk").join(", ")

export const notAllowed = (name: string): string => {
  const why = REJECTION_BY_NAME.get(name)
  if (why !== undefined) return `\`${name}\` ${why}`
  return `\`${name}\` is not on the read-only allowlist (${ALLOWLIST_TEXT})`
}

/** Checks a command name word: static, a bare name, allowlisted. */
export const checkName = (name: Word): string | undefined => {
  const v = name.value
  if (v.length === 0) return "the command name is empty"
  if (name.glob) return `the command name ${show(name)} holds a wildcard`
  if (v.includes("/")) return `\`${v}\`: run commands by name, not by path (a path can point at any program)`
  return ruleFor(v) === undefined ? notAllowed(v) : undefined
}

// ---------------------------------------------------------------------------------------------------------------------
// xargs

const xargsReplacement = (parsed: ParsedArgs): string | undefined => {
  let r: string | undefined
  for (const o of parsed.options) {
    if (o.name === "-I") r = o.value?.value
    else if (o.name === "-i" || o.name === "--replace") r = o.value?.value ?? "{}"
  }
  return r
}

export const checkXargs = (cmd: string, args: ReadonlyArray<Word>): string | undefined => {
  const parsed = scanOptions(cmd, args, XARGS)
  if (isRejected(parsed)) return parsed.reject
  const replace = xargsReplacement(parsed)
  if (replace !== undefined && replace.length === 0) return "`xargs -I` needs a replacement string"
  const name = parsed.operands[0]
  if (name === undefined) return undefined // no command: xargs runs echo
  const cmdIndex = args.indexOf(name)
  const rest = args.slice(cmdIndex + 1)
  if (replace !== undefined && name.value.includes(replace)) {
    return `\`xargs\`: the command name ${show(name)} holds the replacement string \`${replace}\`, so input would choose the program`
  }
  if (name.value === "xargs") return "`xargs` inside `xargs` is not allowed"
  const nameProblem = checkName(name)
  if (nameProblem !== undefined) return `\`xargs\` would run a command that is not allowed: ${nameProblem}`
  const rule = ruleFor(name.value)!
  const fixed = rule.check(name.value, rest)
  if (fixed !== undefined) return `\`xargs\` runs ${fixed}`
  const policy = rule.xargs(rest)
  if (policy === "any") return undefined
  if (typeof policy !== "number") return `\`xargs ${name.value}\`: ${policy.never}`
  if (replace === undefined) {
    if (policy >= 0) return undefined
    return `\`xargs ${name.value}\`: input lines become arguments of ${name.value} and could add an option that writes or runs something; put \`--\` after ${name.value}'s fixed arguments`
  }
  for (let k = 0; k < rest.length; k++) {
    if (!rest[k]!.value.includes(replace)) continue
    if (policy < 0 || k <= policy) {
      return `\`xargs -I ${replace}\`: ${show(rest[k]!)} puts input where ${name.value} still reads options; put \`--\` before it`
    }
  }
  return undefined
}
