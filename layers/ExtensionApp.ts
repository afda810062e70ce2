/**
 * The Pi extension's whole graph: MemorySession and the background agents over recall, the host's pieces and the
 * core of layers/Core.ts. It lives apart from App.ts so that the `pm` bundle, which imports App.ts, carries none of
 * the background agents.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { BashGuard } from "./BashGuard.ts"
import type { ConfigEnvironment } from "./ConfigService.ts"
import { type CoreReplacements, makeCore } from "./Core.ts"
import { FileSystem } from "./FileSystem.ts"
import { setLockHolderKind } from "./LockService.ts"
import type { Host } from "./Host.ts"
import { BackgroundHost, BackgroundSession, makeBackgroundSession } from "./background/BackgroundSession.ts"
import { Dream } from "./background/Dream.ts"
import { DreamAttempt, makeDreamAttempt } from "./background/DreamAttempt.ts"
import { Extractor } from "./background/Extractor.ts"
import type { PiToolkit } from "./background/PiToolkit.ts"
import { makeSessionScanner, SessionScanner } from "./background/SessionScanner.ts"
import { makeMemoryBrowse, MemoryBrowse } from "./MemoryBrowse.ts"
import { makeMemorySession, MemorySession } from "./MemorySession.ts"
import { makeMemoryWriter, MemoryWriter } from "./MemoryWriter.ts"
import type { ModelRegistry } from "./ModelRegistry.ts"
import { makeRecall, Recall } from "./Recall.ts"
import { makeSelector, Selector } from "./Selector.ts"

/** What only the Pi host can provide: its API as a Host, its model registry, its own module, and its status line. */
export interface HostPieces {
  readonly host: Layer.Layer<Host>
  readonly models: Layer.Layer<ModelRegistry>
  /** The host's module (tool definitions, codemode), as loaded by the extension's entry. */
  readonly toolkit: Layer.Layer<PiToolkit>
  /** Where background tasks show that they run; none by default. */
  readonly background?: Layer.Layer<BackgroundHost>
}

/**
 * Makes every service of the extension in dependency order, each given those made before it, in one pass of one
 * fiber: the same services as the layers of each, without Effect's layer builder, which costs a memo map, a scope
 * and forked fibers per node (building these twenty as layers took 51 ms at a process's first session, made in one
 * pass 25–35 ms; see layers/Core.ts).
 * Everything scoped (the sessions' fibers, the bash parser once loaded) is released with the scope, last made first
 * released: the background session stops before the memory session, and both before the parser is freed.
 *
 * The background tasks' code (the runner, the six tools, the prompts) and the bash parser load at first use, not
 * here: a session that never runs a task never loads them; a parser that cannot load refuses every command instead
 * of taking the extension down.
 */
const makeExtension = (env: ConfigEnvironment, replace: CoreReplacements) =>
  Effect.gen(function* () {
    // What this process's locks say holds them (pm status, a waiting pm forget).
    setLockHolderKind("a pi session")
    const core = yield* makeCore(env, replace)
    const withHost = Context.merge(core, yield* Effect.context<Host | ModelRegistry | BackgroundHost | PiToolkit>())
    const withSelector = Context.add(withHost, Selector, yield* Effect.provide(makeSelector, withHost))
    const services = withSelector.pipe(
      Context.add(Recall, yield* Effect.provide(makeRecall, withSelector)),
      Context.add(MemoryWriter, makeMemoryWriter(Context.get(core, FileSystem))),
      Context.add(BashGuard, yield* BashGuard.makeOnFirstUse)
    )
    const withScanner = Context.add(services, SessionScanner, yield* Effect.provide(makeSessionScanner, services))
    const tasks = withScanner.pipe(
      Context.add(Extractor, yield* Effect.provide(Extractor.make, withScanner)),
      Context.add(Dream, yield* Effect.provide(Dream.make, withScanner)),
      Context.add(DreamAttempt, yield* Effect.provide(makeDreamAttempt, withScanner)),
      Context.add(MemoryBrowse, yield* Effect.provide(makeMemoryBrowse, withScanner))
    )
    const withMemory = Context.add(tasks, MemorySession, yield* Effect.provide(makeMemorySession, tasks))
    return Context.add(withMemory, BackgroundSession, yield* Effect.provide(makeBackgroundSession, withMemory))
  })

/** The Pi extension's whole graph: MemorySession and the background agents over recall, the host's pieces and the core. */
export const extensionLayer = (
  pieces: HostPieces,
  env: ConfigEnvironment = {},
  replace: CoreReplacements = {}
) =>
  Layer.scopedContext(makeExtension(env, replace)).pipe(
    Layer.provideMerge(Layer.mergeAll(pieces.host, pieces.models, pieces.toolkit, pieces.background ?? BackgroundHost.layerNoop))
  )
