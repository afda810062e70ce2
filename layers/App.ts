/**
 * The layers `pm` attaches to single subcommands (cli/App.ts): `recallLayer` is the recall step over whatever
 * ModelRegistry the entry has; `browseLayer` serves list, show, search and forget. The core every entry makes is in
 * layers/Core.ts (a module of its own, so that a command needing only the core loads nothing else). The Pi
 * extension makes all of these, and the background agents, in one pass in layers/ExtensionApp.ts (kept apart so
 * that `pm` never loads the background agents).
 *
 * Tests build these same graphs and replace single layers (a faulty FileSystem, a fake ModelRegistry, an array
 * Host) instead of wiring a copy of their own.
 */
import * as Layer from "effect/Layer"
import type { FileSystem } from "./FileSystem.ts"
import type { Journal } from "./Journal.ts"
import type { LockService } from "./LockService.ts"
import { MemoryBrowse } from "./MemoryBrowse.ts"
import { MemoryWriter } from "./MemoryWriter.ts"
import type { MemoryStore } from "./MemoryStore.ts"
import type { ModelRegistry } from "./ModelRegistry.ts"
import { Recall } from "./Recall.ts"
import { Selector } from "./Selector.ts"

export { coreLayer, type CoreReplacements } from "./Core.ts"

/** list, show, search and forget (`pm` and `/memory`): MemoryBrowse over its own writer and the core's journal. */
export const browseLayer: Layer.Layer<MemoryBrowse, never, FileSystem | MemoryStore | LockService | Journal> = MemoryBrowse.layer.pipe(
  Layer.provide(MemoryWriter.layer)
)

/** Recall and its Selector over the entry's ModelRegistry and MemoryStore. */
export const recallLayer: Layer.Layer<Recall | Selector, never, MemoryStore | ModelRegistry> = Recall.layer.pipe(
  Layer.provideMerge(Selector.layer)
)
