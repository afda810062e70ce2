/**
 * Variable assignments before a command (`LANG=C sort`) or standing alone: only display and locale variables, each
 * with a plain value of the shape its variable takes; everything else (PATH, LD_*, GIT_*, PAGER, HOME ...) is refused
 * with what setting it would do.
 */
import type { BashNode } from "./tree.ts"
import { isDynamic, resolveWord } from "./words.ts"

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

export const checkAssignment = (source: string, node: BashNode): string | undefined => {
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
