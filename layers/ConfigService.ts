/**
 * ConfigService: where the agent directory is, and the decoded user-level `config.json`.
 * Reading never fails: a missing file is the defaults, a broken one the defaults plus warnings.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { homedir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { decodeConfig, defaultConfig, type DecodedConfig } from "../src/config.ts"
import { configPathOf, storageRootOf } from "../src/storage.ts"
import { FileSystem, type FsError } from "./FileSystem.ts"

export interface ConfigServiceShape {
  readonly agentDir: string
  readonly storageRoot: string
  readonly configPath: string
  readonly home: string
  readonly load: Effect.Effect<DecodedConfig>
  /** Sets one top-level key, keeping every other key of the file as it was (used by `/memory on|off`). */
  readonly setKey: (key: string, value: unknown) => Effect.Effect<void, FsError>
}

export interface ConfigEnvironment {
  readonly agentDir?: string | undefined
  readonly home?: string | undefined
}

/** `$PI_CODING_AGENT_DIR` when set, else `~/.pi/agent` (DECISIONS D2). */
export const agentDirFromEnv = (env: NodeJS.ProcessEnv = process.env, home = homedir()): string => {
  const fromEnv = env["PI_CODING_AGENT_DIR"]
  return fromEnv !== undefined && fromEnv !== "" ? resolve(fromEnv.replace(/^~(?=$|\/)/, home)) : join(home, ".pi", "agent")
}

export const makeConfigService = (options: ConfigEnvironment = {}) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const home = options.home ?? homedir()
    const agentDir = options.agentDir ?? agentDirFromEnv(process.env, home)
    const storageRoot = storageRootOf(agentDir)
    const configPath = configPathOf(storageRoot)
    const readRaw = fs.readRegularFile(configPath, 1 << 20).pipe(
      Effect.map((r) => Buffer.from(r.bytes).toString("utf8")),
      Effect.option
    )
    const load: Effect.Effect<DecodedConfig> = fs.readRegularFile(configPath, 1 << 20).pipe(
      Effect.map((r) => decodeConfig(configPath, Buffer.from(r.bytes).toString("utf8"), home)),
      Effect.catchAll((e) =>
        Effect.succeed<DecodedConfig>(
          e.reason === "NotFound"
            ? { config: defaultConfig, warnings: [] }
            : {
                config: defaultConfig,
                warnings: [{ file: configPath, key: "(file)", message: `${configPath} could not be read (${e.reason}); using defaults.` }]
              }
        )
      )
    )
    const setKey = (key: string, value: unknown) =>
      Effect.gen(function* () {
        const current = yield* readRaw
        let object: Record<string, unknown> = {}
        if (current._tag === "Some") {
          try {
            const parsed: unknown = JSON.parse(current.value)
            if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) object = parsed as Record<string, unknown>
          } catch {
            // A broken file is replaced by one holding just this key; the warning on load already told the user.
          }
        }
        object[key] = value
        yield* fs.makeDirectory(dirname(configPath), { recursive: true })
        const temp = `${configPath}.${process.pid}.${Date.now()}.tmp`
        yield* fs.writeFile(temp, `${JSON.stringify(object, null, 2)}\n`)
        yield* fs.rename(temp, configPath).pipe(Effect.tapError(() => fs.unlink(temp).pipe(Effect.ignore)))
      })
    return { agentDir, storageRoot, configPath, home, load, setKey } satisfies ConfigServiceShape
  })

export class ConfigService extends Context.Tag("pm/ConfigService")<ConfigService, ConfigServiceShape>() {
  static readonly layer: Layer.Layer<ConfigService, never, FileSystem> = Layer.effect(ConfigService, makeConfigService())
  static readonly layerWith = (options: ConfigEnvironment): Layer.Layer<ConfigService, never, FileSystem> =>
    Layer.effect(ConfigService, makeConfigService(options))
}
