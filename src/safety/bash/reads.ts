/**
 * What a read-only command may open: every word that could name a file, as an absolute path, for the protected-path
 * check of the background shell (the caller does the I/O: real paths, wildcards, package-manager configs).
 *
 * Read the way bash and the programs read them, not by splitting the text: quotes and escapes removed, `$'...'`
 * decoded, `~` expanded; an option's attached value (`-f/x`, `--file=/x`) checked like a separate word; a relative
 * word checked against every directory a `cd` before it may have moved to; a recursive search (`grep -r`, `rg`,
 * `git grep --no-index`, `diff -r`, find with -exec) marked as reading everything under its roots, with the commands
 * find runs read like any other; and `xargs` judged by what feeds it: file names listed by find (without -exec), fd,
 * ls, git ls-files or `grep -l`, through line filters, are the listed trees, anything else (cat, echo, sed ... or a
 * file, or the names inside one: `--files0-from`, `file -f`) is input the guard cannot see, and refused.
 *
 * Conservative: every word counts (a grep pattern too), so a pattern that looks like a credential file is refused;
 * the model can rephrase it. Pure: run on a tree the classifier has accepted. How options and search roots are told
 * apart without each program's full spec is in readOperands.ts.
 */
import * as posix from "node:path/posix"
import { commandParts } from "./commandParts.ts"
import { findParts } from "./find.ts"
import {
  GREP_VALUES,
  GREPS,
  grepRecursive,
  hasLong,
  hasShort,
  isNumber,
  isOption,
  LINE_FILTERS,
  operandsOf,
  RG_VALUES,
  searchRoots
} from "./readOperands.ts"
import type { BashNode } from "./tree.ts"
import { isDynamic, resolveWord, show, type Word } from "./words.ts"

export interface ReadTarget {
  /** Absolute, normalized; may hold unquoted wildcards when `glob`. */
  readonly path: string
  /** Holds an unquoted wildcard: the caller expands it. */
  readonly glob: boolean
  /** A search root: a protected file anywhere under it may be read. */
  readonly recursive: boolean
  /** A guess (a suffix of an option word): checked by name only, not looked up on disk. */
  readonly lexical: boolean
  /** For a search root: hidden files (dot names) are read too (ripgrep skips them unless told otherwise). */
  readonly hidden?: boolean
}

export interface ReadPlan {
  readonly targets: ReadonlyArray<ReadTarget>
  /** Why the guard cannot tell what the command reads (the command is then refused). */
  readonly refuse?: string
}

export interface ReadContext {
  readonly cwd: string
  /** The home directory `~` names. */
  readonly home: string
}

/** More directories than this after `cd`s, or more targets than this, and the plan gives up (refuses). */
const MAX_DIRS = 16
const MAX_TARGETS = 20_000

/** Commands whose words xargs adds are never opened as files. */
const NO_FILES = new Set(["echo", "printf", "true", "pwd", "basename", "dirname"])

/** Short options of xargs that take the next word as their value (see commands.ts). */
const XARGS_VALUE = "dEILnPs"
const XARGS_LONG_VALUE = new Set(["--delimiter", "--max-args", "--max-procs", "--max-chars"])

interface Element {
  readonly cmd: BashNode
  readonly redirects: ReadonlyArray<BashNode>
}

export const readPlan = (source: string, root: BashNode, ctx: ReadContext): ReadPlan => {
  const targets: Array<ReadTarget> = []
  let dirs: Array<string> = [posix.resolve(ctx.cwd)]
  let refuse: string | undefined

  /** The absolute paths a word may name (one per directory), or a refusal. */
  const absolute = (w: Word, value: string, tilde: boolean): ReadonlyArray<string> | string => {
    if (tilde) {
      if (value === "~" || value.startsWith("~/")) return [posix.normalize(ctx.home + value.slice(1))]
      return `${show(w)} expands to another user's home (or to $PWD or $OLDPWD with ~+ and ~-), which the guard does not look up; write the path out`
    }
    if (value.startsWith("/")) return [posix.normalize(value)]
    return dirs.map((d) => posix.resolve(d, value))
  }

  /** Whether the search roots of the command being read include hidden files. */
  let hidden = true
  const add = (w: Word, value: string, options: { tilde: boolean; recursive: boolean; lexical: boolean }): void => {
    if (refuse !== undefined || value === "" || value === "-") return
    const paths = absolute(w, value, options.tilde)
    if (typeof paths === "string") {
      refuse = paths
      return
    }
    for (const path of paths) {
      targets.push(options.recursive ? { path, glob: w.glob, recursive: true, lexical: options.lexical, hidden } : { path, glob: w.glob, recursive: false, lexical: options.lexical })
    }
    if (targets.length > MAX_TARGETS) refuse = `the command names more than ${MAX_TARGETS} possible files to check; split it`
  }

  /** Every reading of a word as a file name: the word, its `=value`, a `REV:path` path, an attached short value. */
  const addWord = (w: Word, closed: boolean, recursive: boolean): void => {
    const v = w.value
    if (closed || !isOption(v)) {
      add(w, v, { tilde: w.tilde, recursive, lexical: false })
      const colon = v.lastIndexOf(":")
      if (colon >= 0 && colon < v.length - 1) add(w, v.slice(colon + 1), { tilde: false, recursive, lexical: true })
      const paren = v.startsWith(":(") ? v.indexOf(")") : -1
      if (paren > 0 && paren < v.length - 1) add(w, v.slice(paren + 1), { tilde: false, recursive, lexical: true })
    }
    const eq = v.indexOf("=")
    if (eq > 0 && eq < v.length - 1) add(w, v.slice(eq + 1), { tilde: false, recursive, lexical: false })
    if (!closed && isOption(v) && v[1] !== "-") {
      // `-f/x`, `-rf.env`: the value may start after any letter of a cluster.
      for (let j = 2; j < Math.min(v.length, 12); j++) add(w, v.slice(j), { tilde: false, recursive, lexical: j !== 2 })
    }
  }

  const inputRedirects = (nodes: ReadonlyArray<BashNode>): Array<Word> => {
    const found: Array<Word> = []
    for (const r of nodes) {
      if (r.type !== "file_redirect") continue
      const op = r.children.find((c) => !c.named)?.type
      if (op !== "<") continue
      const dest = r.children.find((c) => c.named && c.type !== "file_descriptor")
      if (dest === undefined) continue
      const w = resolveWord(source, dest)
      if (!isDynamic(w)) found.push(w)
    }
    return found
  }

  const wordsOf = (el: Element): ReadonlyArray<Word> | undefined => {
    const parts = commandParts(source, el.cmd)
    return typeof parts === "string" ? undefined : parts.words
  }

  /** What feeds `xargs` at index k of its pipeline: undefined when the names it gets are known to be listed files. */
  const xargsInput = (pipeline: ReadonlyArray<Element>, k: number, redirects: ReadonlyArray<BashNode>, nested: string): string | undefined => {
    const own = inputRedirects(redirects)
    if (own.length > 0) {
      return `\`xargs ${nested}\` would open the files named inside ${show(own[0]!)}, which the guard cannot see; name the files directly`
    }
    for (let j = 0; j < k; j++) {
      const words = wordsOf(pipeline[j]!)
      if (words === undefined || words.length === 0) return "the input of xargs could not be read"
      const name = words[0]!.value
      const args = words.slice(1)
      hidden = true
      const listRoots = (roots: ReadonlyArray<Word>, cwd: boolean) => {
        for (const r of roots) addWord(r, true, true)
        if (cwd || roots.length === 0) for (const d of dirs) targets.push({ path: d, glob: false, recursive: true, lexical: false, hidden })
      }
      if (name === "find") {
        const parts = findParts(args)
        if (typeof parts === "string" || parts.clauses.length > 0) {
          return `\`xargs ${nested}\` would open names printed by the command find runs with -exec, which the guard cannot see; run the command in find -exec instead`
        }
        listRoots(parts.roots, parts.roots.length === 0)
        continue
      }
      if (name === "ls" || name === "tree" || name === "du" || name === "fd") {
        const ops = operandsOf(args, name === "fd" ? "deEtScjo" : name === "tree" ? "LIP" : "ITw")
        listRoots(ops, true)
        continue
      }
      if (name === "git") {
        const sub = args.find((w) => !isOption(w.value))?.value
        const lists = sub === "ls-files" || sub === "ls-tree" || sub === "status" ||
          ((sub === "diff" || sub === "show" || sub === "log" || sub === "grep") && hasLong(args, "--name-only", "--name-status", "--files-with-matches", "--files-without-match", "-l", "-L"))
        if (!lists) return `\`xargs ${nested}\` would open files named by the output of \`git ${sub ?? ""}\`, which the guard cannot see; feed xargs from git ls-files, git diff --name-only or find`
        listRoots([], true)
        continue
      }
      if (GREPS.has(name) || name === "rg") {
        const lists = hasShort(args, "lL", name === "rg" ? RG_VALUES : GREP_VALUES) ||
          hasLong(args, "--files-with-matches", "--files-without-match", "--files")
        const { roots, cwd } = searchRoots(name, args)
        if (lists) {
          listRoots(roots, cwd && (name === "rg" || grepRecursive(args)))
          continue
        }
        if (roots.length > 0 || name === "rg") {
          return `\`xargs ${nested}\` would open files named by lines that \`${name}\` prints from files, which the guard cannot see; use \`${name} -l\` to list files`
        }
        continue
      }
      const filter = LINE_FILTERS[name]
      if (filter !== undefined) {
        const files = operandsOf(args, filter).filter((w) => !isNumber(w.value))
        if (files.length === 0) continue
        return `\`xargs ${nested}\` would open files named inside ${show(files[0]!)}, which the guard cannot see; name the files directly`
      }
      return `\`xargs ${nested}\` would open files named by the output of \`${name}\`, which the guard cannot see; name the files directly, or feed xargs from find, ls, git ls-files or grep -l`
    }
    return undefined
  }

  /** The words of one command (not cd, not xargs's input): recursive searches read under their roots. */
  const commandReads = (name: string, args: ReadonlyArray<Word>): void => {
    let recursiveWords = false
    let cwdRoot = false
    hidden = name !== "rg" || hasLong(args, "--hidden") || hasShort(args, ".", RG_VALUES) ||
      args.filter((w) => /^-[a-zA-Z.]*u/.test(w.value)).reduce((n, w) => n + (w.value.match(/u/g)?.length ?? 0), 0) >= 2
    if (GREPS.has(name) && grepRecursive(args)) {
      recursiveWords = true
      cwdRoot = searchRoots(name, args).cwd
    } else if (name === "rg") {
      recursiveWords = true
      cwdRoot = searchRoots(name, args).cwd
    } else if (name === "git") {
      const sub = args.find((w) => !isOption(w.value))?.value
      if ((sub === "grep" && hasLong(args, "--no-index", "--untracked")) || (sub === "diff" && hasLong(args, "--no-index"))) {
        recursiveWords = true
        cwdRoot = sub === "grep"
      }
    } else if (name === "diff" && (hasShort(args, "r", "CDFIlSUWx") || hasLong(args, "--recursive"))) {
      recursiveWords = true
    }
    const fromFile = hasLong(args, "--files0-from") ? "--files0-from"
      : name === "file" && (hasLong(args, "--files-from") || hasShort(args, "f", "eFmP")) ? "--files-from" : undefined
    if (fromFile !== undefined) {
      refuse = `\`${name} ${fromFile}\` opens files named inside another file, which the guard cannot see; name the files directly`
      return
    }
    let closed = false
    for (const w of args) {
      if (!closed && w.value === "--") {
        closed = true
        continue
      }
      addWord(w, closed, recursiveWords)
    }
    if (cwdRoot) for (const d of dirs) targets.push({ path: d, glob: false, recursive: true, lexical: false, hidden })
  }

  const handle = (el: Element, pipeline: ReadonlyArray<Element>, k: number): void => {
    const parts = commandParts(source, el.cmd)
    if (typeof parts === "string") return
    for (const w of inputRedirects([...parts.redirects, ...el.redirects])) addWord(w, true, false)
    const [nameWord, ...args] = parts.words
    if (nameWord === undefined) return
    const name = nameWord.value
    if (name === "cd") {
      const target = args.find((w) => !isOption(w.value))
      if (target?.value === "-") {
        refuse = "after `cd -` the guard cannot tell which directory relative paths name; cd to the directory by name"
        return
      }
      const next = new Set(dirs)
      if (target === undefined) next.add(posix.resolve(ctx.home))
      else {
        const paths = absolute(target, target.value, target.tilde)
        if (typeof paths === "string") {
          refuse = paths
          return
        }
        for (const p of paths) next.add(p)
      }
      if (next.size > MAX_DIRS) {
        refuse = "the command changes directory too many times for the guard to follow; run the parts separately"
        return
      }
      dirs = [...next]
      return
    }
    const found = name === "find" ? findParts(args) : undefined
    if (typeof found === "object" && found.clauses.length > 0) {
      // The commands it runs open the files found: everything under its roots, as for a recursive search.
      hidden = true
      for (const r of found.roots) addWord(r, true, true)
      if (found.roots.length === 0) for (const d of dirs) targets.push({ path: d, glob: false, recursive: true, lexical: false, hidden })
      commandReads(name, found.own)
      for (const c of found.clauses) commandReads(c.command[0]!.value, c.command.slice(1))
      return
    }
    commandReads(name, args)
    if (refuse !== undefined) return
    if (name === "xargs") {
      let nested: string | undefined
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!.value
        if (XARGS_LONG_VALUE.has(v)) {
          i++
          continue
        }
        if (isOption(v)) {
          if (XARGS_VALUE.includes(v[v.length - 1]!) && !v.startsWith("--") && v.length === 2) i++
          continue
        }
        nested = v
        break
      }
      if (nested === undefined || NO_FILES.has(nested)) return
      const problem = xargsInput(pipeline, k, [...parts.redirects, ...el.redirects], nested)
      if (problem !== undefined) refuse ??= problem
    }
  }

  const elementOf = (node: BashNode): Element | undefined => {
    if (node.type === "command") return { cmd: node, redirects: [] }
    if (node.type === "redirected_statement") {
      const body = node.children.find((c) => c.named && c.type !== "file_redirect" && c.type !== "heredoc_redirect" && c.type !== "herestring_redirect")
      if (body?.type === "command") return { cmd: body, redirects: node.children.filter((c) => c.type === "file_redirect") }
    }
    return undefined
  }

  const stack: Array<BashNode> = [root]
  while (stack.length > 0 && refuse === undefined) {
    const node = stack.pop()!
    if (node.type === "pipeline") {
      const elements: Array<Element> = []
      for (const child of node.children) {
        if (!child.named) continue
        const el = elementOf(child)
        if (el === undefined) {
          refuse = "a pipeline part the guard cannot follow"
          break
        }
        elements.push(el)
      }
      for (let k = 0; k < elements.length && refuse === undefined; k++) handle(elements[k]!, elements, k)
      continue
    }
    const el = elementOf(node)
    if (el !== undefined) {
      handle(el, [el], 0)
      continue
    }
    if (node.type === "redirected_statement") {
      for (const w of inputRedirects(node.children.filter((c) => c.type === "file_redirect"))) addWord(w, true, false)
    }
    for (let i = node.children.length - 1; i >= 0; i--) {
      const c = node.children[i]!
      if (c.named && c.type !== "file_redirect") stack.push(c)
    }
  }
  return refuse === undefined ? { targets } : { targets, refuse }
}
