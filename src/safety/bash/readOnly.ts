/**
 * The read-only path: every statement of the program is a command on the allowlist (commands.ts) with read-only
 * words, joined only by `&&`, `||`, `;` and pipes, with allowed redirections (redirects.ts) and assignments
 * (assignments.ts). Returns the first problem as a reason, or undefined when the whole program is read-only.
 *
 * Also the reasons for shell structures that are never allowed (subshells, loops, functions ...), which the parser's
 * caller uses to skip copying their contents. Does not decide deletes (delete.ts) or what a command reads (reads.ts).
 */
import { checkAssignment } from "./assignments.ts"
import { COMMENT_REASON, commandParts, newlineInside, REDIRECTS } from "./commandParts.ts"
import { checkName, ruleFor } from "./commands.ts"
import { checkRedirect } from "./redirects.ts"
import { snippet } from "./syntax.ts"
import type { BashNode } from "./tree.ts"
import { OVER_BUDGET } from "./verdict.ts"

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
  // xargs and find -exec may run git too; any word `git` among their words counts.
  const runsOthers = name.value === "xargs" || name.value === "find"
  if (name.value === "git" || (runsOthers && parts.words.some((w) => w.value === "git"))) seen.git = true
  if (seen.cd && seen.git) return GIT_AFTER_CD
  return ruleFor(name.value)!.check(name.value, parts.words.slice(1))
}

/** Checks every statement under the program. Iterative: lists can nest thousands deep. */
export const checkReadOnly = (source: string, root: BashNode, overBudget?: () => boolean): string | undefined => {
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
