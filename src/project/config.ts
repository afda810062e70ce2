/**
 * The user-level `config.json` under the storage root. Decoded key by key with Schema: a bad key falls back to its
 * default and yields one warning (one line) naming the file and the key; the rest of the file still applies.
 *
 * Switches fail closed. A file that cannot be used at all (not JSON, not an object, unreadable) turns memory off
 * here; the service keeps the settings it last read instead, when it has any (layers/project/ConfigService.ts). A switch
 * with a value that is not true or false is off. So a bad edit never turns on what a person had switched off.
 *
 * Switches: `enabled` (all of memory) and `extractor.enabled`, `dream.enabled`, `recall.enabled` (one feature),
 * globally and per project under `projects["<project root>"]`, where the most specific setting wins; and
 * `history.enabled`, the memory history in git, which is off unless set (opt-in).
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { decodeProtectedPaths, ProtectedPathsConfig, type ProtectedPathsSettings } from "../safety/protectedPathsConfig.ts"
import { DEFAULT_WHEN_UNAVAILABLE, type WhenUnavailable } from "../safety/sandbox.ts"
import { canonicalProjects, type Switches } from "./projectSwitches.ts"

export type { Switches } from "./projectSwitches.ts"
export const ModelRef = Schema.String.pipe(
  Schema.pattern(/^[^/\s]+\/\S+$/, { message: () => "expected provider/model-id" })
)

export const SelectorConfig = Schema.Struct({
  model: Schema.optional(ModelRef)
})

/** The three parts of memory that can be switched on their own. */
export const FEATURES = ["extraction", "dream", "recall"] as const
export type Feature = (typeof FEATURES)[number]
/** The config.json section holding each feature's `enabled`. */
export const FEATURE_SECTION: Readonly<Record<Feature, "extractor" | "dream" | "recall">> = {
  extraction: "extractor",
  dream: "dream",
  recall: "recall"
}

export interface Config {
  /** The global switch (`/memory on|off`), as it applies to a project without its own setting. */
  readonly enabled: boolean
  /** Every switch set globally (`enabled` included). */
  readonly switches: Switches
  /** Switches set for one project, by its root (the canonical path `pm project` shows). */
  readonly projects: Readonly<Record<string, Switches>>
  /** Set when the file could not be used and memory is off for that reason (fail closed): why, in a few words. */
  readonly closed?: string | undefined
  /** Overrides the memory directory; `~` expanded, absolute after expansion. Only read from the user-level file. */
  readonly autoMemoryDirectory: string | undefined
  readonly selector: { readonly model: string | undefined }
  /**
   * Protected reads of background tasks, user level: `allow` exact paths exempted from the built-in rules, `add`
   * extra protections (absolute paths, or file-name patterns).
   */
  readonly protectedPaths: ProtectedPathsSettings
  /** The background shell when the OS sandbox cannot start (src/safety/sandbox.ts): refuse it, or run behind the guard alone. */
  readonly sandbox: { readonly whenUnavailable: WhenUnavailable }
}

export const defaultConfig: Config = {
  enabled: true,
  switches: {},
  projects: {},
  autoMemoryDirectory: undefined,
  selector: { model: undefined },
  protectedPaths: { exceptions: [], extraProtections: [] },
  sandbox: { whenUnavailable: DEFAULT_WHEN_UNAVAILABLE }
}

/** What a file that cannot be used gives when nothing better is known: memory off, every other key its default. */
export const closedConfig = (why: string): Config => ({ ...defaultConfig, enabled: false, switches: { enabled: false }, closed: why })

export interface ConfigWarning {
  readonly file: string
  readonly key: string
  readonly message: string
}

export interface DecodedConfig {
  readonly config: Config
  readonly warnings: ReadonlyArray<ConfigWarning>
  /** The file as a whole could not be used (the config is closedConfig): the service may keep the last good one. */
  readonly unusable?: boolean
}

const AbsoluteAfterTilde = Schema.String.pipe(
  Schema.filter((s) => s.startsWith("/") || s === "~" || s.startsWith("~/"), {
    message: () => "must be an absolute path or start with ~/"
  })
)

/** The top-level keys this module decodes, with their schemas (the docs' table is checked against them). */
export const fields = {
  enabled: Schema.Boolean,
  autoMemoryDirectory: AbsoluteAfterTilde,
  selector: SelectorConfig,
  protectedPaths: ProtectedPathsConfig,
  sandbox: Schema.Struct({ whenUnavailable: Schema.optional(Schema.Literal("refuse", "guard-only")) })
} as const

/** What each key (or key inside a key) takes, in the words a person fixing the file needs. */
const EXPECTED: Readonly<Record<string, string>> = {
  enabled: "must be true or false",
  autoMemoryDirectory: "must be an absolute path or start with ~/",
  "selector.model": 'must be "provider/model-id" (for example "anthropic/claude-haiku-4-5")',
  "protectedPaths.allow": "must be a list of paths",
  "protectedPaths.add": "must be a list of paths or file-name patterns"
}

const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 40 ? `${text.slice(0, 39)}…` : text
}

/**
 * A decoding problem as one short line: the nested key it concerns (relative to the decoded value, "" for the
 * value itself) and what was expected, never the schema's own dump.
 */
export const problemOf = (error: ParseResult.ParseError): { readonly path: string; readonly text: string } => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const path = (issue?.path ?? []).map(String).join(".")
  const m = issue?.message ?? "is invalid"
  const text = m.startsWith("Expected {")
    ? "must be an object"
    : m.startsWith("Expected ReadonlyArray<string>")
    ? "must be a list of strings"
    : m.startsWith("Expected string")
    ? "must be a string"
    : m.startsWith("Expected boolean")
    ? "must be true or false"
    : m.startsWith("Expected number") || m.startsWith("Expected an integer") || m.startsWith("Expected a number")
    ? "must be a number"
    : m.startsWith("Expected ")
    ? "has the wrong type"
    : m
  return { path, text }
}

/** One line for a key whose value could not be used: `<file>: "<key>" <problem> (found <value>); <fallback>.` */
export const invalidKeyMessage = (file: string, key: string, problem: string, value: unknown, fallback: string): string =>
  `${file}: "${key}" ${problem} (found ${shown(value)}); ${fallback}.`

export const expandHome = (p: string, home: string): string => (p === "~" ? home : p.startsWith("~/") ? home + p.slice(1) : p)

/** The file as one JSON object, or what is wrong with it (for rewriting it key by key without losing keys). */
export const parseConfigObject = (
  text: string
): { readonly _tag: "Object"; readonly object: Readonly<Record<string, unknown>> } | { readonly _tag: "Invalid"; readonly problem: string } => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    return { _tag: "Invalid", problem: `is not valid JSON (${(error as Error).message})` }
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return { _tag: "Invalid", problem: "does not hold a JSON object" }
  return { _tag: "Object", object: json as Record<string, unknown> }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** What a file that cannot be used is told as: memory stays off (or as it was, see ConfigService). */
export const UNUSABLE_FALLBACK = "project memory stays off until it is fixed"

/**
 * The switches of one level: `enabled` and each feature's `<section>.enabled` in `raw`; `label` prefixes the keys
 * in warnings (`projects["/a"].`). A value that is not a boolean is off, with one warning.
 */
const decodeSwitches = (file: string, raw: Record<string, unknown>, label: string, warnings: Array<ConfigWarning>): Switches => {
  const flag = (key: string, value: unknown): boolean | undefined => {
    if (value === undefined) return undefined
    if (typeof value === "boolean") return value
    warnings.push({ file, key: `${label}${key}`, message: invalidKeyMessage(file, `${label}${key}`, "must be true or false", value, "treated as false (off) until it is fixed") })
    return false
  }
  const out: { -readonly [K in keyof Switches]: Switches[K] } = {}
  const enabled = flag("enabled", raw["enabled"])
  if (enabled !== undefined) out.enabled = enabled
  for (const feature of FEATURES) {
    const section = FEATURE_SECTION[feature]
    const value = raw[section]
    // A section that cannot be read switches its feature off (fail closed); told here, once.
    if (!isObject(value)) {
      if (value !== undefined) {
        warnings.push({ file, key: `${label}${section}`, message: invalidKeyMessage(file, `${label}${section}`, "must be an object", value, `${feature} is off until it is fixed`) })
        out[feature] = false
      }
      continue
    }
    const v = flag(`${section}.enabled`, value["enabled"])
    if (v !== undefined) out[feature] = v
  }
  const history = raw["history"]
  if (isObject(history)) {
    const v = flag("history.enabled", history["enabled"])
    if (v !== undefined) out.history = v
  } else if (history !== undefined) {
    warnings.push({ file, key: `${label}history`, message: invalidKeyMessage(file, `${label}history`, "must be an object", history, "history is off until it is fixed") })
    out.history = false
  }
  return out
}

/** `text` is the file's content; `home` expands `~`. Never fails. */
export const decodeConfig = (file: string, text: string, home: string): DecodedConfig => {
  const warnings: Array<ConfigWarning> = []
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    return {
      config: closedConfig("config.json is not valid JSON"),
      warnings: [{ file, key: "(file)", message: `${file} is not valid JSON (${(error as Error).message}); ${UNUSABLE_FALLBACK}.` }],
      unusable: true
    }
  }
  if (!isObject(json)) {
    return {
      config: closedConfig("config.json does not hold a JSON object"),
      warnings: [{ file, key: "(file)", message: `${file} must hold a JSON object; ${UNUSABLE_FALLBACK}.` }],
      unusable: true
    }
  }
  const raw = json
  const pick = <A, I>(key: keyof typeof fields, schema: Schema.Schema<A, I>): A | undefined => {
    if (!(key in raw) || raw[key] === undefined) return undefined
    const decoded = Schema.decodeUnknownEither(schema)(raw[key])
    if (Either.isRight(decoded)) return decoded.right
    const problem = problemOf(decoded.left)
    const at = problem.path === "" ? key : `${key}.${problem.path}`
    const value = problem.path === "" ? raw[key] : problem.path.split(".").reduce<unknown>((v, k) => (isObject(v) || Array.isArray(v) ? (v as any)[k] : undefined), raw[key])
    warnings.push({ file, key: at, message: invalidKeyMessage(file, at, EXPECTED[at] ?? problem.text, value, "using the default") })
    return undefined
  }
  const switches = decodeSwitches(file, raw, "", warnings)
  const projects: Record<string, Switches> = {}
  if (raw["projects"] !== undefined) {
    if (!isObject(raw["projects"])) {
      warnings.push({ file, key: "projects", message: invalidKeyMessage(file, "projects", "must be an object of project roots", raw["projects"], "ignored") })
    } else {
      for (const [root, value] of Object.entries(raw["projects"])) {
        const label = `projects[${JSON.stringify(root)}].`
        if (!root.startsWith("/")) {
          warnings.push({ file, key: `projects`, message: `${file}: "projects" key ${JSON.stringify(root)} is not an absolute project root; ignored.` })
          continue
        }
        if (!isObject(value)) {
          // Fail closed: a project entry that cannot be read switches that project's memory off.
          warnings.push({ file, key: label.slice(0, -1), message: invalidKeyMessage(file, label.slice(0, -1), "must be an object", value, "memory is off for that project until it is fixed") })
          projects[root] = { enabled: false }
          continue
        }
        projects[root] = decodeSwitches(file, value, label, warnings)
      }
    }
  }
  const projectsByRoot = canonicalProjects(projects)
  const dir = pick("autoMemoryDirectory", fields.autoMemoryDirectory)
  const selector = pick("selector", fields.selector)
  const sandbox = pick("sandbox", fields.sandbox)
  const protectedRaw = pick("protectedPaths", fields.protectedPaths)
  // User level only: a project's own additions are not read yet (see docs/credentials.md).
  const protectedPaths = protectedRaw === undefined ? undefined : decodeProtectedPaths(protectedRaw, undefined, home, "/")
  for (const problem of protectedPaths?.problems ?? []) warnings.push({ file, key: "protectedPaths", message: `${file}: ${problem}` })
  return {
    config: {
      enabled: switches.enabled ?? defaultConfig.enabled,
      switches,
      projects: projectsByRoot,
      autoMemoryDirectory: dir === undefined ? undefined : expandHome(dir, home),
      selector: { model: selector?.model },
      protectedPaths: protectedPaths?.settings ?? defaultConfig.protectedPaths,
      sandbox: { whenUnavailable: sandbox?.whenUnavailable ?? defaultConfig.sandbox.whenUnavailable }
    },
    warnings
  }
}

/** One effective switch and where its value comes from. */
export interface Effective {
  readonly on: boolean
  /** "default": nothing set; "global"/"project": that level's key; "memory": all of memory is off at that level. */
  readonly from: "default" | "global" | "project"
}

export interface EffectiveSwitches {
  readonly memory: Effective
  readonly extraction: Effective
  readonly dream: Effective
  readonly recall: Effective
}

/**
 * The switches in force for the project at `projectRoot` (undefined: not known, only the global ones): for each,
 * the project's setting, else the global one, else on; a feature is on only while memory is.
 */
export const switchesFor = (config: Config, projectRoot: string | undefined): EffectiveSwitches => {
  const project = projectRoot === undefined ? undefined : config.projects[projectRoot]
  const pick = (key: keyof Switches): Effective =>
    project?.[key] !== undefined
      ? { on: project[key]!, from: "project" }
      : config.switches[key] !== undefined
      ? { on: config.switches[key]!, from: "global" }
      : { on: true, from: "default" }
  // A config built with `enabled: false` and no key (closedConfig, or by hand) is off globally all the same.
  const memory = project?.enabled === undefined && config.switches.enabled === undefined && !config.enabled
    ? ({ on: false, from: "global" } satisfies Effective)
    : pick("enabled")
  const feature = (f: Feature): Effective => (memory.on ? pick(f) : { on: false, from: memory.from })
  return { memory, extraction: feature("extraction"), dream: feature("dream"), recall: feature("recall") }
}

/** Whether any setting could turn memory on for some project (so a project must be located to know). */
export const mayBeOnSomewhere = (config: Config): boolean =>
  config.enabled || Object.values(config.projects).some((p) => p.enabled === true)

/** The config.json path (as a list of keys) of one switch at one level. */
export const switchPath = (what: "memory" | Feature, projectRoot: string | undefined): ReadonlyArray<string> => {
  const leaf = what === "memory" ? ["enabled"] : [FEATURE_SECTION[what], "enabled"]
  return projectRoot === undefined ? leaf : ["projects", projectRoot, ...leaf]
}

/** The effective switches as one line: `memory on; extraction on; dream off (project); recall on`. */
export const describeSwitches = (s: EffectiveSwitches): string => {
  const one = (k: "memory" | Feature) => `${k} ${s[k].on ? "on" : "off"}${s[k].from === "default" ? "" : ` (${s[k].from})`}`
  return s.memory.on ? (["memory", ...FEATURES] as const).map(one).join(", ") : `${one("memory")}: extraction, dream and recall with it`
}

/** Why `what` is off, for status lines and skipped runs: the level it was switched off at, and how to turn it on. */
export const offReason = (what: "memory" | Feature, e: Effective): string => {
  const name = what === "memory" ? "project memory" : what
  const on = what === "memory" ? "/memory on" : `/memory on ${what}`
  return e.from === "project"
    ? `${name} is switched off for this project (${on} --project)`
    : `${name} is switched off${what === "memory" ? " for every project" : ""} (${on})`
}

/** Why extraction cannot run in a project now (its switches, Pi's trust), or null when it can: what holds queued work. */
export const extractionBlockedBy = (
  switches: { readonly memory: Effective; readonly extraction: Effective },
  trust: "trusted" | "untrusted" | "asks"
): string | null =>
  !switches.memory.on
    ? offReason("memory", switches.memory)
    : !switches.extraction.on
    ? offReason("extraction", switches.extraction)
    : trust !== "trusted"
    ? "Pi does not trust the project"
    : null
