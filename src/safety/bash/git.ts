/**
 * git and docker: read-only queries only.
 *
 * git: global options from an allowlist (never `-c`, `--config-env`, `--exec-path`, `-p`/`--paginate`), then a
 * subcommand from an allowlist, then that subcommand's words read as git's parse-options reads them (clusters,
 * abbreviations, `--no-` negations, options after operands). Subcommands that both read and write (branch, tag,
 * config, stash, remote, reflog ...) are allowed only in their listing/reading forms.
 *
 * The repository's own configuration is trusted, as the spec says ("local Git includes and helper settings do not
 * independently block read-only queries").
 */
import { hasOption, isRejected, scanOptions, type OptionSpec, type ParsedArgs } from "./options.ts"
import { show, type Word } from "./words.ts"

// ---------------------------------------------------------------------------------------------------------------------
// git

const COMMON_BAD_LONG: Readonly<Record<string, string>> = {
  output: "writes its output to a file",
  "show-signature": "runs gpg to verify signatures",
  help: "opens the manual in a pager or a web browser",
  "ext-diff": "runs an external diff program",
  textconv: "runs text conversion filters (external programs)"
}

interface GitSub {
  readonly spec: OptionSpec
  /** Extra check on the parsed words (forms that write). */
  readonly form?: (parsed: ParsedArgs, args: ReadonlyArray<Word>) => string | undefined
  /** What the subcommand does depends on its operands (a name creates a branch, a second word sets a value): xargs
   *  may not add words to it, and a wildcard operand (which could expand into several) is rejected. */
  readonly operandsDecide?: boolean
}

/**
 * Real git options that are prefixes of forbidden ones (an exact match is that option, not an abbreviation), and
 * common options known to take no separate value, so that a `--` after them surely ends the options (every other
 * unknown option may take the next word, even a `--`, as its value).
 */
const COMMON_LONG: Readonly<Record<string, "none" | "optional">> = {
  text: "none",
  stat: "optional",
  numstat: "none",
  shortstat: "none",
  "name-only": "none",
  "name-status": "none",
  oneline: "none",
  graph: "none",
  all: "none",
  patch: "none",
  cached: "none",
  staged: "none",
  raw: "none",
  summary: "none",
  reverse: "none",
  follow: "none",
  "first-parent": "none",
  merges: "none",
  decorate: "optional",
  "abbrev-commit": "none",
  color: "optional",
  "word-diff": "optional",
  porcelain: "optional",
  short: "none"
}

const sub = (
  spec: Omit<OptionSpec, "negation" | "badLong"> & { readonly badLong?: Record<string, string> },
  form?: GitSub["form"],
  operandsDecide = false
): GitSub => ({
  spec: { ...spec, negation: true, long: { ...COMMON_LONG, ...spec.long }, badLong: { ...COMMON_BAD_LONG, ...spec.badLong } },
  ...(form === undefined ? {} : { form }),
  operandsDecide
})

/** A `--no-` option: it may switch off the very option a form relies on (`--list ... --no-list NAME`). */
const negationIn = (parsed: ParsedArgs): ParsedArgs["options"][number] | undefined =>
  parsed.options.find((o) => o.name.startsWith("--no-"))

/** Log/diff family: short options that take the next word as their value (exactly these: a letter listed here that
 *  git reads as a flag would hide the next word from the checks). */
const LOG_SHORT_ARG = "nLSGO"
/** Log/diff family: short flags and attached-only options (`-M50%`), which never take the next word. Unlisted letters
 *  (`-I`, `-l`) may, so a `--` right after them does not end the options. */
const LOG_SHORT_FLAGS = "0123456789pusztrmcbwWEFiPDRqgaMCBXU"
const LOG: Omit<OptionSpec, "negation" | "badLong"> = { shortArg: LOG_SHORT_ARG, shortFlags: LOG_SHORT_FLAGS }

/**
 * git branch / tag: with no operand they list. An operand is a name to create unless the command is surely in list
 * mode: `--list`/`-l` given as an option (not possibly the value of the option before it), and no `--no-` option
 * anywhere that could switch list mode off again. Filters alone (`-v`, `--merged X`, `-n`) are not proof: in
 * git 2.39 `git branch -v NAME` creates NAME.
 */
const operandsOnlyWith =
  (what: string, listOptions: ReadonlyArray<string>) =>
  (parsed: ParsedArgs): string | undefined => {
    if (parsed.operands.length === 0) return undefined
    const name = parsed.operands[0]!
    if (!hasOption(parsed, ...listOptions)) {
      return `\`git ${what}\` with a name (${show(name)}) creates or changes one; only listing is allowed (add --list to filter by pattern)`
    }
    const negation = negationIn(parsed)
    if (negation !== undefined) {
      return `\`git ${what}\`: ${show(negation.word)} could switch list mode off, and ${show(name)} would then be created; drop the --no- option`
    }
    return undefined
  }

const onlyActions =
  (what: string, allowed: ReadonlyArray<string>, bare: boolean) =>
  (parsed: ParsedArgs): string | undefined => {
    const action = parsed.operands[0]
    if (action === undefined) return bare ? undefined : `\`git ${what}\` needs one of: ${allowed.join(", ")}`
    if (parsed.uncertain.has(action)) {
      return `\`git ${what}\`: ${show(action)} may be the value of the option before it; put options after \`git ${what} ${allowed.join("|")}\``
    }
    if (allowed.includes(action.value)) return undefined
    return `\`git ${what} ${action.value}\` changes the repository; only \`git ${what} ${allowed.join("|")}\` is allowed`
  }

/** Options of git branch and tag that take the next word as their value (--contains also when it is the last word). */
const BRANCH_TAG_VALUES: Readonly<Record<string, "required">> = {
  format: "required",
  sort: "required",
  contains: "required",
  "no-contains": "required",
  merged: "required",
  "no-merged": "required",
  "points-at": "required"
}

const BRANCH_LIST = ["--list", "-l"]
const TAG_LIST = ["--list", "-l"]

const CONFIG_READ = ["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "--list", "-l"]

const configForm = (parsed: ParsedArgs): string | undefined => {
  const negation = negationIn(parsed)
  if (negation !== undefined) return `\`git config\`: ${show(negation.word)} is not allowed (a negation could undo the reading option)`
  if (hasOption(parsed, ...CONFIG_READ)) return undefined
  const first = parsed.operands[0]
  if (first === undefined) return "`git config` needs a name to read, or --list"
  if (parsed.uncertain.has(first)) {
    return `\`git config\`: ${show(first)} may be the value of the option before it; write --name=VALUE`
  }
  if (first.value === "get" || first.value === "list") return undefined
  if (["set", "unset", "rename-section", "remove-section", "edit"].includes(first.value)) {
    return `\`git config ${first.value}\` changes configuration; only reading (get, list, --get, --list) is allowed`
  }
  if (parsed.operands.length === 1) return undefined
  return `\`git config ${first.value} ${parsed.operands[1]!.value}\` sets a value; only reading (get, list, --get, --list) is allowed`
}

/** Words `git stash show` may take: a stash by number or `stash@{N}`, and output formats that show no untracked files. */
const STASH_SHOW_WORD = /^(?:-p|--patch|--stat|--numstat|--shortstat|--name-only|--name-status|--summary|[0-9]{1,4}|stash@\{[0-9]{1,4}\})$/

/**
 * `git stash list` with nothing after it, or `git stash show` with the words above: git stash reads its action only as
 * the very first word (`git stash -m list` pushes a stash and reverts the work tree), and passes everything after
 * `list`/`show` to git log or diff, where `--output`, `-O`, `--ext-diff` and `--` itself (stash list eats it) write
 * files or run programs. `-u`/`--include-untracked`/`--only-untracked` would show untracked files, `.env` among them.
 */
const stashForm = (args: ReadonlyArray<Word>): string | undefined => {
  const [action, ...rest] = args
  const allowed = "only `git stash list` (nothing after it) and `git stash show [-p|--stat|--name-only] [stash@{N}]` are allowed"
  if (action === undefined) return `\`git stash\` alone stashes (reverts) uncommitted work; ${allowed}`
  if (action.value === "list") {
    return rest.length === 0 ? undefined : `\`git stash list\` passes ${show(rest[0]!)} on to git log, where words like \`--output\` write files; ${allowed}`
  }
  if (action.value === "show") {
    const bad = rest.find((w) => w.glob || !STASH_SHOW_WORD.test(w.value))
    return bad === undefined ? undefined : `\`git stash show\`: ${show(bad)} is not one of the words this guard allows there; ${allowed}`
  }
  return `\`git stash ${action.value}\` is not a read of the stash (git stash reads its action only as the first word, and \`git stash -m list\` is a push); ${allowed}`
}

const GIT_SUBCOMMANDS: Readonly<Record<string, GitSub>> = {
  status: sub({ shortOptArg: "uM", shortFlags: "sbvz" }),
  log: sub(LOG),
  show: sub(LOG),
  diff: sub(LOG),
  "diff-tree": sub(LOG),
  "diff-files": sub(LOG),
  "diff-index": sub(LOG),
  "range-diff": sub(LOG),
  whatchanged: sub(LOG),
  // shortlog's own -n is a flag (--numbered), not a count
  shortlog: sub({ shortFlags: "nsec" }),
  blame: sub({ shortArg: "LS" }),
  annotate: sub({ shortArg: "LS" }),
  describe: sub({}),
  "rev-parse": sub({}),
  "rev-list": sub({ shortArg: "n" }),
  "ls-files": sub({ shortArg: "xX" }),
  "ls-tree": sub({}),
  "cat-file": sub({ badLong: { filters: "runs the repository's filter programs" } }),
  grep: sub({
    shortArg: "efABCm",
    shortOptArg: "O",
    badShort: { O: "opens the matching files in a pager" },
    badLong: { "open-files-in-pager": "opens the matching files in a pager" }
  }),
  "for-each-ref": sub({}),
  "show-ref": sub({}),
  "show-branch": sub({}),
  "merge-base": sub({}),
  "name-rev": sub({}),
  "count-objects": sub({}),
  "check-ignore": sub({}),
  "check-attr": sub({}),
  "check-ref-format": sub({}),
  cherry: sub({}),
  var: sub({}),
  version: sub({}),
  branch: sub(
    {
      badShort: {
        d: "deletes a branch",
        D: "deletes a branch",
        m: "renames a branch",
        M: "renames a branch",
        c: "copies a branch",
        C: "copies a branch",
        f: "forces a branch change",
        u: "sets an upstream",
        t: "sets up tracking for a new branch"
      },
      badLong: {
        delete: "deletes a branch",
        move: "renames a branch",
        copy: "copies a branch",
        force: "forces a branch change",
        "set-upstream-to": "sets an upstream",
        "set-upstream": "sets an upstream",
        "unset-upstream": "removes an upstream",
        "edit-description": "opens an editor",
        track: "sets up tracking for a new branch",
        "create-reflog": "creates a reflog",
        "recurse-submodules": "creates branches in submodules"
      },
      shortFlags: "arvqli",
      long: { ...BRANCH_TAG_VALUES, list: "none", all: "none", remotes: "none", verbose: "none", "show-current": "none", "ignore-case": "none", "omit-empty": "none" }
    },
    operandsOnlyWith("branch", BRANCH_LIST),
    true
  ),
  tag: sub(
    {
      shortOptArg: "n",
      badShort: {
        a: "creates an annotated tag",
        s: "creates a signed tag",
        u: "creates a signed tag",
        f: "replaces a tag",
        d: "deletes a tag",
        v: "verifies a tag by running gpg",
        m: "creates a tag with a message",
        F: "creates a tag with a message file",
        e: "opens an editor"
      },
      badLong: {
        annotate: "creates an annotated tag",
        sign: "creates a signed tag",
        "local-user": "creates a signed tag",
        force: "replaces a tag",
        delete: "deletes a tag",
        verify: "verifies a tag by running gpg",
        message: "creates a tag with a message",
        file: "creates a tag with a message file",
        edit: "opens an editor",
        cleanup: "creates a tag",
        "create-reflog": "creates a reflog",
        trailer: "creates a tag"
      },
      shortFlags: "li",
      long: { ...BRANCH_TAG_VALUES, list: "none", "ignore-case": "none", "omit-empty": "none" }
    },
    operandsOnlyWith("tag", TAG_LIST),
    true
  ),
  // `git stash` is cut down to two fixed forms (stashForm): its real grammar turns `git stash -m list` into a push,
  // and `list`/`show` pass every later word on to git log / diff, `--` included (`stash list -- --output=F`).
  stash: { spec: {}, form: (_parsed, args) => stashForm(args), operandsDecide: true },
  // `reflog show` passes its options on to git log: the words after the action are read like log's.
  reflog: sub(LOG, onlyActions("reflog", ["show", "list", "exists"], true), true),
  worktree: sub({}, onlyActions("worktree", ["list"], false), true),
  notes: sub({}, onlyActions("notes", ["list", "show"], true), true),
  remote: sub({}, (parsed) => {
    const action = parsed.operands[0]
    if (action === undefined) return undefined
    if (parsed.uncertain.has(action)) {
      return `\`git remote\`: ${show(action)} may be the value of the option before it; put options after the action`
    }
    if (action.value === "get-url") return undefined
    if (action.value === "show") {
      return hasOption(parsed, "-n")
        ? undefined
        : "`git remote show` contacts the remote over the network; add -n to show only local information"
    }
    return `\`git remote ${action.value}\` changes or contacts a remote; only \`git remote\`, \`-v\`, \`get-url\` and \`show -n\` are allowed`
  }, true),
  config: sub(
    {
      shortArg: "ft",
      shortFlags: "lz",
      long: {
        file: "required",
        blob: "required",
        type: "required",
        default: "required",
        comment: "required",
        get: "none",
        "get-all": "none",
        "get-regexp": "none",
        "get-urlmatch": "none",
        "get-color": "none",
        "get-colorbool": "none",
        list: "none",
        global: "none",
        system: "none",
        local: "none",
        worktree: "none",
        "name-only": "none",
        "show-origin": "none",
        "show-scope": "none",
        includes: "none",
        null: "none"
      },
      badShort: { e: "opens an editor on the configuration" },
      badLong: {
        edit: "opens an editor on the configuration",
        add: "adds a configuration value",
        unset: "removes a configuration value",
        "unset-all": "removes configuration values",
        "replace-all": "replaces configuration values",
        "rename-section": "renames a configuration section",
        "remove-section": "removes a configuration section"
      }
    },
    configForm,
    true
  ),
  "symbolic-ref": sub(
    { badShort: { d: "deletes a symbolic ref", m: "records a reflog message for a change" }, badLong: { delete: "deletes a symbolic ref" } },
    (parsed) =>
      parsed.operands.length <= 1 ? undefined : "`git symbolic-ref NAME REF` changes a ref; only reading (one name) is allowed",
    true
  )
}

/** git's own global options (exact spellings; git does not abbreviate these). */
const GIT_GLOBAL_FLAGS = new Set([
  "-P",
  "--no-pager",
  "--no-replace-objects",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--no-optional-locks",
  "--no-advice",
  "--version",
  "-v",
  "--html-path",
  "--man-path",
  "--info-path"
])
const GIT_GLOBAL_WITH_VALUE = ["--namespace"]

const OTHER_REPOSITORY = "makes git use another repository (or another work tree), whose configuration can run programs (diff drivers, pagers, filters); only the project's own repository is trusted"

const GIT_GLOBAL_BAD: ReadonlyArray<readonly [string, string]> = [
  ["--git-dir", OTHER_REPOSITORY],
  ["--work-tree", OTHER_REPOSITORY],
  ["--bare", OTHER_REPOSITORY],
  ["--attr-source", "reads attributes (which choose filters and diff drivers) from another tree"],
  ["--config-env", "sets configuration, which can name programs to run"],
  ["--exec-path", "changes where git finds the programs it runs"],
  ["--paginate", "runs a pager"],
  ["--help", "opens the manual in a pager or browser"]
]

/** Index of the subcommand in args, or a rejection. */
const gitGlobals = (args: ReadonlyArray<Word>): number | string => {
  let i = 0
  for (; i < args.length; i++) {
    const w = args[i]!
    const v = w.value
    if (!v.startsWith("-")) return i
    if (w.glob) return `\`git\`: option word ${show(w)} holds a wildcard; write the option literally`
    if (GIT_GLOBAL_FLAGS.has(v)) continue
    if (v.startsWith("-C") || (v.length > 1 && v[1] !== "-" && v.includes("C"))) {
      return `\`git\`: option \`-C\` ${OTHER_REPOSITORY}; run git from the project directory`
    }
    if (v.startsWith("-c") || (v.length > 1 && v[1] !== "-" && v.includes("c"))) {
      return `\`git\`: option \`-c\` sets configuration, which can name programs to run${v === "-c" ? "" : ` (in ${show(w)})`}`
    }
    if (v === "-p" || (v.length > 1 && v[1] !== "-" && v.includes("p"))) {
      return `\`git\`: option \`-p\` runs a pager${v === "-p" ? "" : ` (in ${show(w)})`}`
    }
    if (v === "-h") return "`git -h` opens help; ask for a specific subcommand instead"
    const name = v.split("=")[0]!
    for (const [bad, why] of GIT_GLOBAL_BAD) {
      if (name.length > 2 && (bad.startsWith(name) || name === bad)) return `\`git\`: option \`${bad}\` ${why}${v === bad ? "" : ` (in ${show(w)})`}`
    }
    const withValue = GIT_GLOBAL_WITH_VALUE.find((o) => name === o)
    if (withValue !== undefined) {
      if (!v.includes("=")) i++
      continue
    }
    return `\`git\`: global option ${show(w)} is not one this guard knows to be read-only`
  }
  return i
}

export const GIT_READ_ONLY = Object.keys(GIT_SUBCOMMANDS)
const GIT_ALLOWED_TEXT = GIT_READ_ONLY.join(", ")

const parseGit = (
  args: ReadonlyArray<Word>
): { readonly index: number; readonly parsed: ParsedArgs | undefined } | string => {
  const index = gitGlobals(args)
  if (typeof index === "string") return index
  const name = args[index]
  if (name === undefined) return { index, parsed: undefined }
  const entry = Object.hasOwn(GIT_SUBCOMMANDS, name.value) ? GIT_SUBCOMMANDS[name.value] : undefined
  if (entry === undefined) {
    return `\`git ${name.value}\` is not a read-only git query; allowed: ${GIT_ALLOWED_TEXT} (branch, tag, config, stash, remote, reflog, worktree and notes only in their listing forms)`
  }
  const rest = args.slice(index + 1)
  for (const w of rest) {
    if (/stash/i.test(w.value) && /\^(?:[3-9]|@|!|\{)/.test(w.value)) {
      return `\`git ${name.value}\`: ${show(w)} names the stash's third parent, the commit of untracked files (\`.env\` among them); leave it out`
    }
    if (w.value.includes("%G") || w.value.includes("%(signature")) {
      return `\`git ${name.value}\`: ${show(w)} asks for signature details (\`%G...\`, \`%(signature)\`), which runs gpg; leave them out of the format`
    }
  }
  const parsed = scanOptions(`git ${name.value}`, rest, entry.spec)
  if (isRejected(parsed)) return parsed.reject
  if (entry.operandsDecide === true) {
    const g = parsed.operands.find((w) => w.glob)
    if (g !== undefined) {
      return `\`git ${name.value}\`: ${show(g)} is a wildcard, which could expand into several words, and the number of words decides what git ${name.value} does; quote it`
    }
  }
  const problem = entry.form?.(parsed, rest)
  if (problem !== undefined) return problem
  return { index, parsed }
}

export const checkGit = (_cmd: string, args: ReadonlyArray<Word>): string | undefined => {
  const r = parseGit(args)
  return typeof r === "string" ? r : undefined
}

/** For xargs: the index in args after which appended words can no longer be options, -1 when they always can, or
 *  the reason xargs may never add words (subcommands whose action depends on how many operands they get). */
export const gitOptionsClosedAt = (args: ReadonlyArray<Word>): number | { readonly never: string } => {
  const r = parseGit(args)
  if (typeof r === "string") return -1
  const name = args[r.index]
  if (name === undefined) return { never: "xargs would choose the git subcommand" }
  const entry = GIT_SUBCOMMANDS[name.value]
  if (entry?.operandsDecide === true) {
    return { never: `what \`git ${name.value}\` does depends on how many words it gets (an extra word turns a read into a write)` }
  }
  if (r.parsed === undefined || r.parsed.closedAt < 0) return -1
  return r.index + 1 + r.parsed.closedAt
}

// ---------------------------------------------------------------------------------------------------------------------
// docker

const DOCKER_TOP: Readonly<Record<string, ReadonlyArray<string> | null>> = {
  ps: null,
  images: null,
  inspect: null,
  logs: null,
  version: null,
  info: null,
  top: null,
  port: null,
  history: null,
  diff: null,
  stats: null,
  image: ["ls", "list", "inspect", "history"],
  container: ["ls", "list", "ps", "inspect", "logs", "top", "port", "diff", "stats"],
  network: ["ls", "list", "inspect"],
  volume: ["ls", "list", "inspect"],
  context: ["ls", "list", "inspect", "show"],
  system: ["df", "info"]
}

const DOCKER_SPEC: OptionSpec = {
  shortArg: "fn",
  badLong: { follow: "follows the log forever" },
  risky: true
}

const parseDocker = (args: ReadonlyArray<Word>): { readonly offset: number; readonly parsed: ParsedArgs } | string => {
  let i = 0
  for (; i < args.length; i++) {
    const v = args[i]!.value
    if (!v.startsWith("-")) break
    if (v === "-D" || v === "--debug") continue
    if (v === "-l" || v === "--log-level") {
      i++
      continue
    }
    if (v.startsWith("--log-level=")) continue
    return `\`docker\`: global option ${show(args[i]!)} is not allowed (it can point docker at another daemon, configuration or plugins); only -D and --log-level are`
  }
  const top = args[i]
  if (top === undefined) return "`docker` needs a query such as `docker ps`"
  const subs = Object.hasOwn(DOCKER_TOP, top.value) ? DOCKER_TOP[top.value] : undefined
  if (subs === undefined) {
    return `\`docker ${top.value}\` is not an allowed read-only query; allowed: ps, images, inspect, logs, version, info, top, port, history, diff, stats --no-stream, and the ls/inspect forms of image, container, network, volume, context, system df`
  }
  let verb = top.value
  let offset = i + 1
  if (subs !== null) {
    const s = args[i + 1]
    if (s === undefined || !subs.includes(s.value)) {
      return `\`docker ${top.value}${s === undefined ? "" : ` ${s.value}`}\` is not read-only; allowed: docker ${top.value} ${subs.join("|")}`
    }
    verb = s.value
    offset = i + 2
  }
  const spec: OptionSpec =
    verb === "logs" ? { ...DOCKER_SPEC, shortArg: "n", badShort: { f: "follows the log forever" } } : DOCKER_SPEC
  const parsed = scanOptions(`docker ${verb}`, args.slice(offset), spec)
  if (isRejected(parsed)) return parsed.reject
  if (verb === "stats" && !hasOption(parsed, "--no-stream")) {
    return "`docker stats` streams forever; add --no-stream"
  }
  return { offset, parsed }
}

export const checkDocker = (_cmd: string, args: ReadonlyArray<Word>): string | undefined => {
  const r = parseDocker(args)
  return typeof r === "string" ? r : undefined
}

/** For xargs: the index in args after which appended words can no longer be options (a `--` that surely ends them), or -1. */
export const dockerOptionsClosedAt = (args: ReadonlyArray<Word>): number => {
  const r = parseDocker(args)
  return typeof r === "string" || r.parsed.closedAt < 0 ? -1 : r.offset + r.parsed.closedAt
}
