/**
 * BashGuard: classifies background bash commands (read-only | delete | rejected) over a tree-sitter-bash parse.
 *
 * The wasm runtime and the bash grammar load once per process; the layer owns one Parser, created when the layer is
 * built and deleted when its scope closes. Classification itself is synchronous and pure (src/bash/classify.ts);
 * `classify` wraps it for Effect callers, `classifySync` serves hot loops (bash-check over a corpus, the bench).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { Language, Parser } from "web-tree-sitter"
import {
  classifyTree,
  mergedLineBreaks,
  STRUCTURE_REASONS,
  precheck,
  rejected,
  type ClassifyContext,
  type DeleteVerdict,
  type Verdict
} from "../src/bash/classify.ts"
import { copyTree, type BashNode, type NodeTypes } from "../src/bash/tree.ts"

/** How many times a command is parsed again after merged line breaks are split (each pass fixes all it finds). */
const MAX_REPARSES = 8

/**
 * CPU time allowed for parsing one command. tree-sitter's own parse is not linear for every shape of input (a
 * megabyte of `| cat` takes seconds), so a parse still running when its process has spent this much CPU time on the
 * command is cancelled and the command rejected. CPU time rather than wall time, so a busy machine does not turn a
 * legitimate command into a rejection. Short commands never come near it; the check is installed only for inputs
 * above LARGE_INPUT. Everything after the parse is linear in the input.
 */
export const CLASSIFY_BUDGET_MS = 400
const LARGE_INPUT = 16 * 1024

const cpuMs = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

export type { ClassifyContext, DeleteVerdict, Verdict } from "../src/bash/classify.ts"

export class BashParserLoadError extends Schema.TaggedError<BashParserLoadError>()("BashParserLoadError", {
  /** Which file failed: the tree-sitter runtime or the bash grammar. */
  file: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `cannot load the bash parser (${this.file}): ${this.detail}`
  }
}

export interface BashGuardShape {
  /** Classifies one command. Never fails: a command that cannot be parsed is a rejection. */
  readonly classify: (command: string, context: ClassifyContext) => Effect.Effect<Verdict>
  /** The same, synchronously. */
  readonly classifySync: (command: string, context: ClassifyContext) => Verdict
  /** Parses and frees the tree without classifying: the bench's baseline. */
  readonly parseOnly: (command: string) => void
}

// ---------------------------------------------------------------------------------------------------------------------
// Locating the wasm files

export const RUNTIME_WASM = "web-tree-sitter.wasm"
export const GRAMMAR_WASM = "tree-sitter-bash.wasm"

/**
 * Where a wasm file is: beside the running module first (the bundle in dist/ ships both files next to itself), then
 * in node_modules (running from source under vitest or `node bench/...`).
 */
export const locateWasm = (file: string, moduleUrl: string = import.meta.url): string | undefined => {
  const candidates: Array<() => string> = [
    () => fileURLToPath(new URL(`./${file}`, moduleUrl)),
    () => createRequire(moduleUrl).resolve(file === RUNTIME_WASM ? `web-tree-sitter/${file}` : `tree-sitter-bash/${file}`)
  ]
  for (const candidate of candidates) {
    try {
      const path = candidate()
      if (existsSync(path)) return path
    } catch {
      // not resolvable from here: try the next place
    }
  }
  return undefined
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

const acquireParser: Effect.Effect<Parser, BashParserLoadError> = Effect.tryPromise({
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
  /** Parses and copies the tree, freeing the parser's copy. */
  const parseTree = (
    text: string,
    deadline: number
  ): { readonly root: BashNode; readonly hasError: boolean; readonly comment: boolean } | undefined => {
    const tree =
      text.length > LARGE_INPUT
        ? parser.parse(text, null, { progressCallback: () => cpuMs() > deadline })
        : parser.parse(text)
    if (tree === null) {
      // A cancelled parse leaves its state in the parser, and the next parse would resume it: start afresh.
      parser.reset()
      return undefined
    }
    try {
      const cursor = tree.walk()
      try {
        const copy = copyTree(cursor, types, text, { opaque: OPAQUE_NODES })
        if (!copy.suspicious || !tree.rootNode.hasError) return { root: copy.root, hasError: false, comment: copy.comment }
        // A large input is worded from the copy at hand (its ERROR nodes), not copied again: one more walk asking
        // the parser about every node costs several times the parse.
        if (text.length > LARGE_INPUT) return { root: copy.root, hasError: true, comment: copy.comment }
        // A syntax error: copy again, completely and with MISSING flags, to word it.
        cursor.reset(tree.rootNode)
        const full = copyTree(cursor, types, text, { withMissing: true })
        return { root: full.root, hasError: true, comment: full.comment }
      } finally {
        cursor.delete()
      }
    } finally {
      tree.delete()
    }
  }

  const classifySync = (command: string, context: ClassifyContext): Verdict => {
    const early = precheck(command)
    if (early !== undefined) return rejected(early)
    const deadline = command.length > LARGE_INPUT ? cpuMs() + budgetMs : Number.POSITIVE_INFINITY
    try {
      let text = command
      for (let attempt = 0; attempt <= MAX_REPARSES; attempt++) {
        const parsed = parseTree(text, deadline)
        if (parsed === undefined) {
          return rejected(
            command.length > LARGE_INPUT
              ? `the command is too large or too complex to check (parsing it took more than ${budgetMs} ms); split it into smaller commands`
              : "the command could not be parsed"
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
        return classifyTree(text, parsed.root, parsed.hasError, context, parsed.comment)
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

export class BashGuard extends Context.Tag("pm/BashGuard")<BashGuard, BashGuardShape>() {
  /** The real guard with a chosen parse budget (tests of long inputs that are not about the budget). */
  static readonly layerWith = (options: { readonly budgetMs?: number }): Layer.Layer<BashGuard, BashParserLoadError> =>
    Layer.scoped(
      BashGuard,
      Effect.acquireRelease(acquireParser, (parser) => Effect.sync(() => parser.delete())).pipe(
        Effect.map((parser) => makeClassifier(parser, options))
      )
    )

  /** The real guard: loads the parser (once per process) and frees it when the scope closes. */
  static readonly layer: Layer.Layer<BashGuard, BashParserLoadError> = BashGuard.layerWith({})

  /** A fixed answer for every command (tests of consumers). */
  static readonly layerConstant = (verdict: Verdict): Layer.Layer<BashGuard> =>
    Layer.succeed(BashGuard, {
      classify: () => Effect.succeed(verdict),
      classifySync: () => verdict,
      parseOnly: () => undefined
    })
}

// ---------------------------------------------------------------------------------------------------------------------
// The delete executor

export interface DeleteOutcome {
  /** What `rm` would print: nothing on success, one `rm: cannot remove ...` line per failed target. */
  readonly output: string
  /** 0 when every target was removed (or was missing under -f), else 1. */
  readonly exitCode: number
  readonly removed: ReadonlyArray<string>
}

/**
 * Carries out a delete verdict through the write pipeline's safe delete (MemoryWriter.remove, which re-checks
 * containment after resolving links and never follows the final link). Like rm, it goes on after a failed target and
 * reports each failure. The remover is passed in so this module does not depend on the writer.
 */
export const runDelete = <E>(
  verdict: DeleteVerdict,
  remove: (path: string, options: { readonly force: boolean }) => Effect.Effect<unknown, E>,
  describe: (error: E) => string
): Effect.Effect<DeleteOutcome> =>
  Effect.gen(function* () {
    const failures: Array<string> = []
    const removed: Array<string> = []
    for (const target of verdict.targets) {
      yield* remove(target, { force: verdict.force }).pipe(
        Effect.match({
          onFailure: (e) => void failures.push(`rm: cannot remove '${target}': ${describe(e)}`),
          onSuccess: () => void removed.push(target)
        })
      )
    }
    return { output: failures.map((l) => `${l}\n`).join(""), exitCode: failures.length === 0 ? 0 : 1, removed }
  })
