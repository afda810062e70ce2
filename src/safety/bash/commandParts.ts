/**
 * The words of one simple command as bash will read them: `commandParts` splits a `command` node into its resolved
 * words (name first), its variable assignments and its redirections, and refuses a command whose tree does not match
 * bash's reading (a comment inside it, a bare line break between its children, a line continuation or two touching
 * words the parser split differently from bash). `newlineInside` words the line-break case for other nodes.
 *
 * Shared by the read-only rules, the delete path and the read plan; it judges no program and no argument.
 */
import type { BashNode } from "./tree.ts"
import { isDynamic, joinWords, resolveWord, type Word } from "./words.ts"

export const COMMENT_REASON = "comments are not allowed (the guard's parser and bash can disagree on where one starts or ends)"

/** Node types of redirections (a command's or a redirected statement's). */
export const REDIRECTS = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"])

export interface CommandParts {
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
export const newlineInside = (source: string, node: BashNode): string | undefined => {
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
