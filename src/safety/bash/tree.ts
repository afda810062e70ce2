/**
 * A plain, immutable copy of a tree-sitter-bash syntax tree.
 *
 * The guard copies the parser's tree once, in one cursor walk, and reasons over plain objects: every later question
 * ("what is this word", "what lies between these two nodes") is a property read or a string slice instead of a call
 * into the wasm runtime, and the checks can be tested on hand-built trees.
 *
 * Offsets are indices into the JavaScript string that was parsed (web-tree-sitter reports UTF-16 code units).
 */

export interface BashNode {
  readonly type: string
  /** Named nodes are grammar rules (`command`, `word`); anonymous ones are literal tokens (`&&`, `;`, `$`). */
  readonly named: boolean
  /** A zero-width node the parser inserted to recover from an error. */
  readonly missing: boolean
  readonly start: number
  readonly end: number
  readonly children: ReadonlyArray<BashNode>
}

/** The part of web-tree-sitter's TreeCursor the copy needs (structural, so this module stays free of the runtime). */
export interface CursorLike {
  readonly nodeTypeId: number
  readonly nodeIsMissing: boolean
  readonly startIndex: number
  readonly endIndex: number
  gotoFirstChild(): boolean
  gotoNextSibling(): boolean
  gotoParent(): boolean
}

/** Type names and namedness by type id, read once from the language (each cursor getter is a call into wasm). */
export interface NodeTypes {
  readonly names: ReadonlyArray<string>
  readonly named: ReadonlyArray<boolean>
}

interface MutableNode {
  type: string
  named: boolean
  missing: boolean
  start: number
  end: number
  children: Array<MutableNode>
}

export interface CopiedTree {
  readonly root: BashNode
  /**
   * The copy met an ERROR node or a zero-width leaf (which is what a MISSING node looks like). Only then does the
   * caller need to ask the parser whether the tree has an error, which costs a few wasm calls.
   */
  readonly suspicious: boolean
  /** The copy holds a comment node (the guard rejects comments; noting it here saves a walk). */
  readonly comment: boolean
  /** The copy stopped because `overBudget` said so: the tree is incomplete. */
  readonly cancelled?: boolean
}

export interface CopyOptions {
  /** Ask each node whether the parser inserted it (one more wasm call per node); for wording syntax errors. */
  readonly withMissing?: boolean
  /** Node types whose children are not copied (the guard rejects them whatever they hold). */
  readonly opaque?: ReadonlySet<string>
  /** Asked every few thousand nodes: true stops the copy (`cancelled`). */
  readonly overBudget?: (() => boolean) | undefined
}

/** Named node types that are single tokens: never asked for children. Anonymous nodes are tokens too. */
export const TOKEN_TYPES: ReadonlySet<string> = new Set([
  "word",
  "raw_string",
  "number",
  "variable_name",
  "file_descriptor",
  "comment",
  "string_content",
  "ansi_c_string",
  "special_variable_name",
  "test_operator",
  "heredoc_start",
  "regex",
  "extglob_pattern"
])

/**
 * Copies the tree under the cursor's current node. Iterative, so a list nested ten thousand levels deep (which
 * tree-sitter-bash builds for `a && b && c ...`) cannot exhaust the JavaScript stack.
 *
 * Every cursor getter is a call into wasm, so the copy asks as little as it can: the type id of each node, the
 * range of named leaves, the start of anonymous tokens. An inner node spans exactly its children (tree-sitter keeps leading whitespace out of a
 * node's range), so its range is its first child's start and last child's end.
 */
/**
 * Whether the copy descends into a node, by type id: named, not a token, not opaque. Worked out once per type table
 * and opaque set instead of two set lookups per node.
 */
const descendTables = new WeakMap<NodeTypes, Map<ReadonlySet<string> | undefined, Uint8Array>>()
const descendTableOf = (types: NodeTypes, opaque: ReadonlySet<string> | undefined): Uint8Array => {
  let byOpaque = descendTables.get(types)
  if (byOpaque === undefined) {
    byOpaque = new Map()
    descendTables.set(types, byOpaque)
  }
  let table = byOpaque.get(opaque)
  if (table === undefined) {
    table = new Uint8Array(types.names.length)
    for (let id = 0; id < types.names.length; id++) {
      const type = types.names[id] ?? "ERROR"
      table[id] = (types.named[id] ?? true) && !TOKEN_TYPES.has(type) && opaque?.has(type) !== true ? 1 : 0
    }
    byOpaque.set(opaque, table)
  }
  return table
}

export const copyTree = (cursor: CursorLike, types: NodeTypes, source: string, options: CopyOptions = {}): CopiedTree => {
  const withMissing = options.withMissing === true
  const opaque = options.opaque
  const descend = descendTableOf(types, opaque)
  let suspicious = false
  let comment = false
  const make = (id: number): MutableNode => {
    const type = types.names[id]
    if (type === undefined || type === "ERROR") suspicious = true
    else if (type === "comment") comment = true
    return {
      type: type ?? "ERROR",
      named: types.named[id] ?? true,
      missing: withMissing ? cursor.nodeIsMissing : false,
      start: 0,
      end: 0,
      children: []
    }
  }
  const leaf = (node: MutableNode): void => {
    const start = cursor.startIndex
    node.start = start
    if (!node.named && !withMissing && source.startsWith(node.type, start)) {
      // An anonymous node is a literal token (`&&`, `;`, `>`): where the source holds its text, that text is the
      // token, and its end needs no wasm call. Otherwise (a token the scanner widened, or one the parser inserted)
      // ask for the real end, which is zero-width for an inserted one.
      node.end = start + node.type.length
      return
    }
    node.end = cursor.endIndex
    if (start === node.end) suspicious = true
  }
  const close = (node: MutableNode): void => {
    node.start = node.children[0]!.start
    node.end = node.children[node.children.length - 1]!.end
  }
  const root = make(cursor.nodeTypeId)
  if (!cursor.gotoFirstChild()) {
    leaf(root)
    return { root, suspicious, comment }
  }
  const stack: Array<MutableNode> = [root]
  const overBudget = options.overBudget
  let copied = 0
  for (;;) {
    if (overBudget !== undefined && (++copied & 4095) === 0 && overBudget()) return { root, suspicious, comment, cancelled: true }
    const id = cursor.nodeTypeId
    const node = make(id)
    stack[stack.length - 1]!.children.push(node)
    // An id beyond the table (an ERROR node's is 65535) is judged by the node itself.
    const inner = id < descend.length ? descend[id] === 1 : node.named && !TOKEN_TYPES.has(node.type) && opaque?.has(node.type) !== true
    if (inner && cursor.gotoFirstChild()) {
      stack.push(node)
      continue
    }
    leaf(node)
    while (!cursor.gotoNextSibling()) {
      close(stack.pop()!)
      if (stack.length === 0) return { root, suspicious, comment }
      cursor.gotoParent()
    }
  }
}

/** Source text of a node. */
export const textOf = (source: string, node: BashNode): string => source.slice(node.start, node.end)
