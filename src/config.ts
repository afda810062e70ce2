/**
 * The user-level `config.json` under the storage root. Decoded key by key with Schema: a bad key falls back to its
 * default and yields one warning naming the file and the key; the rest of the file still applies.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { decodeProtectedPaths, ProtectedPathsConfig, type ProtectedPathsSettings } from "./protectedPaths.ts"
export const ModelRef = Schema.String.pipe(
  Schema.pattern(/^[^/\s]+\/\S+$/, { message: () => "expected provider/model-id" })
)

export const SelectorConfig = Schema.Struct({
  model: Schema.optional(ModelRef)
})

export interface Config {
  /** Global switch (`/memory on|off`). */
  readonly enabled: boolean
  /** Overrides the memory directory; `~` expanded, absolute after expansion. Only read from the user-level file. */
  readonly autoMemoryDirectory: string | undefined
  readonly selector: { readonly model: string | undefined }
  /**
   * Protected reads of background tasks, user level: `allow` exact paths exempted from the built-in rules, `add`
   * extra protections (absolute paths, or file-name patterns).
   */
  readonly protectedPaths: ProtectedPathsSettings
}

export const defaultConfig: Config = {
  enabled: true,
  autoMemoryDirectory: undefined,
  selector: { model: undefined },
  protectedPaths: { exceptions: [], extraProtections: [] }
}

export interface ConfigWarning {
  readonly file: string
  readonly key: string
  readonly message: string
}

export interface DecodedConfig {
  readonly config: Config
  readonly warnings: ReadonlyArray<ConfigWarning>
}

const AbsoluteAfterTilde = Schema.String.pipe(
  Schema.filter((s) => s.startsWith("/") || s === "~" || s.startsWith("~/"), {
    message: () => "must be an absolute path or start with ~/"
  })
)

const fields = {
  enabled: Schema.Boolean,
  autoMemoryDirectory: AbsoluteAfterTilde,
  selector: SelectorConfig,
  protectedPaths: ProtectedPathsConfig
} as const

/** What each key (or key inside a key) takes, in the words a person fixing the file needs. */
const EXPECTED: Readonly<Record<string, string>> = {
  enabled: "must be true or false",
  autoMemoryDirectory: "must be an absolute path or start with ~/",
  selector: 'must be an object such as { "model": "provider/model-id" }',
  "selector.model": 'must be "provider/model-id" (for example "anthropic/claude-haiku-4-5")',
  protectedPaths: 'must be an object such as { "allow": ["/a/path"], "add": ["*.secret"] }',
  "protectedPaths.allow": "must be a list of paths",
  "protectedPaths.add": "must be a list of paths or file-name patterns"
}

/**
 * One short sentence for an invalid key: which key (down to the part inside it that is wrong), what it takes, and
 * what the file holds there; never the schema's own dump.
 */
const describeInvalid = (key: string, value: unknown, error: ParseResult.ParseError): string => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const path = (issue?.path ?? []).filter((p) => typeof p === "string" || typeof p === "number").map(String)
  // The deepest part of the key that has its own wording.
  let at = path.length
  while (at > 0 && EXPECTED[[key, ...path.slice(0, at)].join(".")] === undefined) at--
  const name = [key, ...path.slice(0, at)].join(".")
  let found: unknown = value
  for (const p of path.slice(0, at)) found = typeof found === "object" && found !== null ? (found as Record<string, unknown>)[p] : undefined
  const shown = JSON.stringify(found) ?? String(found)
  const expected = EXPECTED[name] ?? (issue?.message ?? "has the wrong form").replace(/\s+/g, " ").slice(0, 120)
  return `"${name}" ${expected}, not ${shown.length > 60 ? `${shown.slice(0, 59)}…` : shown}`
}

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

/** `text` is the file's content; `home` expands `~`. Never fails. */
export const decodeConfig = (file: string, text: string, home: string): DecodedConfig => {
  const warnings: Array<ConfigWarning> = []
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    return {
      config: defaultConfig,
      warnings: [{ file, key: "(file)", message: `${file} is not valid JSON (${(error as Error).message}); using defaults.` }]
    }
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return { config: defaultConfig, warnings: [{ file, key: "(file)", message: `${file} must hold a JSON object; using defaults.` }] }
  }
  const raw = json as Record<string, unknown>
  const pick = <A, I>(key: keyof typeof fields, schema: Schema.Schema<A, I>): A | undefined => {
    if (!(key in raw) || raw[key] === undefined) return undefined
    const decoded = Schema.decodeUnknownEither(schema)(raw[key])
    if (Either.isRight(decoded)) return decoded.right
    warnings.push({ file, key, message: `${file}: ${describeInvalid(key, raw[key], decoded.left)}; using the default.` })
    return undefined
  }
  const enabled = pick("enabled", fields.enabled)
  const dir = pick("autoMemoryDirectory", fields.autoMemoryDirectory)
  const selector = pick("selector", fields.selector)
  const protectedRaw = pick("protectedPaths", fields.protectedPaths)
  // User level only: a project's own additions are not read yet (see docs/credentials.md).
  const protectedPaths = protectedRaw === undefined ? undefined : decodeProtectedPaths(protectedRaw, undefined, home, "/")
  for (const problem of protectedPaths?.problems ?? []) warnings.push({ file, key: "protectedPaths", message: `${file}: ${problem}` })
  return {
    config: {
      enabled: enabled ?? defaultConfig.enabled,
      autoMemoryDirectory: dir === undefined ? undefined : expandHome(dir, home),
      selector: { model: selector?.model },
      protectedPaths: protectedPaths?.settings ?? defaultConfig.protectedPaths
    },
    warnings
  }
}
