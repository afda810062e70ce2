/**
 * The section that tells a background task which tools it has and what they may do. A fork sends it in the task's
 * final user message, an independent request at the end of its system prompt; either way under this exact heading.
 *
 * It names exactly the tools the request lets the model call: all of the task's own in an independent request, and in
 * a fork only those of them the parent's request declares (a fork keeps the parent's declarations for its cache
 * prefix, so a tool the parent does not declare cannot be offered).
 */
export const BACKGROUND_TOOLS_HEADING = "## Background memory task tools"

/** The task's own tools, in the order the section lists them. */
export const SECTION_TOOL_ORDER = ["read", "find", "grep", "write", "edit", "bash", "codemode"] as const

const code = (name: string) => `\`${name}\``

/** `a`, `a` and `b`, `a`, `b` and `c`. */
const names = (list: ReadonlyArray<string>): string =>
  list.length <= 1 ? list.map(code).join("") : `${list.slice(0, -1).map(code).join(", ")} and ${code(list.at(-1)!)}`

const ALL_READERS = ["read", "find", "grep"]

/** Where the readers reach: the task's read scope (src/safety/readScope.ts), in the model's words. */
const READ_PLACES = "the project, the memory directory and the files this task names, nothing else"

export const backgroundToolsSection = (cwd: string, tools: ReadonlyArray<string>): string => {
  const direct = SECTION_TOOL_ORDER.filter((t) => tools.includes(t))
  // A codemode script calls the task's six tools (each under the rules below), declared directly or not.
  const reachable = direct.includes("codemode") ? SECTION_TOOL_ORDER.slice(0, 6) : direct
  const has = (name: string) => (reachable as ReadonlyArray<string>).includes(name)
  const readers = ALL_READERS.filter(has)
  const writers = ["write", "edit"].filter(has)
  const lines: Array<string> = []
  if (direct.includes("codemode")) {
    lines.push(`- \`codemode\`: runs a script whose tool calls may use ${names(SECTION_TOOL_ORDER.slice(0, 6))}, each under the rules below.`)
  }
  if (readers.length === 3) lines.push(`- \`read\`, \`find\`, \`grep\`: read and search ${READ_PLACES}. Relative paths start at \`${cwd}\`.`)
  else if (readers.length > 0) {
    const verb = has("read") ? (readers.length > 1 ? "read and search" : "read") : "search"
    lines.push(`- ${names(readers)}: ${verb} ${READ_PLACES}. Relative paths start at \`${cwd}\`.`)
  }
  if (writers.length > 0) {
    const before = has("read")
      ? "Read a file with `read` in this task before changing it, and again if it changed since."
      : "A file that already exists cannot be changed in this task (there is no `read` to read it first): create new files only."
    lines.push(
      `- ${names(writers)}: lowercase \`.md\` files in the memory directory (not its dot-folders), by absolute path. ${before}`
    )
  }
  if (has("bash")) {
    lines.push(
      "- `bash`: read-only commands (ls, cat, head, tail, wc, stat, find, grep, rg, git log, ...); the one change allowed is `rm` or `rm -f` of `.md` files in the memory directory by absolute path, without wildcards. Redirections to files, command substitution, variables and writes are refused."
    )
  }
  return `${BACKGROUND_TOOLS_HEADING}
In this task you can call only ${direct.length === 1 ? "this tool" : "these tools"}: ${direct.length === 0 ? "none" : names(direct)}. Any other tool call returns an error.
${lines.join("\n")}`.trimEnd()
}
