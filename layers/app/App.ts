/**
 * The layers `pm` attaches to single subcommands (cli/App.ts): `recallLayer` is the recall step over whatever
 * ModelRegistry the entry has; `browseLayer` serves list, show, search and forget. The core every entry makes is in
 * layers/app/Core.ts (a module of its own, so that a command needing only the core loads nothing else). The Pi
 * extension makes all of these, and the background agents, in one pass in layers/app/ExtensionApp.ts (kept apart so
 * that `pm` never loads the background agents).
 *
 * Tests build these same graphs and replace single layers (a faulty FileSystem, a fake ModelRegistry, an array
 * Host) instead of wiring a copy of their own.
 */
import * as Layer from "effect/Layer"
import type { FileSystem } from "../storage/FileSystem.ts"
import type { Journal } from "../writes/Journal.ts"
import type { LockService } from "../storage/LockService.ts"
import { MemoryBrowse } from "../memory/MemoryBrowse.ts"
import { MemoryWriter } from "../writes/MemoryWriter.ts"
import type { MemoryStore } from "../memory/MemoryStore.ts"
import type { ModelRegistry } from "../model/ModelRegistry.ts"
import { Recall } from "../recall/Recall.ts"
import { Selector } from "../recall/Selector.ts"

export { coreLayer, type CoreReplacements } from "./Core.ts"

/** list, show, search and forget (`pm` and `/memory`): MemoryBrowse over its own writer and the core's journal. */
export const browseLayer: Layer.Layer<MemoryBrowse, never, FileSystem | MemoryStore | LockService | Journal> = MemoryBrowse.layer.pipe(
  Layer.provide(MemoryWriter.layer)
)

/** Recall and its Selector over the entry's ModelRegistry and MemoryStore. */
export const recallLayer: Layer.Layer<Recall | Selector, never, MemoryStore | ModelRegistry | FileSystem> = Recall.layer.pipe(
  Layer.provideMerge(Selector.layer)
)
