/**
 * The git subcommands the guard allows, each with the option spec its words are read by (as git's parse-options
 * reads them: clusters, abbreviations, `--no-` negations) and, for those that can also write, the form check of
 * gitForms.ts. Options common to every subcommand that write files or run programs (`--output`, `--ext-diff`,
 * `--textconv` ...) are refused everywhere. Data only: git.ts reads the global options and applies the table.
 */
import { configForm, onlyActions, operandsOnlyWith, stashForm } from "./gitForms.ts"
import { hasOption, type OptionSpec, type ParsedArgs } from "./options.ts"
import { show, type Word } from "./words.ts"

const COMMON_BAD_LONG: Readonly<Record<string, string>> = {
  output: "writes its output to a file",
  "show-signature": "runs gpg to verify signatures",
  help: "opens the manual in a pager or a web browser",
  "ext-diff": "runs an external diff program",
  textconv: "runs text conversion filters (external programs)"
}

export interface GitSub {
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

/** Log/diff family: short options that take the next word as their value (exactly these: a letter listed here that
 *  git reads as a flag would hide the next word from the checks). */
const LOG_SHORT_ARG = "nLSGO"
/** Log/diff family: short flags and attached-only options (`-M50%`), which never take the next word. Unlisted letters
 *  (`-I`, `-l`) may, so a `--` right after them does not end the options. */
const LOG_SHORT_FLAGS = "0123456789pusztrmcbwWEFiPDRqgaMCBXU"
const LOG: Omit<OptionSpec, "negation" | "badLong"> = { shortArg: LOG_SHORT_ARG, shortFlags: LOG_SHORT_FLAGS }

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

export const GIT_SUBCOMMANDS: Readonly<Record<string, GitSub>> = {
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
