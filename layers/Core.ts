/**
 * The core every entry shares: FileSystem, ConfigService, locks, ProjectLocator, MemoryStore, StateStore and the
 * change Journal. Composed in layers/App.ts's family of graphs; kept in its own module so that `pm scan` and the
 * other core-only commands load no other service.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConfigService, type ConfigEnvironment, makeConfigService } from "./ConfigService.ts"
import { FileSystem, makeNodeFileSystem } from "./FileSystem.ts"
import { Journal, makeJournal } from "./Journal.ts"
import { LockService, makeLockService } from "./LockService.ts"
import { makeMemoryStore, MemoryStore } from "./MemoryStore.ts"
import { makeProjectLocator, ProjectLocator } from "./ProjectLocator.ts"
import { makeStateStore, StateStore } from "./StateStore.ts"

/** Layers a caller may put in place of the live ones (tests: fault injection, short lock timeouts). */
export interface CoreReplacements {
  readonly fileSystem?: Layer.Layer<FileSystem>
  readonly locks?: Layer.Layer<LockService, never, FileSystem>
}

/**
 * The core's seven services. The background agents need the Pi host and live in the extension's graph
 * (layers/background/).
 *
 * One layer that makes the seven services in dependency order, each given the ones made before it, instead of seven
 * layers merged: the same services, but built in one pass of one fiber. Effect's layer builder memoizes and scopes
 * every node (forked fibers, a memo map, a scope per node), which cost `pm` about 25 ms on every start for these
 * seven alone; this is the part of the graph every command and every Pi session builds.
 */
export const coreLayer = (
  env: ConfigEnvironment = {},
  replace: CoreReplacements = {}
): Layer.Layer<FileSystem | ConfigService | LockService | ProjectLocator | MemoryStore | StateStore | Journal> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const fileSystem = replace.fileSystem === undefined
        ? makeNodeFileSystem()
        : Context.get(yield* Layer.build(replace.fileSystem), FileSystem)
      const withFileSystem = Context.make(FileSystem, fileSystem)
      const locks = replace.locks === undefined
        ? makeLockService(fileSystem)
        : Context.get(yield* Layer.build(replace.locks).pipe(Effect.provide(withFileSystem)), LockService)
      const config = yield* makeConfigService(env).pipe(Effect.provide(withFileSystem))
      const base = withFileSystem.pipe(Context.add(LockService, locks), Context.add(ConfigService, config))
      const [locator, store] = yield* Effect.all([makeProjectLocator, makeMemoryStore]).pipe(Effect.provide(base))
      return base.pipe(
        Context.add(ProjectLocator, locator),
        Context.add(MemoryStore, store),
        Context.add(StateStore, makeStateStore(fileSystem, locks)),
        Context.add(Journal, makeJournal(fileSystem, locks))
      )
    })
  )
