/**
 * ConfigService: where the agent directory is, and the decoded user-level `config.json`.
 * Reading never fails: a missing file is the defaults; a bad key its default plus a warning. A file that cannot be
 * used at all (unreadable, not JSON, not an object) fails closed: the settings this service last read, or memory off
 * when it has read none, plus a warning; never the defaults, which would turn on what a person switched off.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { homedir } from "node:os"
import { basename, dirname, join, resolve } from "node:path"
import * as Ref from "effect/Ref"
import { type Config, closedConfig, decodeConfig, defaultConfig, type DecodedConfig, parseConfigObject, UNUSABLE_FALLBACK } from "../../src/project/config.ts"
import { canonicalProjects, normalizeProjectKey } from "../../src/project/projectSwitches.ts"
import { configPathOf, storageRootOf } from "../../src/storage/layout.ts"
import { publishFile, sweepTemps, TEMP_STALE_MS } from "../storage/AtomicPublish.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { type FsError, type FsReason, fsReasonText } from "../storage/FsError.ts"
import type { LockServiceShape } from "../storage/lockInterface.ts"

/** `setKey` changed nothing: the existing file could not be read or is not a JSON object, or the write failed. */
export class ConfigWriteFailed extends Data.TaggedError("ConfigWriteFailed")<{
  readonly path: string
  readonly reason: "unreadable" | "invalid" | "write" | "busy"
  /** What the file system said ("unreadable", "write"). */
  readonly cause?: FsError
  /** What is wrong with the file ("invalid"). */
  readonly detail?: string
}> {
  /** The file system's reason, when the file system failed. */
  get fsReason(): FsReason | undefined {
    return this.cause?.reason
  }
  override get message(): string {
    const detail = this.cause === undefined ? this.detail : this.cause.detail || this.cause.reason
    switch (this.reason) {
      case "unreadable":
        return `${this.path} could not be read (${detail}); nothing was changed. Fix its permissions, then try again.`
      case "invalid":
        return `${this.path} ${detail}; nothing was changed, so its other settings are kept. Fix the file (or ` +
          "delete it to start from the defaults), then try again."
      case "write":
        return `${this.path} could not be written (${detail}); the file is unchanged.`
      case "busy":
        return `${this.path} is being changed by another process (${detail}); nothing was changed. Try again in a moment.`
    }
  }
}

export interface ConfigServiceShape {
  readonly agentDir: string
  readonly storageRoot: string
  readonly configPath: string
  readonly home: string
  readonly load: Effect.Effect<DecodedConfig>
  /**
   * Sets one key (a top-level name, or a path of names into nested objects, made as needed), keeping every other
   * key of the file as it was (used by `/memory on|off`). A file that exists but cannot be read or is not a JSON
   * object, or a path through a value that is not an object, fails with ConfigWriteFailed and is left untouched.
   */
  readonly setKey: (key: string | ReadonlyArray<string>, value: unknown) => Effect.Effect<void, ConfigWriteFailed>
}

export interface ConfigEnvironment {
  readonly agentDir?: string | undefined
  readonly home?: string | undefined
  /**
   * The locks every change of config.json is made under (`config.lock` in the storage root's `locks/`), so two
   * processes setting different keys at once both keep theirs. The core always gives them.
   */
  readonly locks?: LockServiceShape | undefined
}

/** How long a change of config.json waits for another process's change to finish. */
export const CONFIG_LOCK_WAIT_MS = 30_000

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
    /** The settings of the last read that could be used: what a broken file falls back to. */
    const lastGood = yield* Ref.make<Config | undefined>(undefined)
    const unusable = (why: string, message: string): Effect.Effect<DecodedConfig> =>
      Effect.map(Ref.get(lastGood), (good) => ({
        config: good ?? closedConfig(why),
        warnings: [{ file: configPath, key: "(file)", message: good === undefined ? message : message.replace(UNUSABLE_FALLBACK, "keeping the settings read before") }],
        unusable: true
      }))
    /** The real path of a project key (its symlinks resolved); the key itself when it names nothing that exists. */
    const realKey = (root: string) => fs.realpath(root).pipe(Effect.option, Effect.map((r) => (r._tag === "Some" ? r.value : root)))
    /**
     * Project entries under their canonical roots, as the locator names projects (a key spelled through a symlink
     * applies to the project it leads to), and one warning for a key that names no folder: it applies to no project.
     */
    const canonicalRoots = (decoded: DecodedConfig): Effect.Effect<DecodedConfig> =>
      Effect.gen(function* () {
        const roots = Object.keys(decoded.config.projects)
        if (roots.length === 0) return decoded
        const real = new Map<string, string>()
        const warnings = [...decoded.warnings]
        yield* Effect.forEach(roots, (root) =>
          Effect.gen(function* () {
            const found = yield* fs.stat(root).pipe(Effect.option)
            if (found._tag === "None" || found.value.kind !== "directory") {
              warnings.push({ file: configPath, key: "projects", message: `${configPath}: "projects" key ${JSON.stringify(root)} names no folder that exists; it applies to no project.` })
            }
            real.set(root, yield* realKey(root))
          }), { concurrency: 8, discard: true })
        const projects = canonicalProjects(decoded.config.projects, (root) => real.get(root) ?? root)
        return { ...decoded, config: { ...decoded.config, projects }, warnings }
      })
    /**
     * The file's text decoded with its project keys canonical, kept for the same text: a session loads the settings
     * at every prompt, and the keys' folders are looked up again only when the file changes.
     */
    const decoded = yield* Ref.make<{ readonly text: string; readonly result: DecodedConfig } | undefined>(undefined)
    const decodeCanonical = (text: string): Effect.Effect<DecodedConfig> =>
      Effect.flatMap(Ref.get(decoded), (last) =>
        last !== undefined && last.text === text
          ? Effect.succeed(last.result)
          : canonicalRoots(decodeConfig(configPath, text, home)).pipe(Effect.tap((result) => Ref.set(decoded, { text, result })))
      )
    const load: Effect.Effect<DecodedConfig> = fs.readRegularFile(configPath, 1 << 20).pipe(
      Effect.flatMap((r) => decodeCanonical(Buffer.from(r.bytes).toString("utf8"))),
      Effect.flatMap((d) =>
        d.unusable === true
          ? unusable(d.config.closed ?? "config.json cannot be used", d.warnings[0]?.message ?? `${configPath} cannot be used; ${UNUSABLE_FALLBACK}.`)
          : Effect.as(Ref.set(lastGood, d.config), d)
      ),
      Effect.catchAll((e) =>
        e.reason === "NotFound"
          ? Effect.as(Ref.set(lastGood, defaultConfig), { config: defaultConfig, warnings: [] })
          : unusable("config.json cannot be read", `${configPath} could not be read (${fsReasonText(e.reason, e.detail)}); ${UNUSABLE_FALLBACK}.`)
      )
    )
    /**
     * Before a project's key is set: other spellings of the same root in the file (a trailing slash, a symlink) are
     * folded into the canonical entry, whose own values win, so the one written is the one that applies.
     */
    const foldAliases = (object: Record<string, unknown>, root: string) =>
      Effect.gen(function* () {
        const projects = object["projects"]
        if (typeof projects !== "object" || projects === null || Array.isArray(projects)) return object
        const entries = projects as Record<string, unknown>
        let folded: Record<string, unknown> | undefined
        for (const other of Object.keys(entries)) {
          if (other === root) continue
          const same = normalizeProjectKey(other) === root || (yield* realKey(other)) === root
          const value = entries[other]
          if (!same || typeof value !== "object" || value === null || Array.isArray(value)) continue
          folded ??= { ...entries }
          const own = folded[root]
          folded[root] = { ...(value as Record<string, unknown>), ...(typeof own === "object" && own !== null ? own : {}) }
          delete folded[other]
        }
        return folded === undefined ? object : { ...object, projects: folded }
      })
    /** Reads config.json, sets one key and publishes it: the part that runs under `config.lock`. */
    const setKeyNow = (key: string | ReadonlyArray<string>, value: unknown) =>
      Effect.gen(function* () {
        const current = yield* fs.readRegularFile(configPath, 1 << 20).pipe(
          Effect.map((r) => ({ text: Buffer.from(r.bytes).toString("utf8"), mode: r.info.mode & 0o777, partial: r.partial })),
          Effect.catchIf((e) => e.reason === "NotFound", () => Effect.succeed(undefined)),
          Effect.mapError((e) => new ConfigWriteFailed({ path: configPath, reason: "unreadable", cause: e }))
        )
        let object: Record<string, unknown> = {}
        // An empty file holds no settings: nothing to lose by writing it.
        if (current !== undefined && current.text.trim() !== "") {
          if (current.partial) {
            return yield* Effect.fail(new ConfigWriteFailed({ path: configPath, reason: "invalid", detail: "is larger than 1 MiB" }))
          }
          const parsed = parseConfigObject(current.text)
          if (parsed._tag === "Invalid") {
            return yield* Effect.fail(new ConfigWriteFailed({ path: configPath, reason: "invalid", detail: parsed.problem }))
          }
          object = { ...parsed.object }
        }
        const path = typeof key === "string" ? [key] : key
        if (path[0] === "projects" && path.length >= 2) object = yield* foldAliases(object, path[1]!)
        let at: Record<string, unknown> = object
        for (const [i, name] of path.slice(0, -1).entries()) {
          const next = at[name]
          if (next === undefined) at = at[name] = {}
          else if (typeof next === "object" && next !== null && !Array.isArray(next)) at = at[name] = { ...(next as Record<string, unknown>) }
          else {
            const where = path.slice(0, i + 1).map((n) => JSON.stringify(n)).join(" > ")
            return yield* Effect.fail(new ConfigWriteFailed({ path: configPath, reason: "invalid", detail: `holds ${where} that is not an object` }))
          }
        }
        at[path[path.length - 1]!] = value
        const dir = dirname(configPath)
        const writeFailed = (e: FsError) => new ConfigWriteFailed({ path: configPath, reason: "write", cause: e })
        yield* fs.makeDirectory(dir, { recursive: true }).pipe(Effect.mapError(writeFailed))
        yield* sweepTemps(fs, dir, { olderThanMs: TEMP_STALE_MS, recursive: false })
        yield* publishFile(fs, {
          dir,
          name: basename(configPath),
          content: `${JSON.stringify(object, null, 2)}\n`,
          mode: "replace",
          durable: true,
          ...(current === undefined ? {} : { fileMode: current.mode })
        }).pipe(Effect.mapError(writeFailed))
      })
    const locks = options.locks
    const setKey = (key: string | ReadonlyArray<string>, value: unknown): Effect.Effect<void, ConfigWriteFailed> =>
      (locks === undefined
        ? setKeyNow(key, value)
        : locks.withLock(join(storageRoot, "locks"), "config.lock", () => setKeyNow(key, value), { maxWaitMs: CONFIG_LOCK_WAIT_MS }).pipe(
            Effect.catchTags({
              LockLost: (e) => Effect.fail(new ConfigWriteFailed({ path: configPath, reason: "busy", detail: e.message })),
              LockFailed: (e) => Effect.fail(new ConfigWriteFailed({ path: configPath, reason: "busy", detail: e.message }))
            }),
            Effect.flatMap((outcome) =>
              outcome._tag === "Done"
                ? Effect.void
                : Effect.fail(new ConfigWriteFailed({ path: configPath, reason: "busy", detail: `waited ${CONFIG_LOCK_WAIT_MS / 1000} s for it` }))
            )
          )
      ).pipe(Effect.withSpan("ConfigService.setKey"))
    return { agentDir, storageRoot, configPath, home, load, setKey } satisfies ConfigServiceShape
  })

export class ConfigService extends Context.Tag("pm/ConfigService")<ConfigService, ConfigServiceShape>() {
  static readonly layer: Layer.Layer<ConfigService, never, FileSystem> = Layer.effect(ConfigService, makeConfigService())
  static readonly layerWith = (options: ConfigEnvironment): Layer.Layer<ConfigService, never, FileSystem> =>
    Layer.effect(ConfigService, makeConfigService(options))
}
