/**
 * The background tasks' keys of `config.json`: `extractor` and `dream`, each
 * `{ model?, maxTurns?, maxTokens?, requestTimeoutSeconds? }`; `dream`
 * also takes when it becomes due: `{ minHours?, minSessions?, scanIntervalMinutes? }`, and `extractor` whether to
 * skip turns that brought outside content in (`skipExternalContext`, default false).
 * Decoded key by key like the rest of the file: a bad value falls back to its default with one warning (one line,
 * naming the key, the value found and what it must be). Their `enabled` switches are src/project/config.ts's.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { DEFAULT_DREAM_THRESHOLDS, type DreamThresholds } from "./dreamSchedule.ts"

export interface BackgroundTaskConfig {
  /** `provider/model-id`; undefined: the session's model. */
  readonly model: string | undefined
  readonly maxTurns: number
  /** Output tokens per model call: a ceiling, lowered to the model's own limit and what its window leaves. */
  readonly maxTokens: number
  /** A model call without an answer after this long is aborted and the run fails. */
  readonly requestTimeoutSeconds: number
}

export interface ExtractorConfig extends BackgroundTaskConfig {
  /** Skip extracting turns whose messages hold a tool result (a file, a command's output, a page read in). */
  readonly skipExternalContext: boolean
}

export interface BackgroundConfig {
  readonly extractor: ExtractorConfig
  readonly dream: BackgroundTaskConfig
  readonly dreamThresholds: DreamThresholds
}

/** Long enough for a slow model's full answer, short enough that a hung provider is noticed. */
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 120

export const defaultBackgroundConfig: BackgroundConfig = {
  extractor: { model: undefined, maxTurns: 5, maxTokens: 8_192, requestTimeoutSeconds: DEFAULT_REQUEST_TIMEOUT_SECONDS, skipExternalContext: false },
  dream: { model: undefined, maxTurns: 50, maxTokens: 16_384, requestTimeoutSeconds: DEFAULT_REQUEST_TIMEOUT_SECONDS },
  dreamThresholds: DEFAULT_DREAM_THRESHOLDS
}

/** Each task key's schema and what a person is told it expects (the docs' table is checked against these keys). */
export const fields = {
  model: Schema.String.pipe(Schema.pattern(/^[^/\s]+\/\S+$/, { message: () => "expected provider/model-id" })),
  maxTurns: Schema.Int.pipe(Schema.between(1, 200)),
  maxTokens: Schema.Int.pipe(Schema.between(256, 1_000_000)),
  requestTimeoutSeconds: Schema.Number.pipe(Schema.between(1, 3_600))
}
const expected: Record<keyof typeof fields | keyof typeof thresholdFields | keyof typeof extractorFields, string> = {
  model: "must be provider/model-id",
  maxTurns: "must be an integer from 1 to 200",
  maxTokens: "must be an integer from 256 to 1,000,000",
  requestTimeoutSeconds: "must be a number of seconds from 1 to 3600",
  skipExternalContext: "must be true or false",
  minHours: "must be a number of hours from 0 to 8760",
  minSessions: "must be an integer from 0 to 10,000",
  scanIntervalMinutes: "must be a number of minutes from 0 to 1440"
}

/** The extractor's own keys beside the task keys. */
export const extractorFields = {
  skipExternalContext: Schema.Boolean
}

/** When a dream is due: keys of the `dream` section beside the task keys. */
export const thresholdFields = {
  minHours: Schema.Number.pipe(Schema.between(0, 24 * 365)),
  minSessions: Schema.Int.pipe(Schema.between(0, 10_000)),
  scanIntervalMinutes: Schema.Number.pipe(Schema.between(0, 24 * 60))
}

const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 40 ? `${text.slice(0, 39)}…` : text
}
/** One line: `<file>: "<key>" <expectation> (found <value>); using <default>.` */
const invalid = (file: string, key: string, what: string, value: unknown, fallback: unknown): string =>
  `${file}: "${key}" ${what} (found ${shown(value)}); using ${fallback === undefined ? "the default" : `the default, ${shown(fallback)}`}.`

export const decodeBackgroundConfig = (
  file: string,
  text: string
): { readonly config: BackgroundConfig; readonly warnings: ReadonlyArray<string> } => {
  const warnings: Array<string> = []
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { config: defaultBackgroundConfig, warnings }
  }
  const raw = typeof json === "object" && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : {}
  const section = (name: "extractor" | "dream"): BackgroundTaskConfig => {
    const defaults = defaultBackgroundConfig[name]
    const value = raw[name]
    if (value === undefined) return defaults
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      // Told by src/project/config.ts, which switches the feature off for it.
      return defaults
    }
    const obj = value as Record<string, unknown>
    const pick = <A>(key: keyof typeof fields, schema: Schema.Schema<A, any>, fallback: A): A => {
      if (obj[key] === undefined) return fallback
      const decoded = Schema.decodeUnknownEither(schema)(obj[key])
      if (Either.isRight(decoded)) return decoded.right
      warnings.push(invalid(file, `${name}.${key}`, expected[key], obj[key], fallback))
      return fallback
    }
    return {
      model: pick("model", fields.model as Schema.Schema<string | undefined, any>, defaults.model),
      maxTurns: pick("maxTurns", fields.maxTurns, defaults.maxTurns),
      maxTokens: pick("maxTokens", fields.maxTokens, defaults.maxTokens),
      requestTimeoutSeconds: pick("requestTimeoutSeconds", fields.requestTimeoutSeconds, defaults.requestTimeoutSeconds)
    }
  }
  const thresholds = (): DreamThresholds => {
    const defaults = DEFAULT_DREAM_THRESHOLDS
    const value = raw["dream"]
    if (typeof value !== "object" || value === null || Array.isArray(value)) return defaults
    const obj = value as Record<string, unknown>
    const pick = (key: keyof typeof thresholdFields, fallback: number): number => {
      if (obj[key] === undefined) return fallback
      const decoded = Schema.decodeUnknownEither(thresholdFields[key])(obj[key])
      if (Either.isRight(decoded)) return decoded.right
      warnings.push(invalid(file, `dream.${key}`, expected[key], obj[key], fallback))
      return fallback
    }
    return {
      minHours: pick("minHours", defaults.minHours),
      minSessions: pick("minSessions", defaults.minSessions),
      scanIntervalMs: pick("scanIntervalMinutes", defaults.scanIntervalMs / 60_000) * 60_000
    }
  }
  const extractorSection = (): ExtractorConfig => {
    const base = section("extractor")
    const value = raw["extractor"]
    const found = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)["skipExternalContext"] : undefined
    if (found === undefined) return { ...base, skipExternalContext: false }
    if (typeof found === "boolean") return { ...base, skipExternalContext: found }
    warnings.push(invalid(file, "extractor.skipExternalContext", expected.skipExternalContext, found, false))
    return { ...base, skipExternalContext: false }
  }
  return { config: { extractor: extractorSection(), dream: section("dream"), dreamThresholds: thresholds() }, warnings }
}
