/**
 * The delete path: a lone plain `rm [-f|--force] [--] TARGET...` whose targets are static absolute `.md` paths inside
 * the memory directory and outside its protected (dot) subdirectories. `tryDelete` answers undefined for anything
 * that is not such an rm (the read-only path then rejects rm), else the delete verdict or a rejection specific to
 * deleting. The executor (layers/safety/BashGuard.ts, `runDelete`) removes exactly the verdict's targets.
 */
import * as posix from "node:path/posix"
import { commandParts } from "./commandParts.ts"
import type { BashNode } from "./tree.ts"
import { rejected, type ClassifyContext, type Verdict } from "./verdict.ts"
import { show, type Word } from "./words.ts"

const WILDCARD = /[*?[\]]/

/** A normalized absolute path inside memoryDir, or the reason it cannot be deleted. */
export const checkDeleteTarget = (
  w: Word,
  memoryDir: string,
  cwd: string
): { readonly path: string } | { readonly reject: string } => {
  const v = w.value
  const reject = (why: string) => ({ reject: why })
  if (w.tilde) return reject(`rm target ${show(w)} starts with \`~\`, which expands at run time; write the absolute path`)
  if (/[\u0000-\u001f\u007f]/.test(v)) return reject(`rm target ${show(w)} holds a control character`)
  if (w.glob || WILDCARD.test(v)) return reject(`rm target ${show(w)} holds a wildcard; name each file by its absolute path`)
  if (!v.startsWith("/")) {
    return reject(`rm target ${show(w)} is relative; write the absolute path (${posix.resolve(cwd, v)})`)
  }
  if (v.endsWith("/")) return reject(`rm target ${show(w)} names a directory; only .md files can be deleted`)
  const segments = v.split("/").filter((s) => s.length > 0)
  if (segments.some((s) => s === "." || s === "..")) {
    return reject(`rm target ${show(w)} has a \`.\` or \`..\` segment; write the plain absolute path`)
  }
  const path = "/" + segments.join("/")
  const root = posix.resolve(cwd, memoryDir)
  const prefix = root === "/" ? "/" : `${root}/`
  if (path === root) return reject(`rm target ${show(w)} is the memory directory itself; only .md files in it can be deleted`)
  if (!path.startsWith(prefix)) {
    return reject(`rm target ${show(w)} is outside the memory directory ${root}; only memory files can be deleted`)
  }
  const inside = path.slice(prefix.length).split("/")
  const hidden = inside.find((s) => s.startsWith("."))
  if (hidden !== undefined) {
    return reject(`rm target ${show(w)} is in the protected \`${hidden}\` part of the memory directory (any name starting with "."), which cannot be deleted`)
  }
  const base = inside[inside.length - 1]!
  if (!base.endsWith(".md") || base.length <= 3) {
    return reject(`rm target ${show(w)} is not a .md file (lowercase extension); only memory topic files can be deleted`)
  }
  return { path }
}

/**
 * The delete path. Returns undefined when the command is not a lone plain `rm` with static words (it then goes to
 * the read-only path, where rm is rejected); otherwise a delete verdict or a rejection specific to deleting.
 */
export const tryDelete = (source: string, root: BashNode, ctx: ClassifyContext): Verdict | undefined => {
  let command: BashNode | undefined
  for (const child of root.children) {
    if (child.type === ";") continue
    if (child.type !== "command" || command !== undefined) return undefined
    command = child
  }
  if (command === undefined) return undefined
  // Cheap test first: most commands are not rm, and resolving every word twice would double the work. A name
  // spelled without both letters (an escape for one of them) goes to the read-only path, where rm is refused.
  const nameNode = command.children.find((c) => c.type === "command_name")
  if (nameNode === undefined) return undefined
  const nameText = source.slice(nameNode.start, nameNode.end)
  if (!nameText.includes("r") || !nameText.includes("m")) return undefined
  const parts = commandParts(source, command)
  if (typeof parts === "string" || parts.redirects.length > 0 || parts.assignments.length > 0) return undefined
  const [name, ...args] = parts.words
  if (name === undefined || name.value !== "rm") return undefined
  // Delete targets are plain words and quotes only: $'...' escapes stay out of the delete path.
  if (args.some((w) => w.raw.includes("$'"))) return undefined
  let force = false
  let closed = false
  const targets: Array<string> = []
  for (const w of args) {
    if (!closed && w.value === "--") {
      closed = true
      continue
    }
    if (!closed && w.value.startsWith("-") && w.value.length > 1) {
      if (w.value === "-f" || w.value === "--force") {
        force = true
        continue
      }
      return rejected(`\`rm\`: option ${show(w)} is not allowed; only \`rm\`, \`rm -f\` or \`rm --force\` with absolute .md paths in the memory directory`)
    }
    if (ctx.memoryDir === undefined || ctx.memoryDir.length === 0) {
      return rejected("`rm`: no memory directory is configured, so nothing may be deleted")
    }
    const t = checkDeleteTarget(w, ctx.memoryDir, ctx.cwd)
    if ("reject" in t) return rejected(t.reject)
    if (!targets.includes(t.path)) targets.push(t.path)
  }
  if (targets.length === 0) return rejected("`rm` needs at least one target: an absolute path of a .md file in the memory directory")
  return { verdict: "delete", targets, force }
}
