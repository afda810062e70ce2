/**
 * The model Pi itself starts a new session with, when nothing names one: `pm recall` without `--model` or
 * `selector.model` uses the same. Pi's order: the models its settings scope to (`enabledModels`: the saved default
 * when it is among them, else the first), else Pi's own initial choice (the saved default when its provider has a
 * login, else a provider's default model among those with a login, else the first of them: the only model of a
 * models.json without a default setting).
 *
 * The initial choice is Pi's own function, from its module (not among the package's exports, so looked up in the
 * install by path); a Pi without it gets the same order but the provider defaults, which only that module knows.
 */
import type { Api, Model } from "@earendil-works/pi-ai"
import { importPiFile } from "./piHost.ts"

type PiHost = typeof import("@earendil-works/pi-coding-agent")
type Runtime = Awaited<ReturnType<PiHost["ModelRuntime"]["create"]>>
type Settings = ReturnType<PiHost["SettingsManager"]["create"]>

interface PiResolver {
  readonly findInitialModel: (options: Record<string, unknown>) => Promise<{ readonly model: Model<Api> | undefined }>
}

const same = (a: Model<Api>, b: Model<Api>): boolean => a.provider === b.provider && a.id === b.id

export const piStartModel = async (pi: PiHost, runtime: Runtime, settings: Settings): Promise<Model<Api> | undefined> => {
  // Which providers have a login is known after the availability pass Pi makes at start-up (from local files only);
  // the runtime skips it when created, since a named model needs none.
  await runtime.refresh({ allowNetwork: false })
  const provider = settings.getDefaultProvider()
  const id = settings.getDefaultModel()
  const saved = provider !== undefined && id !== undefined ? runtime.getModel(provider, id) : undefined
  const patterns = settings.getEnabledModels()
  if (patterns !== undefined && patterns.length > 0) {
    const { scopedModels } = await pi.resolveModelScopeWithDiagnostics(patterns, runtime, { signal: AbortSignal.timeout(15_000) })
    if (scopedModels.length > 0) return (saved === undefined ? undefined : scopedModels.find((s) => same(s.model, saved))?.model) ?? scopedModels[0]!.model
  }
  const resolver = (await importPiFile("dist/core/model-resolver.js")) as Partial<PiResolver> | undefined
  if (typeof resolver?.findInitialModel === "function") {
    const chosen = await resolver.findInitialModel({
      scopedModels: [],
      isContinuing: false,
      defaultProvider: provider,
      defaultModelId: id,
      defaultThinkingLevel: undefined,
      modelThinkingLevels: undefined,
      modelRuntime: runtime
    })
    return chosen.model
  }
  if (saved !== undefined && runtime.hasConfiguredAuth(saved.provider)) return saved
  return runtime.getAvailableSnapshot()[0]
}
