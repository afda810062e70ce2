/**
 * git: read-only queries only.
 *
 * Global options from an allowlist (never `-c`, `--config-env`, `--exec-path`, `-p`/`--paginate`, nor anything that
 * points git at another repository), then a subcommand from the allowlist of gitSubcommands.ts, then that
 * subcommand's words read as git's parse-options reads them (clusters, abbreviations, `--no-` negations, options after
 * operands). Subcommands that both read and write (branch, tag, config, stash, remote, reflog ...) are allowed only in
 * their listing/reading forms (gitForms.ts).
 *
 * The repository's own configuration is trusted, as the spec says ("local Git includes and helper settings do not
 * independently block read-only queries").
 */
import { GIT_SUBCOMMANDS } from "./gitSubcommands.ts"
import { isRejected, scanOptions, type ParsedArgs } from "./options.ts"
import { show, type Word } from "./words.ts"

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
