/**
 * find: its starting points, its own words, and its `-exec`/`-execdir` clauses, each a command that must be read-only
 * itself. `checkFind` is the rule's check (bound to the allowlist in commands.ts, which passes the lookup of inner
 * commands, so this file does not import the allowlist); `findParts` is also how the read plan (reads.ts) finds the
 * roots a find with clauses reads under.
 *
 * A clause `-exec CMD ARGS... ;` runs CMD once per found file with `{}` replaced by its name (anywhere in a word);
 * `-exec CMD ARGS... {} +` appends many names, like xargs. So the inner command is judged like a command under
 * xargs (commands whose action depends on how many operands they get are refused), with two differences that make it
 * looser: a found name starts with the root it was found under (or `./` under -execdir), and a root never starts
 * with `-` (find reads such a word as an expression), so a name is never an option; and it is one word, never split.
 * What a name can still be is a program (sed's script, jq's program) or a git/docker subcommand or revision: there
 * `{}` must stand where xargs input may. The inner check runs with `{}` replaced by each root, so a root such as
 * `+1f` (tail's follow form) is judged as the names it yields start.
 *
 * Refused: -ok, -okdir (prompt), -delete, -fprint, -fprint0, -fprintf, -fls (write), unquoted wildcards (a file
 * named `;` or `-delete` would change the expression), an inner command that is not read-only, and under -execdir
 * (which runs in each found file's folder) git (another repository's configuration) and `..` in inner words.
 */
import type { CommandRule } from "./commandRule.ts"
import { isRejected, scanOptions } from "./options.ts"
import { SED_SPEC, sedScripts } from "./sed.ts"
import { JQ_SPEC } from "./textRules.ts"
import { show, type Word } from "./words.ts"

const FIND_BAD: Readonly<Record<string, string>> = {
  "-ok": "asks on the terminal before running a command for each file",
  "-okdir": "asks on the terminal before running a command for each file",
  "-delete": "deletes files",
  "-fprint": "writes its output to a file",
  "-fprint0": "writes its output to a file",
  "-fprintf": "writes its output to a file",
  "-fls": "writes its output to a file"
}

export interface ExecClause {
  readonly action: "-exec" | "-execdir"
  /** The command's name and words, without the terminator. */
  readonly command: ReadonlyArray<Word>
  /** Ended by `{} +` (names appended as many operands) rather than `;` (one run per name). */
  readonly batch: boolean
}

export interface FindParts {
  /** Starting points: the words after the global options (-H -L -P -D X -O N) up to the first expression word. */
  readonly roots: ReadonlyArray<Word>
  /** Every word that is not inside a clause's command. */
  readonly own: ReadonlyArray<Word>
  readonly clauses: ReadonlyArray<ExecClause>
}

const isExpressionStart = (v: string): boolean => v.startsWith("-") || v === "(" || v === ")" || v === "!" || v === ","

export const findParts = (args: ReadonlyArray<Word>): FindParts | string => {
  let i = 0
  for (; i < args.length; i++) {
    const v = args[i]!.value
    if (v === "-H" || v === "-L" || v === "-P" || /^-O[0-9]*$/.test(v)) continue
    if (v === "-D") {
      i++
      continue
    }
    break
  }
  const roots: Array<Word> = []
  for (; i < args.length && !isExpressionStart(args[i]!.value); i++) roots.push(args[i]!)
  const own: Array<Word> = args.slice(0, i)
  const clauses: Array<ExecClause> = []
  for (; i < args.length; i++) {
    const w = args[i]!
    own.push(w)
    if (w.value !== "-exec" && w.value !== "-execdir") continue
    // GNU find ends the command at a word `;`, or at `+` right after a word `{}`.
    let end = i + 1
    while (end < args.length && args[end]!.value !== ";" && !(args[end]!.value === "+" && end > i + 1 && args[end - 1]!.value === "{}")) end++
    if (end >= args.length) return `\`${w.value}\` needs a command and an end: \`\\;\` (once per file) or \`{} +\` (many files at once)`
    const command = args.slice(i + 1, end)
    if (command.length === 0) return `\`${w.value}\` needs a command before its end`
    clauses.push({ action: w.value, command, batch: args[end]!.value === "+" })
    own.push(args[end]!)
    i = end
  }
  return { roots, own, clauses }
}

const holds = (w: Word): boolean => w.value.includes("{}")

/** Where `{}` may not stand, beyond what the inner command's own check sees: program and subcommand positions. */
const programPosition = (name: string, words: ReadonlyArray<Word>, rule: CommandRule): string | undefined => {
  if (name === "sed") {
    const p = scanOptions(name, words, SED_SPEC)
    if (!isRejected(p) && sedScripts(p).scripts.some(holds)) return "the found name would be sed's script; give the script literally and `{}` as a file"
  } else if (name === "jq") {
    const p = scanOptions(name, words, JQ_SPEC)
    if (!isRejected(p) && p.operands[0] !== undefined && holds(p.operands[0])) return "the found name would be jq's program; give the program literally and `{}` as a file"
  } else if (name === "git" || name === "docker") {
    const policy = rule.xargs(words)
    const at = typeof policy === "number" ? policy : -1
    if (words.some((w, k) => holds(w) && k <= at) || (at < 0 && words.some(holds))) {
      return `a found name could be read as a ${name} subcommand or revision; put \`--\` before \`{}\``
    }
  }
  return undefined
}

const checkClause = (clause: ExecClause, roots: ReadonlyArray<Word>, lookup: (name: Word) => CommandRule | string): string | undefined => {
  const [name, ...words] = clause.command
  if (holds(name!)) return "the command name would be a found file's name; name the program"
  const rule = lookup(name!)
  if (typeof rule === "string") return rule
  const cmd = name!.value
  if (clause.batch && words.slice(0, -1).some(holds)) return "with `{} +`, `{}` may only stand right before the `+`"
  const position = programPosition(cmd, words, rule)
  if (position !== undefined) return position
  // Judge the words as the names make them: each starts with its root (`./` under -execdir).
  const starts = roots.length === 0 ? ["."] : roots.map((r) => r.value)
  for (const start of starts) {
    const prefix = clause.action === "-execdir" ? `./${start.split("/").filter((s) => s !== "").pop() ?? "."}` : start
    const named = words.map((w) => (holds(w) ? { ...w, value: w.value.replaceAll("{}", prefix), glob: false, leadingGlob: false } : w))
    const problem = rule.check(cmd, named)
    if (problem !== undefined) return problem
  }
  const policy = rule.xargs(words)
  if (typeof policy === "object") return `\`${cmd}\` would get the found names as operands, which is refused as under xargs: ${policy.never}`
  if (clause.action === "-execdir") {
    if (cmd === "git") return "git may not run under -execdir: in a found folder it would read that folder's repository configuration, which can run programs; use -exec"
    const up = words.find((w) => w.value.split("/").includes(".."))
    if (up !== undefined) return `${show(up)} leaves the found file's folder, where -execdir runs the command; name the path from the current directory and use -exec`
  }
  return undefined
}

export const checkFind = (cmd: string, args: ReadonlyArray<Word>, lookup: (name: Word) => CommandRule | string): string | undefined => {
  for (const w of args) {
    if (w.leadingGlob || (w.glob && w.value.startsWith("-"))) {
      return `\`${cmd}\`: ${show(w)} is an unquoted wildcard, which could expand into a find action such as -delete; quote the pattern ('*.md') or write \`./${w.value}\``
    }
  }
  const parts = findParts(args)
  if (typeof parts === "string") return `\`${cmd}\`: ${parts}`
  for (const w of parts.own) {
    const why = Object.hasOwn(FIND_BAD, w.value) ? FIND_BAD[w.value] : undefined
    if (why !== undefined) {
      return `\`${cmd}\`: \`${w.value}\` ${why}; use find to list files (-print, -printf, -ls) or to run a read-only command on them (-exec CMD {} +)`
    }
  }
  for (const clause of parts.clauses) {
    const problem = checkClause(clause, parts.roots, lookup)
    if (problem !== undefined) return `\`${cmd} ${clause.action}\`: ${problem}`
  }
  return undefined
}
