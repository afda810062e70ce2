/**
 * The layer graph shared by the `pm` CLI and the Pi extension. Each entry composes it once, adding what only it
 * has (the CLI: Node's platform context; the extension: host-backed ModelRegistry and Host).
 */
import { Layer } from "effect"
import { ConfigService, type ConfigEnvironment } from "./ConfigService.ts"
import { Dream } from "./Dream.ts"
import { Extractor } from "./Extractor.ts"
import { FileSystem } from "./FileSystem.ts"
import { MemoryStore } from "./MemoryStore.ts"
import { ProjectLocator } from "./ProjectLocator.ts"

/** FileSystem, ConfigService, ProjectLocator, MemoryStore and the not-yet-live background services. */
export const coreLayer = (env: ConfigEnvironment = {}) => {
  const base = Layer.provideMerge(ConfigService.layerWith(env), FileSystem.layer)
  return Layer.mergeAll(ProjectLocator.layer, MemoryStore.layer, Extractor.layerNotImplemented, Dream.layerNotImplemented).pipe(
    Layer.provideMerge(base)
  )
}
