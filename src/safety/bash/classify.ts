/**
 * Classification of one background bash command over its tree-sitter-bash syntax tree:
 *
 * - `delete`: a lone plain `rm [-f|--force] [--] TARGET...` whose targets are static absolute `.md` paths inside the
 *   memory directory and outside its protected (dot) subdirectories (delete.ts). The executor removes exactly
 *   `targets`.
 * - `read-only`: every command is on the allowlist with read-only arguments, joined only by `&&`, `||`, `;` and
 *   pipes, with harmless redirections and display/locale variables (readOnly.ts); with `reads` in the context, also
 *   what it may open (reads.ts).
 * - `rejected`: anything else, with a reason naming the word and the rule.
 *
 * Pure: the caller parses (see layers/safety/BashParser.ts), runs the text checks of syntax.ts first, and passes the
 * copied tree. The verdict's types are in verdict.ts.
 */
import { COMMENT_REASON } from "./commandParts.ts"
import { tryDelete } from "./delete.ts"
import { checkReadOnly } from "./readOnly.ts"
import { readPlan } from "./reads.ts"
import { hasComment, syntaxErrorReason } from "./syntax.ts"
import type { BashNode } from "./tree.ts"
import { READ_ONLY, rejected, type ClassifyContext, type Verdict } from "./verdict.ts"

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
