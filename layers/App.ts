/**
 * The layer graph shared by the `pm` CLI and the Pi extension. Each entry composes it once, adding what only it
 * has (the CLI: Node's platform context; the extension: host-backed ModelRegistry and Host).
 */
import * as Layer from "effect/Layer"
import { ConfigService, type ConfigEnvironment } from "./ConfigService.ts"
import { FileSystem } from "./FileSystem.ts"
import { LockService } from "./LockService.ts"
import { MemoryStore } from "./MemoryStore.ts"
import { ProjectLocator } from "./ProjectLocator.ts"
import { StateStore } from "./StateStore.ts"

/** FileSystem, ConfigService, ProjectLocator, MemoryStore, locks and state. The background agents need the Pi host
 * and live in the extension's graph (layers/background/). */
export const coreLayer = (env: ConfigEnvironment = {}) => {
  const base = Layer.mergeAll(ConfigService.layerWith(env), LockService.layer).pipe(Layer.provideMerge(FileSystem.layer))
  return Layer.mergeAll(
    ProjectLocator.layer,
    MemoryStore.layer,
    StateStore.layer
  ).pipe(Layer.provideMerge(base))
}
