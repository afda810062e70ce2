/**
 * The allowlist: every command a background agent may run on the read-only path, each with the check of its words,
 * and the reasons for the commands that are not on it. `checkName` judges a command name, `ruleFor` gives a name's
 * rule, and `checkXargs` judges xargs by the rule of the command it runs.
 *
 * A rule (commandRule.ts) says whether the fixed words are read-only and how `xargs` may feed it more words. The
 * option specs and word checks of the larger families are in searchRules.ts, find.ts, textRules.ts, systemRules.ts,
 * sed.ts, awk.ts and git.ts / docker.ts; this file binds them to names, in the order the allowlist is shown. find's
 * -exec clauses are judged by the rules here, through `execRule`.
 */
import { checkAwk } from "./awk.ts"
import { ANY, closedAtBy, never, simple, specRule, type CommandRule } from "./commandRule.ts"
import { checkDocker, dockerOptionsClosedAt } from "./docker.ts"
import { checkGit, gitOptionsClosedAt } from "./git.ts"
import { isRejected, scanOptions, type OptionSpec, type ParsedArgs } from "./options.ts"
import { checkFind } from "./find.ts"
import { checkTree, FD, GREP, RG } from "./searchRules.ts"
import { checkSed, sedXargs } from "./sed.ts"
import { CD, checkCd, checkDate, DATE, FILE } from "./systemRules.ts"
import { checkJq, checkPrintf, checkTail, checkUniq, JQ_SPEC, jqXargs, SORT, TAIL, UNIQ } from "./textRules.ts"
import { show, type Word } from "./words.ts"

const AWK_UNDER_XARGS = "input words would become awk operands, and gawk opens operands named /inet/... as network sockets"

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
const RULES: Readonly<Record<string, CommandRule>> = {
  ls: simple({ globValues: true, shortArg: "ITw", long: { hide: "required", ignore: "required", format: "required", sort: "required", time: "required", "time-style": "required", width: "required", tabsize: "required", "block-size": "required", "quoting-style": "required", "indicator-style": "required", color: "optional", hyperlink: "optional" } }),
  cat: simple(),
  head: simple({ shortArg: "nc", long: { lines: "required", bytes: "required" } }),
  // Input words could add -f or a +1f operand: xargs may feed tail only after `--`.
  tail: { check: specRule(TAIL, checkTail).check, xargs: closedAtBy(TAIL) },
  wc: simple({ long: { "files0-from": "required" } }),
  stat: simple({ shortArg: "c", long: { format: "required", printf: "required" } }),
  // Wildcard operands are fine for file (systemRules.ts); xargs input, split at blanks, still goes after `--`.
  file: { check: specRule(FILE).check, xargs: closedAtBy(FILE) },
  find: never({ check: (cmd, args) => checkFind(cmd, args, execRule) }, "xargs would put its input where find reads paths and actions such as -delete"),
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
  sed: { check: checkSed, xargs: sedXargs },
  jq: { check: specRule(JQ_SPEC, checkJq).check, xargs: jqXargs },
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

/** The rule of the command a find -exec clause runs, or why it may not run. */
const execRule = (name: Word): CommandRule | string => checkName(name) ?? ruleFor(name.value)!

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
      return `\`xargs -I ${replace}\`: ${show(rest[k]!)} puts input where ${name.value} still reads options (or its script or program); put \`--\` before it, after any script or program`
    }
  }
  return undefined
}
