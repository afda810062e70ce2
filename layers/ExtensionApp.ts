/**
 * The Pi extension's whole graph: MemorySession and the background agents over recall, the host's pieces and the
 * core of layers/App.ts. It lives apart from App.ts so that the `pm` bundle, which imports App.ts, carries none of
 * the background agents.
 */
import * as Layer from "effect/Layer"
import { browseLayer, coreLayer, type CoreReplacements, recallLayer } from "./App.ts"
import type { ConfigEnvironment } from "./ConfigService.ts"
import type { Host } from "./Host.ts"
import { BackgroundHost } from "./background/BackgroundSession.ts"
import { backgroundLayer } from "./background/layer.ts"
import { MemorySession } from "./MemorySession.ts"
import type { ModelRegistry } from "./ModelRegistry.ts"

/** What only the Pi host can provide: its API as a Host, its model registry, and its status line. */
export interface HostPieces {
  readonly host: Layer.Layer<Host>
  readonly models: Layer.Layer<ModelRegistry>
  /** Where background tasks show that they run; none by default. */
  readonly background?: Layer.Layer<BackgroundHost>
}

/** The Pi extension's whole graph: MemorySession and the background agents over recall, the host's pieces and the core. */
export const extensionLayer = (pieces: HostPieces, env: ConfigEnvironment = {}, replace: CoreReplacements = {}) =>
  Layer.mergeAll(MemorySession.layer, backgroundLayer, browseLayer).pipe(
    Layer.provide(pieces.background ?? BackgroundHost.layerNoop),
    Layer.provideMerge(recallLayer),
    Layer.provideMerge(pieces.models),
    Layer.provideMerge(pieces.host),
    Layer.provideMerge(coreLayer(env, replace))
  )
