/**
 * The CLI's model backend: pi's own model runtime over `<agentDir>/auth.json` and `models.json`, and the model Pi
 * would start with (./piStartModel.ts), so `pm recall` works wherever `pi` works with no second place for keys.
 * Imported lazily: only a model-backed recall pays for loading the host packages.
 *
 * Provider extensions (docs/configuration.md): each module named in `PM_EXTENSIONS` (path-separated) is loaded and
 * its default export is called with a minimal `pi` object whose `registerProvider` registers into the runtime; every
 * other API call is a no-op. A module is code run with the user's rights, so only the user names it: every entry
 * must be an absolute path, never resolved against `--cwd` or the project. The tests load pi-ai's fake provider
 * this way.
 */
import type { Api, Model } from "@earendil-works/pi-ai"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { delimiter, isAbsolute, join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { ConfigService } from "../layers/project/ConfigService.ts"
import { importPiHost } from "./piHost.ts"
import { piStartModel } from "./piStartModel.ts"
import { ModelRegistry, type ModelBackend } from "../layers/model/ModelRegistry.ts"

/** Pi's model runtime, or a provider extension, failed to load; `cause` is what was thrown. */
export class ModelRuntimeLoadError extends Data.TaggedError("ModelRuntimeLoadError")<{
  readonly cause: unknown
}> {
  override get message(): string {
    return `cannot load Pi's model runtime: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

export interface PiRuntimeOptions {
  readonly agentDir: string
  /** The project, for Pi's project settings (the default model). */
  readonly cwd: string
  /** Absolute paths (see extensionsFromEnv). */
  readonly extensions: ReadonlyArray<string>
}

/** `PM_EXTENSIONS` named a module by a relative path: refused, so that no project file is ever run by accident. */
export class ProviderExtensionRejected extends Data.TaggedError("ProviderExtensionRejected")<{
  readonly entry: string
}> {
  override get message(): string {
    return `PM_EXTENSIONS entries must be absolute paths; "${this.entry}" is not (it is never looked up in the project)`
  }
}

/** The provider extensions named in `PM_EXTENSIONS`: absolute paths only. */
export const extensionsFromEnv = (env: NodeJS.ProcessEnv = process.env): Effect.Effect<ReadonlyArray<string>, ProviderExtensionRejected> => {
  const entries = (env["PM_EXTENSIONS"] ?? "").split(delimiter).filter((s) => s !== "")
  const relative = entries.find((e) => !isAbsolute(e))
  return relative === undefined ? Effect.succeed(entries) : Effect.fail(new ProviderExtensionRejected({ entry: relative }))
}

const shimFor = (runtime: { registerNativeProvider: (p: never) => void; registerProvider: (name: string, config: never) => void }) =>
  new Proxy(
    {
      registerProvider: (providerOrName: unknown, config?: unknown) =>
        typeof providerOrName === "string"
          ? runtime.registerProvider(providerOrName, config as never)
          : runtime.registerNativeProvider(providerOrName as never)
    } as Record<string, unknown>,
    { get: (target, key) => (typeof key === "string" && key in target ? target[key] : () => undefined) }
  )

export const loadPiModelBackend = (options: PiRuntimeOptions): Effect.Effect<ModelBackend, ModelRuntimeLoadError> =>
  Effect.tryPromise({
    try: async () => {
      const pi = await importPiHost()
      const runtime = await pi.ModelRuntime.create({
        authPath: join(options.agentDir, "auth.json"),
        modelsPath: join(options.agentDir, "models.json"),
        refreshOnCreate: false
      })
      for (const file of options.extensions) {
        const mod = (await import(pathToFileURL(file).href)) as { default?: (pi: unknown) => unknown }
        if (typeof mod.default !== "function") throw new Error(`${file} has no default-exported extension function`)
        await mod.default(shimFor(runtime as never))
      }
      const settings = pi.SettingsManager.create(options.cwd, options.agentDir)
      const find = (provider: string, id: string): Model<Api> | undefined => runtime.getModel(provider, id)
      return {
        find,
        // `--model` and `selector.model` arrive as the request's model ref; the fallback is the model Pi starts with.
        fallback: () => piStartModel(pi, runtime, settings),
        complete: (model, context, requestOptions) => runtime.complete(model, context, requestOptions as never)
      } satisfies ModelBackend
    },
    catch: (e) => new ModelRuntimeLoadError({ cause: e })
  })

/** pi's model runtime over the agent directory, with the project's settings at `cwd`; loaded on the first request. */
export const piModelRegistry = (cwd: string): Layer.Layer<ModelRegistry, never, ConfigService> =>
  ModelRegistry.layerOnFirstUse(
    Effect.flatMap(ConfigService, (config) =>
      Effect.flatMap(extensionsFromEnv(), (extensions) =>
        loadPiModelBackend({ agentDir: config.agentDir, cwd: resolve(cwd), extensions })
      )
    )
  )
