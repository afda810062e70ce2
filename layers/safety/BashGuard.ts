/**
 * BashGuard: classifies background bash commands (read-only | delete | rejected) over a tree-sitter-bash parse.
 *
 * The wasm runtime and the bash grammar load once per process; the layer owns one Parser, created when the layer is
 * built and deleted when its scope closes. Classification itself is synchronous and pure (src/safety/bash/classify.ts);
 * `classify` wraps it for Effect callers, `classifySync` serves hot loops (bash-check over a corpus, the bench).
 *
 * This module is the service's tag, its layers and the delete executor; the interface is in bashGuardShape.ts, the wasm
 * files and their load error in bashWasm.ts. The parser-backed guard (layers/safety/BashParser.ts, with tree-sitter and
 * the classifier) is imported when a layer is built, or at the first command with `layerOnFirstUse`; it imports
 * neither this module nor anything that loads it.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import type { DeleteVerdict, Verdict } from "../../src/safety/bash/verdict.ts"
import type { BashGuardShape } from "./bashGuardShape.ts"
import type { BashParserLoadError } from "./bashWasm.ts"

export type { ClassifyContext, DeleteVerdict, Verdict } from "../../src/safety/bash/verdict.ts"

/** The parser-backed guard: its module (tree-sitter, the classifier) is imported here, when a layer is built. */
const parserGuard = (options: { readonly budgetMs?: number }): Effect.Effect<BashGuardShape, BashParserLoadError, Scope.Scope> =>
  Effect.promise(() => import("./BashParser.ts")).pipe(
    Effect.flatMap(({ acquireParser, makeClassifier }) =>
      Effect.acquireRelease(acquireParser, (parser) => Effect.sync(() => parser.delete())).pipe(
        Effect.map((parser) => makeClassifier(parser, options))
      )
    )
  )

const unavailable = (why: string): Verdict => ({ verdict: "rejected", reason: `the bash checker is unavailable (${why})` })

export class BashGuard extends Context.Tag("pm/BashGuard")<BashGuard, BashGuardShape>() {
  /** The real guard with a chosen parse budget (tests of long inputs that are not about the budget). */
  static readonly layerWith = (options: { readonly budgetMs?: number }): Layer.Layer<BashGuard, BashParserLoadError> =>
    Layer.scoped(BashGuard, parserGuard(options))

  /** The real guard: loads the parser (once per process) and frees it when the scope closes. */
  static readonly layer: Layer.Layer<BashGuard, BashParserLoadError> = BashGuard.layerWith({})

  /**
   * The real guard, loaded by its first `classify` rather than when the layer is built: the extension's background
   * tasks need the parser only once a task runs bash, so session start loads neither tree-sitter nor its wasm. A
   * parser that cannot load refuses the command with the reason, and the next command tries again. `classifySync`
   * cannot wait for the load: before it, it refuses too.
   */
  static readonly makeOnFirstUse: Effect.Effect<BashGuardShape, never, Scope.Scope> = Effect.gen(function* () {
    const scope = yield* Effect.scope
    const once = yield* Effect.makeSemaphore(1)
    let loaded: BashGuardShape | undefined
    const load = once.withPermits(1)(
      Effect.suspend(() =>
        loaded !== undefined
          ? Effect.succeed(loaded)
          : parserGuard({}).pipe(
            Scope.extend(scope),
            Effect.tap((guard) => Effect.sync(() => void (loaded = guard)))
          )
      )
    )
    return {
      classify: (command, context) =>
        load.pipe(
          Effect.map((guard) => guard.classifySync(command, context)),
          Effect.catchAll((e) => Effect.succeed(unavailable(e.message)))
        ),
      classifySync: (command, context) => loaded?.classifySync(command, context) ?? unavailable("not loaded yet"),
      parseOnly: (command) => loaded?.parseOnly(command)
    } satisfies BashGuardShape
  })
  static readonly layerOnFirstUse: Layer.Layer<BashGuard> = Layer.scoped(BashGuard, BashGuard.makeOnFirstUse)

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
