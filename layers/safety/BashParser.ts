/**
 * The parser-backed BashGuard: tree-sitter-bash (wasm) under the classifier. BashGuard's layers import this module
 * when they build the guard, so nothing here loads before a guard is needed.
 */
import * as Effect from "effect/Effect"
import { Language, Parser, type TreeCursor } from "web-tree-sitter"
import { classifyTree } from "../../src/safety/bash/classify.ts"
import { mergedLineBreaks, precheck } from "../../src/safety/bash/syntax.ts"
import { STRUCTURE_REASONS } from "../../src/safety/bash/readOnly.ts"
import { copyTree, type BashNode, type NodeTypes } from "../../src/safety/bash/tree.ts"
import { OVER_BUDGET, rejected, type ClassifyContext, type Verdict } from "../../src/safety/bash/verdict.ts"
import type { BashGuardShape } from "./bashGuardShape.ts"
import { BashParserLoadError, GRAMMAR_WASM, locateWasm, RUNTIME_WASM } from "./bashWasm.ts"

/**
 * CPU time allowed for parsing one command. tree-sitter's own parse is not linear for every shape of input (a
 * megabyte of `| cat` takes seconds), so a parse still running when its process has spent this much CPU time on the
 * command is cancelled and the command rejected. CPU time rather than wall time, so a busy machine does not turn a
 * legitimate command into a rejection. Short commands never come near it; the check is installed only for inputs
 * above LARGE_INPUT. Everything after the parse is linear in the input.
 */
const CLASSIFY_BUDGET_MS = 400

/** How many times a command is parsed again after merged line breaks are split (each pass fixes all it finds). */
const MAX_REPARSES = 8

/** Inputs above this size are worded from the first copy of an erroneous tree (no second, full copy). */
const LARGE_INPUT = 16 * 1024

/**
 * tree-sitter calls the progress callback every hundred or so parse operations; the clock is read on every
 * CLOCK_EVERY-th call only, the first time to start the budget (a few tens of microseconds of parsing late), so a
 * short command never reads it at all.
 */
const CLOCK_EVERY = 16

const cpuMs = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

// ---------------------------------------------------------------------------------------------------------------------
// Loading, once per process

let languageOnce: Promise<Language> | undefined

const loadLanguage = (): Promise<Language> => {
  if (languageOnce === undefined) {
    languageOnce = (async () => {
      const runtime = locateWasm(RUNTIME_WASM)
      if (runtime === undefined) throw new BashParserLoadError({ file: RUNTIME_WASM, detail: "not found beside the module or in node_modules" })
      const grammar = locateWasm(GRAMMAR_WASM)
      if (grammar === undefined) throw new BashParserLoadError({ file: GRAMMAR_WASM, detail: "not found beside the module or in node_modules" })
      try {
        await Parser.init({ locateFile: () => runtime })
      } catch (e) {
        throw new BashParserLoadError({ file: runtime, detail: String(e) })
      }
      try {
        return await Language.load(grammar)
      } catch (e) {
        throw new BashParserLoadError({ file: grammar, detail: String(e) })
      }
    })()
    // A failed load may be retried by a later layer build.
    languageOnce.catch(() => {
      languageOnce = undefined
    })
  }
  return languageOnce
}

export const acquireParser: Effect.Effect<Parser, BashParserLoadError> = Effect.tryPromise({
  try: async () => {
    const language = await loadLanguage()
    const parser = new Parser()
    parser.setLanguage(language)
    return parser
  },
  catch: (e) => (e instanceof BashParserLoadError ? e : new BashParserLoadError({ file: GRAMMAR_WASM, detail: String(e) }))
})

// ---------------------------------------------------------------------------------------------------------------------
// The guard

/** Rejected whatever their content: their children are never looked at, so they are not copied. */
const OPAQUE_NODES: ReadonlySet<string> = new Set(Object.keys(STRUCTURE_REASONS).filter((t) => t !== "ERROR").concat([
  "command_substitution",
  "process_substitution",
  "arithmetic_expansion",
  "expansion",
  "simple_expansion",
  "heredoc_redirect",
  "herestring_redirect",
  "translated_string",
  "brace_expression"
]))

/** Type names and namedness by type id, from the language. */
const nodeTypesOf = (language: Language): NodeTypes => {
  const names: Array<string> = []
  const named: Array<boolean> = []
  for (let id = 0; id < language.nodeTypeCount; id++) {
    names.push(language.nodeTypeForId(id) ?? "ERROR")
    named.push(language.nodeTypeIsNamed(id))
  }
  return { names, named }
}

export const makeClassifier = (parser: Parser, options: { readonly budgetMs?: number } = {}): BashGuardShape => {
  const budgetMs = options.budgetMs ?? CLASSIFY_BUDGET_MS
  const types = nodeTypesOf(parser.language!)
  /**
   * One cursor for every parse, moved to each new tree's root: creating and deleting a cursor per command (a wasm
   * allocation and a finalizer registration each way) cost about a tenth of the guard's own work. Node's finalizer
   * frees it with the classifier.
   */
  let cursor: TreeCursor | undefined
  /** Parses and copies the tree, freeing the parser's copy. */
  /**
   * The budget of the command being classified: CPU time from the first progress callback of its first parse,
   * shared by every parse of it (a reparse after merged line breaks does not start a new budget).
   */
  let deadline = Number.NaN
  let calls = 0
  const overBudget = (): boolean => {
    if (++calls % CLOCK_EVERY !== 0) return false
    if (Number.isNaN(deadline)) {
      deadline = cpuMs() + budgetMs
      return budgetMs <= 0
    }
    return cpuMs() > deadline
  }
  const progressCallback = overBudget
  const parseTree = (
    text: string
  ): { readonly root: BashNode; readonly hasError: boolean; readonly comment: boolean } | undefined | "over budget" => {
    const tree = parser.parse(text, null, { progressCallback })
    if (tree === null) {
      // A cancelled parse leaves its state in the parser, and the next parse would resume it: start afresh.
      parser.reset()
      return undefined
    }
    try {
      const root = tree.rootNode
      if (cursor === undefined) cursor = root.walk()
      else cursor.reset(root)
      const copy = copyTree(cursor, types, text, { opaque: OPAQUE_NODES, overBudget: Number.isNaN(deadline) ? undefined : () => cpuMs() > deadline })
      if (copy.cancelled === true) return "over budget"
      if (!copy.suspicious || !root.hasError) return { root: copy.root, hasError: false, comment: copy.comment }
      // A large input is worded from the copy at hand (its ERROR nodes), not copied again: one more walk asking
      // the parser about every node costs several times the parse.
      if (text.length > LARGE_INPUT) return { root: copy.root, hasError: true, comment: copy.comment }
      // A syntax error: copy again, completely and with MISSING flags, to word it.
      cursor.reset(root)
      const full = copyTree(cursor, types, text, { withMissing: true })
      return { root: full.root, hasError: true, comment: full.comment }
    } finally {
      tree.delete()
    }
  }

  const classifySync = (command: string, context: ClassifyContext): Verdict => {
    const comment = { cut: -1 }
    const early = precheck(command, comment)
    if (early !== undefined) return rejected(early)
    // A comment that runs to the end: bash ignores it, so the guard reads (and the caller runs) the text before it.
    const checked = comment.cut >= 0 ? command.slice(0, comment.cut).trimEnd() : command
    if (!/\S/.test(checked)) return rejected("the command is empty (only a comment)")
    deadline = Number.NaN
    calls = 0
    try {
      let text = checked
      for (let attempt = 0; attempt <= MAX_REPARSES; attempt++) {
        const parsed = parseTree(text)
        if (parsed === "over budget") return rejected(OVER_BUDGET)
        if (parsed === undefined) {
          return rejected(
            `the command is too large or too complex to check (parsing it took more than ${budgetMs} ms of CPU time); split it into smaller commands`
          )
        }
        if (!parsed.hasError && text.includes("\n")) {
          const merged = mergedLineBreaks(text, parsed.root)
          if (merged.length > 0) {
            // Same length, same offsets: `;` ends the command exactly where bash's newline does.
            const chars = text.split("")
            for (const at of merged) chars[at] = ";"
            text = chars.join("")
            continue
          }
        }
        // The budget covers the copy and the checks too, once the parse has started the clock.
        if (!Number.isNaN(deadline) && cpuMs() > deadline) return rejected(OVER_BUDGET)
        const verdict = classifyTree(text, parsed.root, parsed.hasError, Number.isNaN(deadline) ? context : { ...context, overBudget: () => cpuMs() > deadline }, parsed.comment)
        return verdict.verdict === "read-only" && checked !== command ? { ...verdict, run: checked } : verdict
      }
      return rejected("the command's line breaks could not be read unambiguously; join the commands with && or ; on one line")
    } catch (e) {
      return rejected(`the command could not be checked (${e instanceof Error ? e.message : String(e)})`)
    }
  }
  return {
    classifySync,
    classify: (command, context) => Effect.sync(() => classifySync(command, context)),
    parseOnly: (command) => {
      parser.parse(command)?.delete()
    }
  }
}

