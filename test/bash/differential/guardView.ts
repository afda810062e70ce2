/**
 * The guard's view of a command: the simple commands and their argv as the guard's parse reads them, built with the
 * guard's own parse helpers (the tree-sitter-bash tree, the merged-line-break repair, static word resolution).
 *
 * The guard does not export this view, so it is derived here by walking the tree the way the read-only path does.
 * The differential test compares it with what bash really ran; any difference is a place where the guard checked
 * something other than what runs.
 */
import { Language, Parser } from "web-tree-sitter"
import { GRAMMAR_WASM, locateWasm } from "../../../layers/safety/bashWasm.ts"
import { mergedLineBreaks } from "../../../src/safety/bash/syntax.ts"
import { copyTree, type BashNode, type NodeTypes } from "../../../src/safety/bash/tree.ts"
import { isDynamic, joinWords, resolveWord, type Word } from "../../../src/safety/bash/words.ts"

/** One word as the guard resolved it. */
export interface ViewWord {
  readonly value: string
  /** Holds an unquoted `*`, `?` or `[`: bash may expand it into file names. */
  readonly glob: boolean
  /** Also holds quoted characters: which of the glob characters are live is not known to the view. */
  readonly quoted: boolean
  /** Starts with an unquoted `~`. */
  readonly tilde: boolean
}

export type ViewNode =
  /** `redirected`: has a redirection, which can fail (a missing input file) so that bash runs nothing, status 1. */
  | { readonly type: "command"; readonly words: ReadonlyArray<ViewWord>; readonly redirected: boolean }
  /** Runs `right` after `left` when the operator allows (&&: status 0, ||: not 0, ;: always). */
  | { readonly type: "list"; readonly left: ViewNode; readonly op: "&&" | "||" | ";"; readonly right: ViewNode }
  | { readonly type: "pipeline"; readonly members: ReadonlyArray<ViewNode> }
  /** An assignment or comment alone: runs nothing, status 0. */
  | { readonly type: "nothing" }

export type GuardView = { readonly root: ViewNode } | { readonly error: string }

const REDIRECTS = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"])

/** Only backslash-newline pairs between two siblings: bash reads them as one word. */
const onlyContinuations = (source: string, from: number, to: number): boolean => {
  if (from >= to) return false
  for (let i = from; i < to; i += 2) if (source[i] !== "\\" || source[i + 1] !== "\n") return false
  return true
}

const toView = (w: Word): ViewWord => ({ value: w.value, glob: w.glob, quoted: w.quoted, tilde: w.tilde })

const commandWords = (source: string, node: BashNode): ReadonlyArray<ViewWord> | string => {
  const words: Array<Word> = []
  let prev: BashNode | undefined
  let prevWasWord = false
  for (const child of node.children) {
    if (child.type === "comment") continue
    const isWord = !REDIRECTS.has(child.type) && child.type !== "variable_assignment"
    if (isWord) {
      const target = child.type === "command_name" && child.children.length === 1 ? child.children[0]! : child
      const w = target.type === "command_name" ? resolveWord(source, { ...target, type: "concatenation" }) : resolveWord(source, target)
      if (isDynamic(w)) return w.reject
      if (prev !== undefined && prevWasWord && onlyContinuations(source, prev.end, child.start)) {
        words[words.length - 1] = joinWords(words[words.length - 1]!, w)
      } else words.push(w)
    }
    prev = child
    prevWasWord = isWord
  }
  return words.map(toView)
}

const markLastRedirected = (node: ViewNode): ViewNode => {
  switch (node.type) {
    case "command":
      return { ...node, redirected: true }
    case "list":
      return { ...node, right: markLastRedirected(node.right) }
    case "pipeline":
      return node.members.length === 0 ? node : { ...node, members: [...node.members.slice(0, -1), markLastRedirected(node.members[node.members.length - 1]!)] }
    case "nothing":
      return node
  }
}

const walk = (source: string, node: BashNode): ViewNode | string => {
  switch (node.type) {
    case "command": {
      const words = commandWords(source, node)
      const redirected = node.children.some((c) => REDIRECTS.has(c.type))
      return typeof words === "string" ? words : { type: "command", words, redirected }
    }
    case "redirected_statement": {
      const body = node.children.find((c) => c.named && c.type !== "comment" && !REDIRECTS.has(c.type))
      if (body === undefined) return { type: "nothing" }
      const inner = walk(source, body)
      // tree-sitter can hang `a && b < f` as one redirected list; in bash the redirection belongs to the last command.
      return typeof inner === "string" ? inner : markLastRedirected(inner)
    }
    case "variable_assignment":
    case "variable_assignments":
    case "comment":
      return { type: "nothing" }
    case "pipeline": {
      const members: Array<ViewNode> = []
      for (const c of node.children) {
        if (!c.named || c.type === "comment") continue
        const m = walk(source, c)
        if (typeof m === "string") return m
        members.push(m)
      }
      return { type: "pipeline", members }
    }
    case "list":
    case "program": {
      let acc: ViewNode | undefined
      let op: "&&" | "||" | ";" = ";"
      for (const c of node.children) {
        if (c.type === "comment") continue
        if (!c.named) {
          if (c.type === "&&" || c.type === "||") op = c.type
          else if (c.type === ";" || c.type === "\n") op = ";"
          else return `unexpected \`${c.type}\` in a list`
          continue
        }
        const v = walk(source, c)
        if (typeof v === "string") return v
        acc = acc === undefined ? v : { type: "list", left: acc, op, right: v }
        op = ";"
      }
      return acc ?? { type: "nothing" }
    }
    default:
      return `the view does not read \`${node.type}\``
  }
}

/** Parses commands with the guard's grammar and derives the view. Create after the guard's layer is built. */
export class GuardViewer {
  private readonly parser: Parser
  private readonly types: NodeTypes

  private constructor(parser: Parser) {
    this.parser = parser
    const language = parser.language!
    const names: Array<string> = []
    const named: Array<boolean> = []
    for (let id = 0; id < language.nodeTypeCount; id++) {
      names.push(language.nodeTypeForId(id) ?? "ERROR")
      named.push(language.nodeTypeIsNamed(id))
    }
    this.types = { names, named }
  }

  /** Needs web-tree-sitter initialised already (building BashGuard.layer does that). */
  static async make(): Promise<GuardViewer> {
    const grammar = locateWasm(GRAMMAR_WASM)
    if (grammar === undefined) throw new Error("tree-sitter-bash.wasm not found")
    const parser = new Parser()
    parser.setLanguage(await Language.load(grammar))
    return new GuardViewer(parser)
  }

  private parse(text: string): BashNode {
    const tree = this.parser.parse(text)
    if (tree === null) throw new Error("parse failed")
    try {
      const cursor = tree.walk()
      try {
        return copyTree(cursor, this.types, text, {}).root
      } finally {
        cursor.delete()
      }
    } finally {
      tree.delete()
    }
  }

  view(command: string): GuardView {
    let text = command
    for (let attempt = 0; attempt <= 8; attempt++) {
      const root = this.parse(text)
      if (text.includes("\n")) {
        const merged = mergedLineBreaks(text, root)
        if (merged.length > 0) {
          const chars = text.split("")
          for (const at of merged) chars[at] = ";"
          text = chars.join("")
          continue
        }
      }
      const v = walk(text, root)
      return typeof v === "string" ? { error: v } : { root: withBashPrecedence(v) }
    }
    return { error: "line breaks not settled" }
  }

  dispose(): void {
    this.parser.delete()
  }
}

type Item = { readonly node: ViewNode } | { readonly op: "|" | "&&" | "||" | ";" }

const flatten = (node: ViewNode, out: Array<Item>): void => {
  switch (node.type) {
    case "list":
      flatten(node.left, out)
      out.push({ op: node.op })
      flatten(node.right, out)
      return
    case "pipeline":
      node.members.forEach((m, i) => {
        if (i > 0) out.push({ op: "|" })
        flatten(m, out)
      })
      return
    default:
      out.push({ node })
  }
}

/**
 * The same commands and operators regrouped as bash groups them: pipelines bind tighter than && and ||, which bind
 * left to right. (tree-sitter-bash can nest `a || b | c` as `(a || b) | c`; the guard checks every command either
 * way, but the control flow the oracle follows must be bash's.)
 */
export const withBashPrecedence = (node: ViewNode): ViewNode => {
  const items: Array<Item> = []
  flatten(node, items)
  let acc: ViewNode | undefined
  let pendingOp: "&&" | "||" | ";" = ";"
  let members: Array<ViewNode> = []
  const close = () => {
    const p: ViewNode = members.length === 1 ? members[0]! : { type: "pipeline", members }
    acc = acc === undefined ? p : { type: "list", left: acc, op: pendingOp, right: p }
    members = []
  }
  for (const it of items) {
    if ("node" in it) members.push(it.node)
    else if (it.op === "|") continue
    else {
      if (members.length > 0) close()
      pendingOp = it.op
    }
  }
  if (members.length > 0) close()
  return acc ?? { type: "nothing" }
}

/** All commands in the view, in source order (for messages). */
export const viewCommands = (node: ViewNode): ReadonlyArray<ReadonlyArray<ViewWord>> => {
  switch (node.type) {
    case "command":
      return [node.words]
    case "list":
      return [...viewCommands(node.left), ...viewCommands(node.right)]
    case "pipeline":
      return node.members.flatMap(viewCommands)
    case "nothing":
      return []
  }
}
