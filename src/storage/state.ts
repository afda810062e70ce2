/**
 * The shared consolidation state, `memory-roots/<hash>/state.json`, and its legacy source,
 * `projects/<key>/state.json`. Pure: parsing, encoding and the two dream operations as state transitions.
 */
import * as Schema from "effect/Schema"
/** Epoch milliseconds. Older files may carry an ISO string; both decode to a number. */
const Instant = Schema.Union(
  Schema.Number,
  Schema.transform(Schema.String, Schema.Number, {
    strict: true,
    decode: (s) => Date.parse(s),
    encode: (n) => new Date(n).toISOString()
  }).pipe(Schema.filter((n) => Number.isFinite(n)))
)

/**
 * `version` grows by one on every successful write and is what compare-and-swap compares. Fields this code does not
 * know are kept as they are, so a newer release can add some without an older one erasing them.
 */
export const SharedState = Schema.Struct(
  {
    version: Schema.Int.pipe(Schema.nonNegative()),
    lastDreamAt: Schema.NullOr(Schema.Number),
    /** Identifies the attempt that last set `lastDreamAt`, so a rollback only undoes its own write. */
    dreamAttempt: Schema.optional(Schema.String)
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type SharedState = typeof SharedState.Type

export const LegacyProjectState = Schema.Struct(
  { lastDreamAt: Schema.optional(Schema.NullOr(Instant)) },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)

export const EMPTY_STATE: SharedState = { version: 0, lastDreamAt: null }

/** Where a snapshot came from: the shared file, the legacy project file (migration), or nothing yet. */
export type StateSource = "shared" | "legacy" | "empty" | "corrupt"

export interface StateSnapshot {
  readonly state: SharedState
  readonly source: StateSource
}

const decodeShared = Schema.decodeUnknownOption(Schema.parseJson(SharedState))
const decodeLegacy = Schema.decodeUnknownOption(Schema.parseJson(LegacyProjectState))

/**
 * A shared file that does not decode is reported as "corrupt" with version 0: the next successful write replaces it,
 * instead of the dream being blocked forever by a file nobody can fix from inside Pi.
 */
export const parseShared = (text: string): StateSnapshot => {
  const decoded = decodeShared(text)
  return decoded._tag === "Some" ? { state: decoded.value, source: "shared" } : { state: EMPTY_STATE, source: "corrupt" }
}

/** The legacy file only contributes `lastDreamAt`; the snapshot keeps version 0 (no shared file yet). */
export const parseLegacy = (text: string): StateSnapshot => {
  const decoded = decodeLegacy(text)
  if (decoded._tag === "None") return { state: EMPTY_STATE, source: "empty" }
  return { state: { version: 0, lastDreamAt: decoded.value.lastDreamAt ?? null }, source: "legacy" }
}

export const encodeState = (state: SharedState): string => JSON.stringify(state, null, 2) + "\n"

/** The state to write after `next` was computed from a snapshot at `from.version`. */
export const nextVersion = (from: SharedState, next: SharedState): SharedState => ({ ...next, version: from.version + 1 })

/** What `recordDreamAttempt` hands back: enough to undo exactly this attempt later. */
export interface DreamAttempt {
  readonly previous: number | null
  readonly at: number
  readonly attempt: string
}

export const recordAttempt = (state: SharedState, at: number, attempt: string): SharedState => ({
  ...state,
  lastDreamAt: at,
  dreamAttempt: attempt
})

/** Restores the previous value only while the current one is still the attempt's own; otherwise unchanged. */
export const rollbackAttempt = (state: SharedState, ticket: DreamAttempt): SharedState | undefined => {
  if (state.lastDreamAt !== ticket.at || state.dreamAttempt !== ticket.attempt) return undefined
  const { dreamAttempt: _ours, ...rest } = state
  return { ...rest, lastDreamAt: ticket.previous }
}
