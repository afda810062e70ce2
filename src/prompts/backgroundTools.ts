/**
 * The section that tells a background task which tools it has and what they may do. A fork sends it in the task's
 * final user message, an independent request at the end of its system prompt; either way under this exact heading.
 */
export const BACKGROUND_TOOLS_HEADING = "## Background memory task tools"

export const backgroundToolsSection = (memoryDir: string, cwd: string): string => `${BACKGROUND_TOOLS_HEADING}
In this task you can run only these tools; any other tool call returns an error.
- \`read\`, \`find\`, \`grep\`: read and search anywhere. Relative paths start at \`${cwd}\`.
- \`write\` and \`edit\`: only Markdown files (lowercase \`.md\` names) inside the memory directory \`${memoryDir}\`, outside its dot-folders. Use absolute paths. A file that already exists must be read with \`read\` in this task before you change it; if it changed since, read it again.
- \`bash\`: read-only commands (for example ls, cat, head, tail, wc, stat, find, grep, rg, git log). The only command that changes anything is \`rm\` or \`rm -f\` of \`.md\` files inside the memory directory, named by absolute path, with no wildcards. Redirections to files, command substitution, variables and anything that writes are refused.`
