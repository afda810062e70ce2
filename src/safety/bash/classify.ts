/**
 * Classification of one background bash command over its tree-sitter-bash syntax tree:
 *
 * - `delete`: a lone plain `rm [-f|--force] [--] TARGET...` whose targets are static absolute `.md` paths inside the
 *   memory directory and outside its protected (dot) subdirectories. The executor removes exactly `targets`.
 * - `read-only`: every command is on the allowlist with read-only arguments, joined only by `&&`, `||`, `;` and
 *   pipes, with harmless redirections and display/locale variables.
 * - `rejected`: anything else, with a reason naming the word and the rule.
 *
 * Pure: the caller parses (see layers/safety/BashGuard.ts) and passes the copied tree.
 */
import * as posix from "node:path/posix"
import { checkName, ruleFor } from "./commands.ts"
import { prescan } from "./prescan.ts"
import { readPlan, type ReadPlan } from "./reads.ts"
import type { BashNode } from "./tree.ts"
import { isDynamic, joinWords, resolveWord, show, type Word } from "./words.ts"

export interface ClassifyContext {
  /** The memory directory (absolute). Without it nothing can be deleted. */
  readonly memoryDir?: string | undefined
  /** The working directory the command runs in; used to suggest absolute paths. */
  readonly cwd: string
  /**
   * Also work out what a read-only command may open (`reads` on the verdict), with `~` as this home directory: the
   * background shell checks those paths against the protected list.
   */
  readonly reads?: { readonly home: string } | undefined
  /** Asked now and then during a long classification: true once its CPU budget is spent (the command is rejected). */
  readonly overBudget?: (() => boolean) | undefined
}

/** The rejection of a command whose checking ran past its budget. */
export const OVER_BUDGET = "the command is too large or too complex to check in its time budget; split it into smaller commands"

export interface DeleteVerdict {
  readonly verdict: "delete"
  /** Absolute, normalized paths inside the memory directory, without duplicates, in command order. */
  readonly targets: ReadonlyArray<string>
  /** `-f`/`--force`: a missing target is not an error. */
  readonly force: boolean
}

export type Verdict =
  | {
    readonly verdict: "read-only"
    /** With `reads` in the context: what the command may open. */
    readonly reads?: ReadPlan
    /** The text to run, when it differs from the command (a trailing comment removed). */
    readonly run?: string
  }
  | DeleteVerdict
  | { readonly verdict: "rejected"; readonly reason: string }

export const READ_ONLY: Verdict = { verdict: "read-only" }
export const rejected = (reason: string): Verdict => ({ verdict: "rejected", reason })

/** Commands longer than this are rejected before parsing. */
export const MAX_COMMAND_LENGTH = 1_048_576

// ---------------------------------------------------------------------------------------------------------------------
// Pre-parse checks

/** Checks on the raw text, before parsing. Returns a reason or undefined. */
export const precheck = (source: string, comment?: { cut: number }): string | undefined => {
  if (source.length > MAX_COMMAND_LENGTH) return `the command is longer than ${MAX_COMMAND_LENGTH} characters`
  if (!/\S/.test(source)) return "the command is empty"
  if (source.includes("\0")) return "the command holds a NUL character"
  if (source.includes("$\\") && /\$\\\r?\n/.test(source)) {
    return "a `$` followed by a line continuation (`$\\` at the end of a line) hides an expansion; join the line"
  }
  return prescan(source, undefined, comment)
}

const COMMENT_REASON = "comments are not allowed (the guard's parser and bash can disagree on where one starts or ends)"

const snippet = (source: string, start: number, end: number): string => {
  const s = source.slice(Math.max(0, start - 10), Math.min(source.length, Math.max(end, start + 1) + 10))
  return s.replace(/\n/g, "\\n")
}

/** The first ERROR or MISSING node, for a syntax error message. */
export const syntaxErrorReason = (source: string, root: BashNode): string => {
  const stack: Array<BashNode> = [root]
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n.type === "ERROR") return `syntax error near \`${snippet(source, n.start, n.end)}\``
    if (n.missing) return `syntax error: \`${n.type}\` is missing near \`${snippet(source, n.start, n.end)}\``
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!)
  }
  return "syntax error"
}

// ---------------------------------------------------------------------------------------------------------------------
// Line breaks tree-sitter-bash merged into a command

/** Offset of the first newline in source[from, to) that is not a backslash continuation, or -1. */
const bareNewlineAt = (source: string, from: number, to: number): number => {
  // A bounded loop: indexOf would scan past `to` to the next newline, which is quadratic over many gaps.
  for (let i = from; i < to; i++) {
    if (source.charCodeAt(i) === 10 && source[i - 1] !== "\\") return i
  }
  return -1
}

const LINE_SCOPED = new Set(["command", "redirected_statement", "file_redirect"])

/**
 * Newlines the parser read as part of a command although bash ends the command there (tree-sitter-bash sometimes
 * reads `... |& cut -f1<newline>head x` as one `cut` with more words, without an ERROR). Replacing each with `;` gives
 * a command bash reads the same way, which the caller parses again. Only called when the source holds a newline.
 */
export const mergedLineBreaks = (source: string, root: BashNode): ReadonlyArray<number> => {
  const found: Array<number> = []
  const stack: Array<BashNode> = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    const kids = node.children
    if (LINE_SCOPED.has(node.type)) {
      for (let i = 1; i < kids.length; i++) {
        const at = bareNewlineAt(source, kids[i - 1]!.end, kids[i]!.start)
        if (at >= 0) found.push(at)
      }
    } else if (node.type === "list" || node.type === "pipeline") {
      let prev: BashNode | undefined
      for (const kid of kids) {
        if (kid.type === "comment") continue
        if (kid.named && prev !== undefined && prev.named) {
          const at = bareNewlineAt(source, prev.end, kid.start)
          if (at >= 0) found.push(at)
        }
        prev = kid
      }
    }
    for (const kid of kids) if (kid.children.length > 0) stack.push(kid)
  }
  return found
}

// ---------------------------------------------------------------------------------------------------------------------
// Words of one command

const REDIRECTS = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"])

interface CommandParts {
  readonly words: ReadonlyArray<Word>
  readonly assignments: ReadonlyArray<BashNode>
  readonly redirects: ReadonlyArray<BashNode>
}


/** A newline that is not part of a backslash-newline continuation. */
const hasBareNewline = (gap: string): boolean => {
  for (let i = gap.indexOf("\n"); i >= 0; i = gap.indexOf("\n", i + 1)) {
    if (gap[i - 1] !== "\\") return true
  }
  return false
}

/**
 * tree-sitter-bash sometimes recovers from an ambiguity by reading the next line as more words of the current command
 * (`... | echo a<newline>rm -rf /` as one echo), without an ERROR node. In bash a bare newline always ends a simple
 * command or redirection, so one between a node's children means the tree does not match what bash will run.
 */
const newlineInside = (source: string, node: BashNode): string | undefined => {
  const kids = node.children
  for (let i = 1; i < kids.length; i++) {
    const gap = source.slice(kids[i - 1]!.end, kids[i]!.start)
    if (gap.length > 0 && hasBareNewline(gap)) {
      const next = source.slice(kids[i]!.start, Math.min(kids[i]!.end, kids[i]!.start + 40))
      return `the line break before \`${next}\` was read as part of the previous command, which is not how bash reads it; join the commands with && or ; on one line`
    }
  }
  return undefined
}

const GAP_EMPTY = 0
const GAP_CONTINUATION = 1
const GAP_BLANK = 2
const GAP_NEWLINE = 3

/**
 * What lies between two sibling nodes, scanned without slicing: nothing (the words touch), only backslash-newline
 * continuations (they form one word in bash), blanks, or a bare newline (bash ends the command there).
 */
const gapKind = (source: string, from: number, to: number): number => {
  if (from >= to) return GAP_EMPTY
  let onlyContinuations = true
  for (let i = from; i < to; i++) {
    const c = source.charCodeAt(i)
    if (c === 92 /* \\ */ && source.charCodeAt(i + 1) === 10 && i + 1 < to) {
      i++
      continue
    }
    onlyContinuations = false
    if (c === 10) return GAP_NEWLINE
  }
  return onlyContinuations ? GAP_CONTINUATION : GAP_BLANK
}

/** Splits a `command` node into resolved words (name first), assignments and redirects. */
export const commandParts = (source: string, node: BashNode): CommandParts | string => {
  const words: Array<Word> = []
  const assignments: Array<BashNode> = []
  const redirects: Array<BashNode> = []
  let prev: BashNode | undefined
  let prevWasWord = false
  for (const child of node.children) {
    if (child.type === "comment") return COMMENT_REASON
    const isRedirect = REDIRECTS.has(child.type)
    const isAssignment = child.type === "variable_assignment"
    const isWord = !isRedirect && !isAssignment
    const gap = prev === undefined ? GAP_BLANK : gapKind(source, prev.end, child.start)
    if (gap === GAP_NEWLINE) return newlineInside(source, node) ?? "a line break inside a command could not be read"
    if (prev !== undefined) {
      if (gap === GAP_CONTINUATION && !(prevWasWord && isWord)) {
        return `a line continuation joins \`${source.slice(prev.start, prev.end)}\` and \`${source.slice(child.start, child.end)}\` into one word; remove the backslash-newline`
      }
      if (gap === GAP_EMPTY && prevWasWord && isWord) {
        return `\`${source.slice(prev.start, child.end)}\` runs two words together in a way the guard cannot read; quote the whole word with '...'`
      }
    }
    if (isRedirect) redirects.push(child)
    else if (isAssignment) assignments.push(child)
    else {
      const target = child.type === "command_name" && child.children.length === 1 ? child.children[0]! : child
      const w = target.type === "command_name" ? resolveWord(source, { ...target, type: "concatenation" }) : resolveWord(source, target)
      if (isDynamic(w)) return w.reject
      if (prevWasWord && gap === GAP_CONTINUATION) {
        // bash removes the continuation before it reads the word, so the joined word gets brace and tilde expansion
        // as a whole; the checks ran on the halves. Braces or a leading ~ in either half: rejected.
        const first = words[words.length - 1]!
        if (/[{}]/.test(first.raw) || /[{}]/.test(w.raw) || w.tilde) {
          return `a line continuation splits \`${first.raw}\` from \`${w.raw}\`, and bash expands the joined word (braces, ~) as a whole; join the line`
        }
        words[words.length - 1] = joinWords(first, w)
      } else words.push(w)
    }
    prev = child
    prevWasWord = isWord
  }
  return { words, assignments, redirects }
}

// ---------------------------------------------------------------------------------------------------------------------
// Environment assignments

const LOCALE_VALUE = /^[A-Za-z0-9_.@:-]*$/
const TZ_VALUE = /^[A-Za-z0-9_.+:/,<>-]*$/
const NUMBER_VALUE = /^[0-9]*$/
const DISPLAY_VALUE = /^[A-Za-z0-9_.,:;=+-]*$/

const SAFE_VARIABLES: ReadonlyMap<string, RegExp> = new Map([
  ["LANG", LOCALE_VALUE],
  ["LANGUAGE", LOCALE_VALUE],
  ["TZ", TZ_VALUE],
  ["NO_COLOR", DISPLAY_VALUE],
  ["TERM", DISPLAY_VALUE],
  ["COLORTERM", DISPLAY_VALUE],
  ["COLUMNS", NUMBER_VALUE],
  ["LINES", NUMBER_VALUE],
  ["RUST_BACKTRACE", DISPLAY_VALUE],
  ["NODE_ENV", DISPLAY_VALUE],
  ["CLICOLOR", DISPLAY_VALUE],
  ["CLICOLOR_FORCE", DISPLAY_VALUE],
  ["FORCE_COLOR", DISPLAY_VALUE],
  ["GREP_COLOR", DISPLAY_VALUE],
  ["GREP_COLORS", DISPLAY_VALUE],
  ["LS_COLORS", DISPLAY_VALUE],
  ["TIME_STYLE", DISPLAY_VALUE],
  ["QUOTING_STYLE", DISPLAY_VALUE]
])

export const SAFE_VARIABLE_NAMES: ReadonlyArray<string> = [...SAFE_VARIABLES.keys(), "LC_*"]

const unsafeVariableReason = (name: string): string => {
  if (name === "PATH") return "changes where programs are found"
  if (name.startsWith("LD_") || name.startsWith("DYLD_")) return "makes programs load other libraries"
  if (name.startsWith("GIT_")) return "changes what git runs or which repository and configuration it reads"
  if (name === "PAGER" || name.endsWith("_PAGER") || name === "EDITOR" || name === "VISUAL" || name.endsWith("_EDITOR")) {
    return "names a program to run"
  }
  if (["NODE_OPTIONS", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "BASH_CMDS", "BASH_ALIASES", "PS4", "PROMPT_COMMAND", "IFS", "CDPATH", "GLOBIGNORE", "PYTHONPATH", "PYTHONSTARTUP", "PERL5OPT", "PERL5LIB", "RUBYOPT"].includes(name)) {
    return "changes how the shell or a program loads and runs code"
  }
  if (name === "HOME" || name.startsWith("XDG_")) return "makes programs read their configuration from elsewhere"
  return "is not a display or locale variable"
}

const checkAssignment = (source: string, node: BashNode): string | undefined => {
  const nameNode = node.children[0]
  if (nameNode === undefined || nameNode.type !== "variable_name") {
    return `\`${source.slice(node.start, node.end)}\` is not a plain VARIABLE=value assignment`
  }
  const name = source.slice(nameNode.start, nameNode.end)
  const pattern = name.startsWith("LC_") ? LOCALE_VALUE : SAFE_VARIABLES.get(name)
  if (pattern === undefined) {
    return `setting \`${name}\` ${unsafeVariableReason(name)}; only display and locale variables may be set (${SAFE_VARIABLE_NAMES.join(", ")})`
  }
  let value = ""
  for (const child of node.children.slice(1)) {
    if (!child.named) continue
    const w = resolveWord(source, child)
    if (isDynamic(w)) return w.reject
    if (w.glob) return `the value of \`${name}\` holds a wildcard`
    value += w.value
  }
  if (!pattern.test(value)) return `\`${name}=${value}\` is not a plain value for ${name}`
  return undefined
}

// ---------------------------------------------------------------------------------------------------------------------
// Redirections

const isNetworkPath = (p: string): boolean => {
  const n = p.replace(/\/+/g, "/")
  return n.startsWith("/dev/tcp") || n.startsWith("/dev/udp")
}

const checkRedirect = (source: string, node: BashNode): string | undefined => {
  if (node.type === "heredoc_redirect") {
    return "here-documents (<<) are not allowed; pipe the text in with echo or printf instead"
  }
  if (node.type === "herestring_redirect") return "here-strings (<<<) are not allowed; pipe the text in with echo or printf instead"
  const broken = newlineInside(source, node)
  if (broken !== undefined) return broken
  const raw = source.slice(node.start, node.end)
  // The character bash sees right before the operator: line continuations are removed before bash reads tokens.
  let at = node.start - 1
  while (at >= 1 && source.charCodeAt(at) === 10 && source.charCodeAt(at - 1) === 92) at -= 2
  const before = at >= 0 ? source.charCodeAt(at) : 0
  if (before === 125 /* } */ && at !== node.start - 1) {
    return `\`{name}${raw}\` assigns a file descriptor to a shell variable; write the redirection without {name}`
  }
  if (before >= 48 && before <= 57 && !(node.children[0]?.type === "file_descriptor")) {
    // `cat 0< f`: bash reads the digits touching the operator as the descriptor; the parser made them an argument.
    return `the number touching the redirection \`${raw}\` is read by bash as a file descriptor, not as an argument; put a space between them, or drop the number`
  }
  if (node.start > 0 && source[node.start - 1] === "}") {
    return `\`{name}${raw}\` assigns a file descriptor to a shell variable; write the redirection without {name}`
  }
  let op = ""
  const destinations: Array<BashNode> = []
  for (const child of node.children) {
    if (!child.named) op = child.type
    else if (child.type !== "file_descriptor") destinations.push(child)
  }
  if (destinations.length > 1) {
    const extra = source.slice(destinations[1]!.start, destinations[1]!.end)
    return `\`${extra}\` after the redirection \`${source.slice(node.start, destinations[0]!.end)}\` is an argument of the command; put redirections after all arguments`
  }
  const destNode = destinations[0]
  if (destNode === undefined) {
    if (op === ">&-" || op === "<&-") return undefined
    return `the redirection \`${raw}\` is not allowed`
  }
  const dest = resolveWord(source, destNode)
  if (isDynamic(dest)) return dest.reject
  const target = dest.value
  if (isNetworkPath(target)) return `\`${raw}\` opens a network connection (${target})`
  const fdCopy = /^[0-9]+-?$|^-$/.test(target)
  switch (op) {
    case "<":
      return undefined
    case "<&":
      return fdCopy ? undefined : `the redirection \`${raw}\` is not a file descriptor copy`
    case ">&":
      if (fdCopy) return undefined
      return target === "/dev/null" && !dest.glob ? undefined : `\`${raw}\` writes to a file; only /dev/null and descriptor copies such as 2>&1 are allowed`
    case ">":
    case ">>":
    case "&>":
    case "&>>":
    case ">|":
      if (target === "/dev/null" && !dest.glob) return undefined
      return `\`${raw}\` writes to a file; output may only go to /dev/null or be copied between descriptors (2>&1)`
    default:
      return `the redirection \`${raw}\` is not allowed; only input from a file, output to /dev/null and descriptor copies (2>&1) are`
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Read-only path

export const STRUCTURE_REASONS: Readonly<Record<string, string>> = {
  subshell: "( ... ) subshells are not allowed; run the commands directly, joined with && or ;",
  compound_statement: "{ ...; } groups are not allowed; run the commands directly, joined with && or ;",
  function_definition: "function definitions are not allowed",
  negated_command: "`!` negation is not allowed; run the command plainly",
  if_statement: "if statements are not allowed; run single commands joined with && or ||",
  while_statement: "while/until loops are not allowed; run single commands joined with && or ||",
  for_statement: "for loops are not allowed; list the words explicitly or use xargs",
  c_style_for_statement: "for loops are not allowed",
  case_statement: "case statements are not allowed",
  test_command: "[[ ... ]] / [ ... ] tests are not allowed; use the commands' own output",
  declaration_command: "declare/export/local/readonly/typeset change shell variables and are not allowed",
  unset_command: "unset changes shell variables and is not allowed",
  ERROR: "syntax error"
}

/** Programs seen so far in one input, for rules that span commands. */
interface Seen {
  cd: boolean
  git: boolean
}

const GIT_AFTER_CD =
  "git may not run in the same command as cd: in another directory git would read that repository's configuration, which can run programs; only the project's own repository is trusted (run git in a command of its own, from the project directory)"

const checkCommand = (source: string, node: BashNode, seen: Seen): string | undefined => {
  const parts = commandParts(source, node)
  if (typeof parts === "string") return parts
  for (const r of parts.redirects) {
    const problem = checkRedirect(source, r)
    if (problem !== undefined) return problem
  }
  for (const a of parts.assignments) {
    const problem = checkAssignment(source, a)
    if (problem !== undefined) return problem
  }
  const name = parts.words[0]
  if (name === undefined) return "a redirection or assignment without a command is not allowed"
  const nameProblem = checkName(name)
  if (nameProblem !== undefined) return nameProblem
  if (name.value === "cd") seen.cd = true
  // xargs may run git too; any word `git` among its words counts.
  if (name.value === "git" || (name.value === "xargs" && parts.words.some((w) => w.value === "git"))) seen.git = true
  if (seen.cd && seen.git) return GIT_AFTER_CD
  return ruleFor(name.value)!.check(name.value, parts.words.slice(1))
}

/** Checks every statement under the program. Iterative: lists can nest thousands deep. */
const checkReadOnly = (source: string, root: BashNode, overBudget?: () => boolean): string | undefined => {
  let visited = 0
  const seen: Seen = { cd: false, git: false }
  const stack: Array<BashNode> = []
  for (let i = root.children.length - 1; i >= 0; i--) {
    const child = root.children[i]!
    if (child.type === "comment") return COMMENT_REASON
    if (!child.named) {
      if (child.type === ";") continue
      if (child.type === "&") return "`&` runs a command in the background, which is not allowed; use && or ;"
      return `\`${child.type}\` is not allowed here`
    }
    stack.push(child)
  }
  while (stack.length > 0) {
    const node = stack.pop()!
    if (overBudget !== undefined && (++visited & 1023) === 0 && overBudget()) return OVER_BUDGET
    switch (node.type) {
      case "command": {
        const problem = checkCommand(source, node, seen)
        if (problem !== undefined) return problem
        break
      }
      case "list":
      case "pipeline": {
        let expectOperand = false
        for (let i = node.children.length - 1; i >= 0; i--) {
          const child = node.children[i]!
          if (child.type === "comment") return COMMENT_REASON
          if (child.named) {
            // Operands and operators must alternate; two commands side by side mean the parser merged lines.
            if (expectOperand) return newlineInside(source, node) ?? "two commands follow each other without an operator"
            expectOperand = true
            stack.push(child)
            continue
          }
          expectOperand = false
          const t = child.type
          if (t === "&&" || t === "||" || t === "|" || t === "|&") continue
          if (t === "&") return "`&` runs a command in the background, which is not allowed; use && or ;"
          return `\`${t}\` is not allowed here`
        }
        break
      }
      case "redirected_statement": {
        const broken = newlineInside(source, node)
        if (broken !== undefined) return broken
        for (let i = node.children.length - 1; i >= 0; i--) {
          const child = node.children[i]!
          if (child.type === "comment") return COMMENT_REASON
          if (!child.named) continue
          if (REDIRECTS.has(child.type)) {
            const problem = checkRedirect(source, child)
            if (problem !== undefined) return problem
          } else stack.push(child)
        }
        break
      }
      case "variable_assignment": {
        const problem = checkAssignment(source, node)
        if (problem !== undefined) return problem
        break
      }
      case "variable_assignments": {
        for (const child of node.children) {
          if (child.type !== "variable_assignment") continue
          const problem = checkAssignment(source, child)
          if (problem !== undefined) return problem
        }
        break
      }
      default: {
        const reason = STRUCTURE_REASONS[node.type]
        if (reason !== undefined) {
          if (node.type === "while_statement" && source.startsWith("until", node.start)) {
            return "until loops are not allowed; run single commands joined with && or ||"
          }
          if (node.type === "for_statement" && source.startsWith("select", node.start)) return "select loops are not allowed"
          if (source.startsWith("((", node.start)) return "(( )) arithmetic commands are not allowed"
          return reason
        }
        return `\`${snippet(source, node.start, node.end)}\` (${node.type}) is shell syntax the guard does not allow`
      }
    }
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------------------------------
// Delete path

const WILDCARD = /[*?[\]]/

/** A normalized absolute path inside memoryDir, or the reason it cannot be deleted. */
export const checkDeleteTarget = (
  w: Word,
  memoryDir: string,
  cwd: string
): { readonly path: string } | { readonly reject: string } => {
  const v = w.value
  const reject = (why: string) => ({ reject: why })
  if (w.tilde) return reject(`rm target ${show(w)} starts with \`~\`, which expands at run time; write the absolute path`)
  if (/[\u0000-\u001f\u007f]/.test(v)) return reject(`rm target ${show(w)} holds a control character`)
  if (w.glob || WILDCARD.test(v)) return reject(`rm target ${show(w)} holds a wildcard; name each file by its absolute path`)
  if (!v.startsWith("/")) {
    return reject(`rm target ${show(w)} is relative; write the absolute path (${posix.resolve(cwd, v)})`)
  }
  if (v.endsWith("/")) return reject(`rm target ${show(w)} names a directory; only .md files can be deleted`)
  const segments = v.split("/").filter((s) => s.length > 0)
  if (segments.some((s) => s === "." || s === "..")) {
    return reject(`rm target ${show(w)} has a \`.\` or \`..\` segment; write the plain absolute path`)
  }
  const path = "/" + segments.join("/")
  const root = posix.resolve(cwd, memoryDir)
  const prefix = root === "/" ? "/" : `${root}/`
  if (path === root) return reject(`rm target ${show(w)} is the memory directory itself; only .md files in it can be deleted`)
  if (!path.startsWith(prefix)) {
    return reject(`rm target ${show(w)} is outside the memory directory ${root}; only memory files can be deleted`)
  }
  const inside = path.slice(prefix.length).split("/")
  const hidden = inside.find((s) => s.startsWith("."))
  if (hidden !== undefined) {
    return reject(`rm target ${show(w)} is in the protected \`${hidden}\` part of the memory directory (any name starting with "."), which cannot be deleted`)
  }
  const base = inside[inside.length - 1]!
  if (!base.endsWith(".md") || base.length <= 3) {
    return reject(`rm target ${show(w)} is not a .md file (lowercase extension); only memory topic files can be deleted`)
  }
  return { path }
}

/**
 * The delete path. Returns undefined when the command is not a lone plain `rm` with static words (it then goes to
 * the read-only path, where rm is rejected); otherwise a delete verdict or a rejection specific to deleting.
 */
export const tryDelete = (source: string, root: BashNode, ctx: ClassifyContext): Verdict | undefined => {
  let command: BashNode | undefined
  for (const child of root.children) {
    if (child.type === ";") continue
    if (child.type !== "command" || command !== undefined) return undefined
    command = child
  }
  if (command === undefined) return undefined
  // Cheap test first: most commands are not rm, and resolving every word twice would double the work. A name
  // spelled without both letters (an escape for one of them) goes to the read-only path, where rm is refused.
  const nameNode = command.children.find((c) => c.type === "command_name")
  if (nameNode === undefined) return undefined
  const nameText = source.slice(nameNode.start, nameNode.end)
  if (!nameText.includes("r") || !nameText.includes("m")) return undefined
  const parts = commandParts(source, command)
  if (typeof parts === "string" || parts.redirects.length > 0 || parts.assignments.length > 0) return undefined
  const [name, ...args] = parts.words
  if (name === undefined || name.value !== "rm") return undefined
  // Delete targets are plain words and quotes only: $'...' escapes stay out of the delete path.
  if (args.some((w) => w.raw.includes("$'"))) return undefined
  let force = false
  let closed = false
  const targets: Array<string> = []
  for (const w of args) {
    if (!closed && w.value === "--") {
      closed = true
      continue
    }
    if (!closed && w.value.startsWith("-") && w.value.length > 1) {
      if (w.value === "-f" || w.value === "--force") {
        force = true
        continue
      }
      return rejected(`\`rm\`: option ${show(w)} is not allowed; only \`rm\`, \`rm -f\` or \`rm --force\` with absolute .md paths in the memory directory`)
    }
    if (ctx.memoryDir === undefined || ctx.memoryDir.length === 0) {
      return rejected("`rm`: no memory directory is configured, so nothing may be deleted")
    }
    const t = checkDeleteTarget(w, ctx.memoryDir, ctx.cwd)
    if ("reject" in t) return rejected(t.reject)
    if (!targets.includes(t.path)) targets.push(t.path)
  }
  if (targets.length === 0) return rejected("`rm` needs at least one target: an absolute path of a .md file in the memory directory")
  return { verdict: "delete", targets, force }
}

// ---------------------------------------------------------------------------------------------------------------------
// Entry

/**
 * Any comment node anywhere. The raw scan already rejects every `#` bash could read as a comment; this catches the
 * reverse, a comment the parser sees where bash does not (everything after it would be invisible to the checks).
 */
const hasComment = (root: BashNode): boolean => {
  const stack: Array<BashNode> = [root]
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n.type === "comment") return true
    const kids = n.children
    for (let i = 0; i < kids.length; i++) if (kids[i]!.children.length > 0 || kids[i]!.type === "comment") stack.push(kids[i]!)
  }
  return false
}

/**
 * Classifies a parsed command. `hasError` is the parser's own flag (tree.rootNode.hasError), which covers ERROR and
 * MISSING nodes anywhere in the tree.
 */
export const classifyTree = (
  source: string,
  root: BashNode,
  hasError: boolean,
  ctx: ClassifyContext,
  /** Whether the tree holds a comment, when the caller already knows (the copy notes it); else the tree is walked. */
  comment?: boolean
): Verdict => {
  if (hasError) return rejected(syntaxErrorReason(source, root))
  if (comment ?? hasComment(root)) return rejected(COMMENT_REASON)
  const deletion = tryDelete(source, root, ctx)
  if (deletion !== undefined) return deletion
  const problem = checkReadOnly(source, root, ctx.overBudget)
  if (problem !== undefined) return rejected(problem)
  if (ctx.reads === undefined) return READ_ONLY
  return { verdict: "read-only", reads: readPlan(source, root, { cwd: ctx.cwd, home: ctx.reads.home }) }
}
