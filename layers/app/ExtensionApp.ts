/**
 * The Pi extension's whole graph: MemorySession and the background agents over recall, the host's pieces and the
 * core of layers/app/Core.ts. It lives apart from App.ts so that the `pm` bundle, which imports App.ts, carries none of
 * the background agents.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { BashGuard } from "../safety/BashGuard.ts"
import { ConfigService, type ConfigEnvironment } from "../project/ConfigService.ts"
import { enableAutoSync, requestSync } from "../history/autoSync.ts"
import { type CoreReplacements, makeCore } from "./Core.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { Host } from "../session/Host.ts"
import { Journal } from "../writes/Journal.ts"
import { LockService } from "../storage/LockService.ts"
import { setLockHolderKind } from "../storage/lockProcess.ts"
import { MemoryStore } from "../memory/MemoryStore.ts"
import { ProjectLocator } from "../project/ProjectLocator.ts"
import { StateStore } from "../storage/StateStore.ts"
import { BackgroundHost, BackgroundSession } from "../background/BackgroundSession.ts"
import { Dream } from "../background/Dream.ts"
import { DreamAttempt } from "../background/DreamAttempt.ts"
import { Extractor } from "../background/Extractor.ts"
import { PiToolkit } from "../background/PiToolkit.ts"
import { SessionScanner } from "../background/SessionScanner.ts"
import { MemoryBrowse } from "../memory/MemoryBrowse.ts"
import { MemorySession } from "../session/MemorySession.ts"
import { MemoryWriter } from "../writes/MemoryWriter.ts"
import { ModelRegistry } from "../model/ModelRegistry.ts"
import { Recall } from "../recall/Recall.ts"
import { Selector } from "../recall/Selector.ts"

/** What only the Pi host can provide: its API as a Host, its model registry, its own module, and its status line. */
export interface HostPieces {
  readonly host: Layer.Layer<Host>
  readonly models: Layer.Layer<ModelRegistry>
  /** The host's module (tool definitions, codemode), as loaded by the extension's entry. */
  readonly toolkit: Layer.Layer<PiToolkit>
  /** Where background tasks show that they run; none by default. */
  readonly background?: Layer.Layer<BackgroundHost>
  /** What this process's locks say holds them (`pm status`, a waiting `pm forget`); default "a pi session". */
  readonly holderKind?: string
}

/** Services a caller may put in place of the graph's own (tests: a scripted extractor or dream). */
export interface ExtensionReplacements extends CoreReplacements {
  /** Each service found here is used as it is instead of being made (`Context.make(Extractor, scripted)`). */
  readonly services?: Context.Context<never>
}

/** Every service of the extension's graph, in the order they are made (the graph test checks each is present). */
export const EXTENSION_SERVICES = [
  FileSystem, ConfigService, LockService, ProjectLocator, MemoryStore, StateStore, Journal,
  Host, ModelRegistry, BackgroundHost, PiToolkit,
  Selector, Recall, MemoryWriter, BashGuard, SessionScanner, Extractor, Dream, DreamAttempt, MemoryBrowse, MemorySession,
  BackgroundSession
] as const

/** The services of the extension's graph. */
export type ExtensionServices = Context.Tag.Identifier<(typeof EXTENSION_SERVICES)[number]>

/**
 * Makes every service of the extension in dependency order, each by its one constructor (the same effect its layer
 * is made from) over those made before it, in one pass of one fiber, without Effect's layer builder, which costs a
 * memo map, a scope and forked fibers per node (building these twenty as layers took 51 ms at a process's first
 * session, made in one pass 25–35 ms; see layers/app/Core.ts). Production and tests make the same graph; a test puts
 * single services in place of the made ones (`replace.services`). A constructor needing a service not made before
 * it does not compile.
 * Everything scoped (the sessions' fibers, the bash parser once loaded) is released with the scope, last made first
 * released: the background session stops before the memory session, and both before the parser is freed.
 *
 * The background tasks' code (the runner, the six tools, the prompts) and the bash parser load at first use, not
 * here: a session that never runs a task never loads them; a parser that cannot load refuses every command instead
 * of taking the extension down.
 */
const makeExtension = (env: ConfigEnvironment, replace: ExtensionReplacements, holderKind: string) =>
  Effect.gen(function* () {
    // What this process's locks say holds them (pm status, a waiting pm forget).
    setLockHolderKind(holderKind)
    const replacements = replace.services ?? Context.empty()
    /** `ctx` with the service of `tag`: the replacement when there is one, else made by `make` from `ctx`. */
    const add = <Have, I, S, R extends Have | Scope.Scope>(ctx: Context.Context<Have>, tag: Context.Tag<I, S>, make: Effect.Effect<S, never, R>) =>
      Option.match(Context.getOption(replacements as Context.Context<I>, tag), {
        onNone: () => Effect.provide(make, ctx) as Effect.Effect<S, never, Scope.Scope>,
        onSome: (service) => Effect.succeed(service)
      }).pipe(Effect.map((service) => Context.add(ctx, tag, service)))
    // After each task's commit, a sync (when sync is on), from this process: never from a task's sandbox.
    const core = yield* makeCore(env, replace, { watchMemory: true, onCommitted: (place) => Effect.sync(() => void requestSync(place)) })
    enableAutoSync(core)
    // The host's pieces only: the builder's own entries (its scope, its memo map) are not services of the graph.
    const pieces = Context.pick(Host, ModelRegistry, BackgroundHost, PiToolkit)(yield* Effect.context<Host | ModelRegistry | BackgroundHost | PiToolkit>())
    const withHost = Context.merge(core, pieces)
    const withSelector = yield* add(withHost, Selector, Selector.make)
    const withRecall = yield* add(withSelector, Recall, Recall.make)
    const withWriter = yield* add(withRecall, MemoryWriter, MemoryWriter.make)
    const withGuard = yield* add(withWriter, BashGuard, BashGuard.makeOnFirstUse)
    const withScanner = yield* add(withGuard, SessionScanner, SessionScanner.make)
    const withExtractor = yield* add(withScanner, Extractor, Extractor.make)
    const withDream = yield* add(withExtractor, Dream, Dream.make)
    const withAttempt = yield* add(withDream, DreamAttempt, DreamAttempt.make)
    const withBrowse = yield* add(withAttempt, MemoryBrowse, MemoryBrowse.make)
    const withMemory = yield* add(withBrowse, MemorySession, MemorySession.make)
    const all: Context.Context<ExtensionServices> = yield* add(withMemory, BackgroundSession, BackgroundSession.make)
    return all
  })

/** The host's pieces as services, for `makeExtensionContext`. */
export type HostServices = Host | ModelRegistry | BackgroundHost | PiToolkit

/**
 * The same graph as `extensionLayer`, made straight into the caller's scope from the host's pieces as services: no
 * layer node at all, for the entry's session start (the layer builder's nodes for the pieces, the merge and the logger
 * cost a process's first session 10-25 ms). `extensionLayer` stays for tests and embeddings that compose layers.
 */
export const makeExtensionContext = (
  pieces: Context.Context<HostServices>,
  env: ConfigEnvironment = {},
  replace: ExtensionReplacements = {},
  holderKind = "a pi session"
): Effect.Effect<Context.Context<ExtensionServices | HostServices>, never, Scope.Scope> =>
  Effect.map(Effect.provide(makeExtension(env, replace, holderKind), pieces), (all) => Context.merge(pieces, all))

/** The Pi extension's whole graph: MemorySession and the background agents over recall, the host's pieces and the core. */
export const extensionLayer = (
  pieces: HostPieces,
  env: ConfigEnvironment = {},
  replace: ExtensionReplacements = {}
): Layer.Layer<ExtensionServices> =>
  Layer.scopedContext(makeExtension(env, replace, pieces.holderKind ?? "a pi session")).pipe(
    Layer.provideMerge(Layer.mergeAll(pieces.host, pieces.models, pieces.toolkit, pieces.background ?? BackgroundHost.layerNoop))
  )
