/**
 * Static word resolution: what a shell word becomes after quote removal, for words whose value is known before the
 * shell runs. Anything the shell would compute (expansions, substitutions, ANSI-C quoting) makes the word dynamic,
 * and the guard rejects it with the construct named.
 */
import type { BashNode } from "./tree.ts"

export interface Word {
  /** The value after quote removal and backslash processing. */
  readonly value: string
  /** The source text, for messages. */
  readonly raw: string
  readonly start: number
  readonly end: number
  /** Holds an unquoted `*`, `?` or `[` (pathname expansion). */
  readonly glob: boolean
  /** Starts with an unquoted glob character, so its expansion could start with `-`. */
  readonly leadingGlob: boolean
  /** Holds any quoted or escaped character. */
  readonly quoted: boolean
  /** Starts with an unquoted `~` (tilde expansion). */
  readonly tilde: boolean
}

export interface Dynamic {
  readonly reject: string
}

export const isDynamic = (w: Word | Dynamic): w is Dynamic => (w as Dynamic).reject !== undefined

/** Characters of a word with, for each, whether it was quoted; built only when a word needs the brace check. */
export interface Piece {
  readonly text: string
  readonly quoted: boolean
}

const DYNAMIC_NODES: Readonly<Record<string, string>> = {
  simple_expansion: "variable expansion",
  expansion: "parameter expansion",
  arithmetic_expansion: "arithmetic expansion",
  command_substitution: "command substitution",
  process_substitution: "process substitution",
  brace_expression: "brace expansion",
  ansi_c_string: "ANSI-C quoting ($'...')",
  translated_string: "locale translation ($\"...\")",
  array: "an array",
  extglob_pattern: "an extended glob pattern"
}

/** Why a node cannot be resolved statically, phrased for a rejection reason. */
export const dynamicReason = (source: string, node: BashNode): string => {
  const what = DYNAMIC_NODES[node.type]
  const text = source.slice(node.start, node.end)
  const shown = text.length > 60 ? `${text.slice(0, 57)}...` : text
  if (what !== undefined) return `\`${shown}\` is ${what}, which is computed when the shell runs; write the value literally`
  return `\`${shown}\` (${node.type}) is not a plain word; only literal words and quoted strings are allowed`
}

const GLOB_CHAR = /[*?[]/

/** Accumulates a word's value while tracking quoting. */
class Builder {
  value = ""
  glob = false
  leadingGlob = false
  quoted = false
  tilde = false
  readonly pieces: Array<Piece> | undefined

  constructor(trackPieces: boolean) {
    this.pieces = trackPieces ? [] : undefined
  }

  /** An unquoted `~` right after `=` or `:` (bash expands it in words shaped like assignments: `a=~/x`). */
  innerTilde = false

  unquoted(text: string): void {
    if (text.length === 0) return
    const g = text.search(GLOB_CHAR)
    if (g >= 0) {
      this.glob = true
      if (this.value.length === 0 && g === 0) this.leadingGlob = true
    }
    for (let i = text.indexOf("~"); i >= 0; i = text.indexOf("~", i + 1)) {
      const prev = i > 0 ? text[i - 1] : this.value[this.value.length - 1]
      if (prev === "=" || prev === ":") this.innerTilde = true
    }
    if (this.value.length === 0 && text[0] === "~") this.tilde = true
    this.value += text
    this.pieces?.push({ text, quoted: false })
  }

  quotedText(text: string): void {
    this.quoted = true
    this.value += text
    this.pieces?.push({ text, quoted: true })
  }
}

const ANSI_ESCAPES: Readonly<Record<string, string>> = {
  t: "\t",
  n: "\n",
  r: "\r",
  f: "\f",
  v: "\v",
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?"
}

/** The value of `$'...'` holding only simple escapes (`sort -t$'\t'`), or undefined. */
const ansiC = (raw: string): string | undefined => {
  if (!raw.startsWith("$'") || !raw.endsWith("'") || raw.length < 3) return undefined
  const body = raw.slice(2, -1)
  let out = ""
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    // An unescaped quote inside: bash ended the string there, the parser's token went on.
    if (c === "'") return undefined
    if (c !== "\\") {
      out += c
      continue
    }
    const e = body[i + 1]
    const v = e === undefined ? undefined : ANSI_ESCAPES[e]
    if (v === undefined || !Object.hasOwn(ANSI_ESCAPES, e!)) return undefined
    out += v
    i++
  }
  return out
}

/** Unquoted word text: `\x` is a quoted x, `\<newline>` disappears, an unquoted `$` or backtick is dynamic. */
const addBareWord = (b: Builder, text: string): string | undefined => {
  // Runs of plain text are added whole; only `\\`, `$` and backticks need a look.
  let from = 0
  for (let i = text.search(BARE_SPECIAL); i >= 0; i = nextSpecial(text, i)) {
    const c = text[i]!
    if (c === "$" || c === "`") return `\`${text}\` holds an unquoted \`${c}\`, which starts an expansion; quote it with '...'`
    const next = text[i + 1]
    if (next === undefined) {
      // A trailing lone backslash stays literal.
      b.unquoted(text.slice(from))
      return undefined
    }
    b.unquoted(text.slice(from, i))
    if (next !== "\n") b.quotedText(next)
    from = i + 2
    i++
  }
  b.unquoted(text.slice(from))
  return undefined
}

const BARE_SPECIAL = /[\\$`]/
const BARE_SPECIAL_G = /[\\$`]/g

/** The next `\\`, `$` or backtick after index i (callers skip an escaped character by passing its index). */
const nextSpecial = (text: string, i: number): number => {
  BARE_SPECIAL_G.lastIndex = i + 1
  const m = BARE_SPECIAL_G.exec(text)
  return m === null ? -1 : m.index
}

/** Content of a double-quoted string: only `\$ \` \" \\` and `\<newline>` are escapes there. */
const addDoubleQuoted = (b: Builder, text: string, raw: string): string | undefined => {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === "\\") {
      const next = text[i + 1]
      if (next === "$" || next === "`" || next === '"' || next === "\\") {
        out += next
        i++
        continue
      }
      if (next === "\n") {
        i++
        continue
      }
      out += c
      continue
    }
    if (c === "`") return `\`${raw}\` holds a backtick, which is command substitution`
    if (c === "$") {
      const next = text[i + 1]
      // A `$` at the end of the string or before a blank is literal; anything else starts an expansion.
      if (next !== undefined && next !== " " && next !== "\t" && next !== "\n") {
        return `\`${raw}\` holds \`$${next}\`, which starts an expansion inside double quotes; use '...' quotes`
      }
    }
    out += c
  }
  b.quotedText(out)
  return undefined
}

const addPiece = (b: Builder, source: string, node: BashNode, last: boolean): string | undefined => {
  switch (node.type) {
    case "word":
    case "number":
      return addBareWord(b, source.slice(node.start, node.end))
    case "raw_string":
      b.quotedText(source.slice(node.start + 1, node.end - 1))
      return undefined
    case "ansi_c_string": {
      const raw = source.slice(node.start, node.end)
      const value = ansiC(raw)
      if (value === undefined) {
        return `\`${raw.length > 60 ? `${raw.slice(0, 57)}...` : raw}\`: in $'...' only the escapes \\t \\n \\r \\f \\v \\a \\b \\e \\\\ \\' \\" \\? are allowed (no \\x, \\u, octal or \\c, which can spell any character)`
      }
      b.quotedText(value)
      return undefined
    }
    case "string": {
      for (const child of node.children) {
        if (child.type === '"' || child.type === "string_content" || child.type === "$") continue
        return dynamicReason(source, child)
      }
      const raw = source.slice(node.start, node.end)
      return addDoubleQuoted(b, raw.slice(1, -1), raw)
    }
    case "$":
      // tree-sitter-bash makes a trailing unquoted `$` (as in `grep foo$`) its own token. It is literal only at the
      // very end of a word; before a quote it would start $'...' or $"...".
      if (!last) return "an unquoted `$` inside a word starts an expansion; quote the word with '...'"
      b.unquoted("$")
      return undefined
    case "concatenation": {
      const kids = node.children
      for (let i = 0; i < kids.length; i++) {
        const r = addPiece(b, source, kids[i]!, last && i === kids.length - 1)
        if (r !== undefined) return r
      }
      return undefined
    }
    default:
      return dynamicReason(source, node)
  }
}

/**
 * Unquoted `{` holding a `,` or `..` (quoted or not, at any depth) before its matching unquoted `}`: brace expansion
 * even when unmarked. One pass with a stack of open braces: a `,` marks the innermost open brace, and closing a brace
 * passes its mark to the one around it (a `,` inside `{a{b,c}}` is also inside the outer pair).
 * `steps` (optional) counts characters visited, for a linearity test.
 */
export const braceExpansion = (pieces: ReadonlyArray<Piece>, steps?: { count: number }): boolean => {
  /** holds[k]: the k-th open brace (innermost last) has seen a `,` or `..`. */
  const holds: Array<boolean> = []
  let prevDot = false
  for (const p of pieces) {
    const text = p.text
    for (let i = 0; i < text.length; i++) {
      if (steps !== undefined) steps.count++
      const c = text[i]!
      const dot = c === "."
      if ((c === "," || (dot && prevDot)) && holds.length > 0) holds[holds.length - 1] = true
      prevDot = dot
      if (p.quoted) continue
      if (c === "{") holds.push(false)
      else if (c === "}" && holds.length > 0) {
        const inner = holds.pop()!
        if (inner) return true
      }
    }
  }
  return false
}

/** Characters that make a bare word more than its own text: escapes, expansions, globs, braces, tilde. */
const SPECIAL = /[\\$`*?[{~]/

/** Resolves one argument node (word, string, concatenation ...) to its static value, or says why it cannot. */
export const resolveWord = (source: string, node: BashNode): Word | Dynamic => {
  const raw = source.slice(node.start, node.end)
  if ((node.type === "word" || node.type === "number") && !SPECIAL.test(raw)) {
    // The common case: a plain word is its own value.
    return { value: raw, raw, start: node.start, end: node.end, glob: false, leadingGlob: false, quoted: false, tilde: false }
  }
  if (node.type === "raw_string") {
    const value = raw.slice(1, -1)
    return { value, raw, start: node.start, end: node.end, glob: false, leadingGlob: false, quoted: true, tilde: false }
  }
  const needsPieces = raw.includes("{")
  const b = new Builder(needsPieces)
  const r = addPiece(b, source, node, true)
  if (r !== undefined) return { reject: r }
  if (b.innerTilde) {
    return { reject: `\`${raw}\` holds an unquoted \`~\` after \`=\` or \`:\`, which bash expands to a home directory; quote it ('~') or write the path` }
  }
  if (needsPieces && braceExpansion(b.pieces!)) {
    return { reject: `\`${raw}\` is brace expansion (an unquoted {...} holding "," or ".."); list the words separately` }
  }
  return {
    value: b.value,
    raw,
    start: node.start,
    end: node.end,
    glob: b.glob,
    leadingGlob: b.leadingGlob,
    quoted: b.quoted,
    tilde: b.tilde
  }
}

/** Joins words that a mid-word line continuation split in two (tree-sitter-bash reads `a\<newline>b` as two words). */
export const joinWords = (a: Word, b: Word): Word => ({
  value: a.value + b.value,
  raw: a.raw + "\\\n" + b.raw,
  start: a.start,
  end: b.end,
  glob: a.glob || b.glob,
  leadingGlob: a.leadingGlob || (a.value.length === 0 && b.leadingGlob),
  quoted: a.quoted || b.quoted,
  tilde: a.tilde
})

/** A word built from a literal value (tests, synthetic words). */
export const literalWord = (value: string): Word => ({
  value,
  raw: value,
  start: 0,
  end: value.length,
  glob: false,
  leadingGlob: false,
  quoted: false,
  tilde: false
})

/** How a word is shown in a reason: its value, and the source when that differs. */
export const show = (w: Word): string => {
  const v = w.value.length > 200 ? `${w.value.slice(0, 197)}...` : w.value
  return w.raw === w.value || w.raw.length > 200 ? `\`${v}\`` : `\`${v}\` (written \`${w.raw}\`)`
}
