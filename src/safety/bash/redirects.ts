/**
 * Redirections: input from a file, output to /dev/null, descriptor copies (`2>&1`) and closes; nothing that writes
 * a file, opens a network path (/dev/tcp, /dev/udp), uses a here-document or here-string, assigns a descriptor to a
 * variable (`{name}>`) or hides a descriptor number the parser read as an argument.
 */
import { newlineInside } from "./commandParts.ts"
import type { BashNode } from "./tree.ts"
import { isDynamic, resolveWord } from "./words.ts"

const isNetworkPath = (p: string): boolean => {
  const n = p.replace(/\/+/g, "/")
  return n.startsWith("/dev/tcp") || n.startsWith("/dev/udp")
}

export const checkRedirect = (source: string, node: BashNode): string | undefined => {
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
