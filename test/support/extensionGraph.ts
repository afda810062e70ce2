/**
 * The extension's own graph (layers/app/ExtensionApp.ts) as tests build it: the host's pieces from the test, single
 * services replaced where a test scripts them (`Context.make(Extractor, scripted)`), everything else made as in Pi.
 */
import * as pi from "@earendil-works/pi-coding-agent"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { CoreReplacements } from "../../layers/app/Core.ts"
import { extensionLayer, type ExtensionServices } from "../../layers/app/ExtensionApp.ts"
import { BackgroundHost } from "../../layers/background/BackgroundSession.ts"
import { PiToolkit, type PiToolkitShape } from "../../layers/background/PiToolkit.ts"
import type { ConfigEnvironment } from "../../layers/project/ConfigService.ts"
import { Host, type HostShape } from "../../layers/session/Host.ts"
import { ModelRegistry } from "../../layers/model/ModelRegistry.ts"

/** A model every lookup finds; its requests fail unless `complete` is given. */
export const fauxModel = { provider: "faux", api: "faux", id: "faux-1", contextWindow: 200_000, maxTokens: 32_000 } as any

export const registryLayer = (complete: (model: any, context: any, options: any) => Promise<any> = () => Promise.reject(new Error("no model"))) =>
  ModelRegistry.layerWith({ find: () => fauxModel, fallback: () => fauxModel, complete })

/** A host over plain values: a trusted, idle session in `cwd` with an empty branch, unless overridden. */
export const hostLayer = (cwd: string, overrides: Partial<HostShape> = {}): Layer.Layer<Host> =>
  Layer.succeed(Host, {
    cwd: Effect.succeed(cwd),
    sessionId: Effect.succeed("s1"),
    isTrusted: Effect.succeed(true),
    isIdle: Effect.succeed(true),
    branch: Effect.succeed([]),
    notify: () => Effect.void,
    appendEntry: () => Effect.void,
    sendHidden: () => Effect.void,
    ...overrides
  })

export interface GraphOptions {
  readonly host: Layer.Layer<Host>
  readonly models?: Layer.Layer<ModelRegistry>
  readonly background?: Layer.Layer<BackgroundHost>
  readonly toolkit?: PiToolkitShape
  /** Services used instead of the made ones. */
  readonly services?: Context.Context<never>
  readonly env: ConfigEnvironment
  readonly core?: CoreReplacements
}

export const extensionGraph = (o: GraphOptions): Layer.Layer<ExtensionServices> =>
  extensionLayer(
    { host: o.host, models: o.models ?? registryLayer(), toolkit: PiToolkit.layer(o.toolkit ?? pi), background: o.background ?? BackgroundHost.layerNoop },
    o.env,
    { ...o.core, ...(o.services === undefined ? {} : { services: o.services }) }
  )

export { Context }
