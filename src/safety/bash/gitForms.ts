/**
 * The forms of git subcommands that both read and write, cut down to their reading forms: branch and tag only list
 * (an operand only in sure list mode), config only gets and lists, stash only `list` and `show`, and the action-led
 * subcommands (reflog, worktree, notes) only their listed actions. Each form is a check of the parsed words that
 * returns why a command writes, or undefined; the table that uses them is gitSubcommands.ts.
 */
import { hasOption, type ParsedArgs } from "./options.ts"
import { show, type Word } from "./words.ts"

/** A `--no-` option: it may switch off the very option a form relies on (`--list ... --no-list NAME`). */
const negationIn = (parsed: ParsedArgs): ParsedArgs["options"][number] | undefined =>
  parsed.options.find((o) => o.name.startsWith("--no-"))

/**
 * git branch / tag: with no operand they list. An operand is a name to create unless the command is surely in list
 * mode: `--list`/`-l` given as an option (not possibly the value of the option before it), and no `--no-` option
 * anywhere that could switch list mode off again. Filters alone (`-v`, `--merged X`, `-n`) are not proof: in
 * git 2.39 `git branch -v NAME` creates NAME.
 */
export const operandsOnlyWith =
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

export const onlyActions =
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

const CONFIG_READ = ["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "--list", "-l"]

export const configForm = (parsed: ParsedArgs): string | undefined => {
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
export const stashForm = (args: ReadonlyArray<Word>): string | undefined => {
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
