/**
 * The core every entry shares: FileSystem, ConfigService, locks, ProjectLocator, MemoryStore, StateStore and the
 * change Journal. Composed in layers/app/App.ts's family of graphs; kept in its own module so that `pm scan` and the
 * other core-only commands load no other service.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { ConfigService, type ConfigEnvironment, makeConfigService } from "../project/ConfigService.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { makeNodeFileSystem } from "../storage/nodeFileSystem.ts"
import { makeHistoryHook } from "../history/commitHook.ts"
import type { HistoryPlace } from "../history/historyRepo.ts"
import { Journal, makeJournal } from "../writes/Journal.ts"
import { LockService, makeLockService } from "../storage/LockService.ts"
import { makeMemoryStore, makeWatchingMemoryStore, MemoryStore } from "../memory/MemoryStore.ts"
import { makeProjectLocator, ProjectLocator } from "../project/ProjectLocator.ts"
import { makeStateStore, StateStore } from "../storage/StateStore.ts"

/** Layers a caller may put in place of the live ones (tests: fault injection, short lock timeouts). */
export interface CoreReplacements {
  readonly fileSystem?: Layer.Layer<FileSystem>
  readonly locks?: Layer.Layer<LockService, never, FileSystem>
}

/** The services of the core. */
export type Core = FileSystem | ConfigService | LockService | ProjectLocator | MemoryStore | StateStore | Journal

/**
 * Makes the core's seven services in dependency order, each given the ones made before it: the same services as
 * seven layers merged, built in one pass of one fiber. Effect's layer builder memoizes and scopes every node (forked
 * fibers, a memo map, a scope per node), which cost `pm` about 25 ms on every start for these seven alone; this is
 * the part of the graph every command and every Pi session builds. The scope holds replacement layers and, in
 * the extension, the watches of the memory folders.
 */
export const makeCore = (
  env: ConfigEnvironment = {},
  replace: CoreReplacements = {},
  /** `watchMemory`: a long-lived process (the extension) also watches each memory folder it reads (MemoryStore). */
  options: {
    readonly watchMemory?: boolean
    /** Told after each task's commit to the memory history (the extension pushes from there when sync is on). */
    readonly onCommitted?: (place: HistoryPlace) => Effect.Effect<void>
  } = {}
): Effect.Effect<Context.Context<Core>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const fileSystem = replace.fileSystem === undefined
      ? makeNodeFileSystem()
      : Context.get(yield* Layer.build(replace.fileSystem), FileSystem)
    const withFileSystem = Context.make(FileSystem, fileSystem)
    const locks = replace.locks === undefined
      ? makeLockService(fileSystem)
      : Context.get(yield* Layer.build(replace.locks).pipe(Effect.provide(withFileSystem)), LockService)
    const config = yield* makeConfigService({ ...env, locks }).pipe(Effect.provide(withFileSystem))
    const base = withFileSystem.pipe(Context.add(LockService, locks), Context.add(ConfigService, config))
    const [locator, store] = yield* Effect.all([makeProjectLocator, options.watchMemory === true ? makeWatchingMemoryStore : makeMemoryStore]).pipe(
      Effect.provide(base)
    )
    return base.pipe(
      Context.add(ProjectLocator, locator),
      Context.add(MemoryStore, store),
      Context.add(StateStore, makeStateStore(fileSystem, locks)),
      Context.add(Journal, makeJournal(fileSystem, locks, makeHistoryHook(fileSystem, locks, options.onCommitted)))
    )
  })

/**
 * The core as one layer (the background agents need the Pi host and live in the extension's graph,
 * layers/background/).
 */
export const coreLayer = (env: ConfigEnvironment = {}, replace: CoreReplacements = {}): Layer.Layer<Core> =>
  Layer.scopedContext(makeCore(env, replace))

/**
 * Runs `effect` over a freshly made live core, without a layer: for an entry that runs one effect and exits (`pm`),
 * where even one layer node costs start-up time. With no replacement layers the core holds nothing to release.
 */
export const withCore = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  env: ConfigEnvironment = {},
  /** Told after each commit to a memory history (`pm` notes it, to push after a command that changed memory). */
  onCommitted?: (place: HistoryPlace) => Effect.Effect<void>
) => Effect.flatMap(Effect.scoped(makeCore(env, {}, onCommitted === undefined ? {} : { onCommitted })), (core) => Effect.provide(effect, core))
