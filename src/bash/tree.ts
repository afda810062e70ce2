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
  readonly nodeType: string
  readonly nodeIsNamed: boolean
  readonly nodeIsMissing: boolean
  readonly startIndex: number
  readonly endIndex: number
  gotoFirstChild(): boolean
  gotoNextSibling(): boolean
  gotoParent(): boolean
}

interface MutableNode {
  type: string
  named: boolean
  missing: boolean
  start: number
  end: number
  children: Array<MutableNode>
}

const nodeAt = (cursor: CursorLike): MutableNode => ({
  type: cursor.nodeType,
  named: cursor.nodeIsNamed,
  missing: cursor.nodeIsMissing,
  start: cursor.startIndex,
  end: cursor.endIndex,
  children: []
})

/**
 * Copies the tree under the cursor's current node. Iterative, so a list nested ten thousand levels deep (which
 * tree-sitter-bash builds for `a && b && c ...`) cannot exhaust the JavaScript stack.
 */
export const copyTree = (cursor: CursorLike): BashNode => {
  const root = nodeAt(cursor)
  const stack: Array<MutableNode> = [root]
  if (!cursor.gotoFirstChild()) return root
  for (;;) {
    const node = nodeAt(cursor)
    stack[stack.length - 1]!.children.push(node)
    if (cursor.gotoFirstChild()) {
      stack.push(node)
      continue
    }
    while (!cursor.gotoNextSibling()) {
      if (stack.length === 1 || !cursor.gotoParent()) return root
      stack.pop()
    }
  }
}

/** Source text of a node. */
export const textOf = (source: string, node: BashNode): string => source.slice(node.start, node.end)

/** Named children, skipping comments. */
export const namedChildren = (node: BashNode): ReadonlyArray<BashNode> =>
  node.children.filter((c) => c.named && c.type !== "comment")

/** Builds a node by hand (tests). */
export const makeNode = (
  type: string,
  start: number,
  end: number,
  children: ReadonlyArray<BashNode> = [],
  named = true
): BashNode => ({ type, named, missing: false, start, end, children })
