/**
 * The oracle: what bash ran (the stub log, the file system) against what the guard read (its view) and allowed.
 *
 * A command the guard allows passes only when
 *  1. the programs the shell itself ran are exactly the guard's simple commands, word for word (globs expanded the
 *     way bash expands them in the directory the command ran in), following && / || / ; with the real exit statuses;
 *  2. no forbidden or unknown program ran, and no allowed program started another, except xargs starting its command;
 *  3. every command that ran, written out literally (each argument single-quoted), is itself allowed by the guard:
 *     this is what catches a glob or xargs input that became an option;
 *  4. nothing under the sandbox root changed (no new, changed or removed file) and the command ended in time.
 */
import { readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import type { GuardView, ViewNode, ViewWord } from "./guardView.ts"
import type { LogEntry, RunResult } from "./sandbox.ts"

export interface Mismatch {
  readonly command: string
  readonly problems: ReadonlyArray<string>
}

// ---------------------------------------------------------------------------------------------------------------------
// Pathname expansion as bash does it (no extglob, no nullglob, dots hidden, C locale order)

const hasGlob = (s: string): boolean => /[*?[]/.test(s)

/** A regular expression for one pattern segment, or undefined when the segment has no live glob character. */
export const segmentRegex = (seg: string): RegExp | undefined => {
  if (!hasGlob(seg)) return undefined
  let re = ""
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!
    if (c === "*") re += "[^]*"
    else if (c === "?") re += "[^]"
    else if (c === "[") {
      let j = i + 1
      let negate = false
      if (seg[j] === "!" || seg[j] === "^") {
        negate = true
        j++
      }
      let body = ""
      let first = true
      let closed = false
      for (; j < seg.length; j++) {
        const d = seg[j]!
        if (d === "]" && !first) {
          closed = true
          break
        }
        first = false
        if (d === "[" && seg[j + 1] === ":") {
          const end = seg.indexOf(":]", j + 2)
          if (end > 0) {
            const cls = seg.slice(j + 2, end)
            const map: Record<string, string> = { alpha: "A-Za-z", digit: "0-9", alnum: "A-Za-z0-9", upper: "A-Z", lower: "a-z", space: " \\t\\n\\r\\f\\v", punct: "!-/:-@\\[-`{-~", xdigit: "0-9A-Fa-f", print: " -~", graph: "!-~", blank: " \\t", cntrl: "\\x00-\\x1f\\x7f" }
            body += map[cls] ?? ""
            j = end + 1
            continue
          }
        }
        if (d === "-" && body.length > 0 && seg[j + 1] !== undefined && seg[j + 1] !== "]") {
          body += "-"
          continue
        }
        body += /[\\\]^-]/.test(d) ? `\\${d}` : d
      }
      if (!closed) re += "\\["
      else {
        re += `[${negate ? "^" : ""}${body}]`
        i = j
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
  }
  try {
    return new RegExp(`^${re}$`, "su")
  } catch {
    return undefined
  }
}

const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))

/** The words bash makes of an unquoted glob in `cwd`; the pattern itself when nothing matches. */
export const expandGlob = (pattern: string, cwd: string): ReadonlyArray<string> => {
  const absolute = pattern.startsWith("/")
  const segments = pattern.split("/")
  const trailingSlash = pattern.endsWith("/") && pattern.length > 1
  if (trailingSlash) segments.pop()
  let paths: Array<string> = [absolute ? "/" : ""]
  if (absolute) segments.shift()
  for (let k = 0; k < segments.length; k++) {
    const seg = segments[k]!
    const last = k === segments.length - 1
    const re = segmentRegex(seg)
    const next: Array<string> = []
    for (const p of paths) {
      const dir = p === "" ? cwd : p.startsWith("/") ? p : join(cwd, p)
      const prefix = p === "" ? "" : p.endsWith("/") ? p : `${p}/`
      if (re === undefined) {
        next.push(prefix + seg)
        continue
      }
      let names: Array<string> = []
      try {
        names = readdirSync(dir)
      } catch {
        continue
      }
      for (const n of names) {
        if (n.startsWith(".") && !seg.startsWith(".")) continue
        if (n === "." || n === "..") continue
        if (!re.test(n)) continue
        if ((!last || trailingSlash) && !isDir(join(dir, n))) continue
        next.push(prefix + n)
      }
    }
    paths = next
  }
  // Literal segments after a glob must exist.
  paths = paths.filter((p) => exists(p.startsWith("/") ? p : join(cwd, p)))
  if (paths.length === 0) return [pattern]
  return paths.map((p) => (trailingSlash ? `${p}/` : p)).sort(byteOrder)
}

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory()
  } catch {
    return false
  }
}

const exists = (p: string): boolean => {
  try {
    statSync(p)
    return true
  } catch {
    return false
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Matching the view against the log

/** The word lists bash may make of one guard word (several when the view cannot tell). */
const candidates = (w: ViewWord, cwd: string, home: string): ReadonlyArray<ReadonlyArray<string>> => {
  const out: Array<ReadonlyArray<string>> = []
  let value = w.value
  if (w.tilde) {
    const m = /^~([^/]*)(\/.*)?$/s.exec(value)
    if (m !== null) {
      const user = m[1]!
      const rest = m[2] ?? ""
      const base = user === "" ? home : user === "+" ? cwd : user === "root" ? "/root" : user === "nobody" ? "/nonexistent" : undefined
      if (base !== undefined) value = base + rest
    }
    out.push([w.value])
  }
  if (w.glob) out.push(expandGlob(value, cwd))
  out.push([value])
  return out
}

const matches = (words: ReadonlyArray<ViewWord>, argv: ReadonlyArray<string>, cwd: string, home: string): boolean => {
  const go = (i: number, j: number): boolean => {
    if (i === words.length) return j === argv.length
    for (const c of candidates(words[i]!, cwd, home)) {
      if (j + c.length > argv.length) continue
      let ok = true
      for (let k = 0; k < c.length; k++) if (argv[j + k] !== c[k]) ok = false
      if (ok && go(i + 1, j + c.length)) return true
    }
    return false
  }
  return go(0, 0)
}

const showWords = (words: ReadonlyArray<ViewWord>): string => JSON.stringify(words.map((w) => w.value))

export interface OracleInput {
  readonly command: string
  readonly view: GuardView
  readonly run: RunResult
  readonly home: string
  /** Classifies a command written out literally: true when the guard allows it read-only. */
  readonly allows: (command: string) => boolean
}

/** Each argument single-quoted: the command bash ran, as a literal command line. */
export const literalCommand = (argv: ReadonlyArray<string>): string => argv.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ")

export const judge = (input: OracleInput): Mismatch | undefined => {
  const { run, view } = input
  const problems: Array<string> = []
  if (run.timedOut) problems.push("did not end in time (killed)")
  for (const c of run.changes) problems.push(`file system: ${c}`)
  for (const e of run.log) {
    if (e.kind === "forbidden" || e.kind === "notfound") {
      problems.push(`ran ${e.kind === "notfound" ? "an unknown" : "a forbidden"} program${e.depth > 0 ? ` (started by ${e.parent})` : ""}: ${JSON.stringify(e.argv)}`)
    } else if (e.depth > 0 && e.parent !== "xargs") {
      problems.push(`${e.parent} started ${JSON.stringify(e.argv)}`)
    } else if (e.depth > 1) {
      problems.push(`a program started by xargs' command ran: ${JSON.stringify(e.argv)}`)
    }
  }
  // 3: every command that ran is allowed when written literally.
  const checked = new Set<string>()
  for (const e of run.log) {
    if (e.kind === "forbidden" || e.kind === "notfound" || (e.depth > 0 && e.parent !== "xargs")) continue
    const literal = literalCommand(e.argv)
    if (checked.has(literal)) continue
    checked.add(literal)
    if (!input.allows(literal)) problems.push(`ran ${literal}${e.depth > 0 ? " (from xargs)" : ""}, which the guard rejects when written out`)
  }
  // 1: the shell's own commands against the view.
  if ("error" in view) problems.push(`the guard allowed it but its view cannot be derived: ${view.error}`)
  else {
    const pool = run.log.filter((e) => e.depth === 0 && e.kind !== "forbidden" && e.kind !== "notfound")
    const used = new Set<LogEntry>()
    const missing: Array<string> = []
    const exec = (node: ViewNode): number => {
      switch (node.type) {
        case "nothing":
          return 0
        case "command": {
          const entry = pool.find((e) => !used.has(e) && matches(node.words, e.argv, e.cwd, input.home))
          if (entry === undefined) {
            // A redirection that fails (input file missing) runs nothing and gives status 1.
            if (node.redirected) return 1
            missing.push(showWords(node.words))
            return 0
          }
          used.add(entry)
          return entry.status
        }
        case "pipeline": {
          let s = 0
          for (const m of node.members) s = exec(m)
          return s
        }
        case "list": {
          const l = exec(node.left)
          if (node.op === ";" || (node.op === "&&" && l === 0) || (node.op === "||" && l !== 0)) return exec(node.right)
          return l
        }
      }
    }
    if (!run.timedOut) {
      exec(view.root)
      for (const m of missing) problems.push(`the guard read ${m} but bash did not run it`)
    }
    for (const e of pool) if (!used.has(e)) problems.push(`bash ran ${JSON.stringify(e.argv)}, which is not in the guard's reading`)
  }
  return problems.length === 0 ? undefined : { command: input.command, problems }
}
