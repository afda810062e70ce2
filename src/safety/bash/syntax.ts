/**
 * Checks of a command's shape before the rules read its words: the raw text before parsing (length, NUL, `$\`
 * continuations, the prescan's quoting and comment rules), syntax errors and comments in the parsed tree, and the line
 * breaks tree-sitter-bash merged into a command (which the caller turns into `;` and parses again).
 *
 * Pure and rule-free: nothing here knows which programs are allowed.
 */
import { prescan } from "./prescan.ts"
import type { BashNode } from "./tree.ts"

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

/** A short excerpt of the source around [start, end), line breaks shown as `\n`, for messages. */
export const snippet = (source: string, start: number, end: number): string => {
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
// Comments

/**
 * Any comment node anywhere. The raw scan already rejects every `#` bash could read as a comment; this catches the
 * reverse, a comment the parser sees where bash does not (everything after it would be invisible to the checks).
 */
export const hasComment = (root: BashNode): boolean => {
  const stack: Array<BashNode> = [root]
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n.type === "comment") return true
    const kids = n.children
    for (let i = 0; i < kids.length; i++) if (kids[i]!.children.length > 0 || kids[i]!.type === "comment") stack.push(kids[i]!)
  }
  return false
}
