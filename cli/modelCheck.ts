/**
 * `pm doctor`'s check of the models config.json names (`selector.model`, `extractor.model`, `dream.model`): each must
 * be a model Pi knows, through the same model runtime `pm recall` uses (auth.json, models.json, PM_EXTENSIONS).
 * The host packages are loaded only when some model is configured.
 */
import * as Effect from "effect/Effect"
import { resolve } from "node:path"
import { ConfigService } from "../layers/project/ConfigService.ts"
import { parseModelRef } from "../layers/model/ModelRegistry.ts"

export interface ConfiguredModel {
  readonly key: string
  readonly value: string
}

export interface ModelProblem {
  readonly code: "model-unknown" | "model-unchecked"
  readonly message: string
}

export const configuredModelProblems = (cwd: string, models: ReadonlyArray<ConfiguredModel>) =>
  Effect.gen(function*() {
    if (models.length === 0) return [] as ReadonlyArray<ModelProblem>
    const config = yield* ConfigService
    const { extensionsFromEnv, loadPiModelBackend } = yield* Effect.promise(() => import("./PiModelRuntime.ts"))
    const backend = yield* extensionsFromEnv().pipe(
      Effect.flatMap((extensions) => loadPiModelBackend({ agentDir: config.agentDir, cwd: resolve(cwd), extensions })),
      Effect.either
    )
    if (backend._tag === "Left") {
      return [{
        code: "model-unchecked",
        message: `${models.map((m) => `${m.key} "${m.value}"`).join(", ")} in config.json could not be checked: ${backend.left.message}.`
      }] satisfies ReadonlyArray<ModelProblem>
    }
    return models.flatMap((m): ReadonlyArray<ModelProblem> => {
      const ref = parseModelRef(m.value)
      if (ref !== undefined && backend.right.find(ref.provider, ref.id) !== undefined) return []
      return [{
        code: "model-unknown",
        message: `config.json ${m.key} is "${m.value}", ${ref === undefined ? "which is not of the form provider/model-id" : "a model Pi does not know (check models.json, the provider's login, or the extension that registers it)"}.`
      }]
    })
  })
