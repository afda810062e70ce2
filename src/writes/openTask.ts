/**
 * The open-task marker (pure): `memory-roots/<hash>/open/<task>.json`, written before a task's first journaled change
 * and removed after its last. It names the task, its kind, who runs it (pid, start time, process table, host) and the
 * locks it holds while it changes memory. A marker whose owner is gone is a task that was interrupted: the next holder
 * of those locks rolls it back from the journal (layers/writes/journalRecover.ts). Schema, encoding, the file's name,
 * and whether an owner is provably gone; no I/O.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { LOCK_TIMEOUTS_MS, type LockName } from "../limits.ts"
import { TaskKind } from "./journal.ts"

export const OPEN_DIR = "open"
const MARKER_SUFFIX = ".json"

const lockNames = Object.keys(LOCK_TIMEOUTS_MS) as Array<LockName>
export const MarkerLock = Schema.Literal(...lockNames)

/** A task id that is safe as a file name: what `kind-uuid` ids and test ids look like. */
export const MarkerTask = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/))

export const OpenTaskMarker = Schema.Struct({
  v: Schema.Literal(1),
  task: MarkerTask,
  kind: TaskKind,
  pid: Schema.Int.pipe(Schema.positive()),
  /** The owner's start time as the kernel reports it (Linux), so a reused pid is not taken for the owner. */
  start: Schema.optional(Schema.String),
  /** The owner's process table (boot id and PID namespace, Linux): its pid means something to us only on the same one. */
  machine: Schema.optional(Schema.String),
  host: Schema.String,
  /** The locks the task holds while it changes memory: a recoverer must hold them all. */
  locks: Schema.Array(MarkerLock),
  /** ISO 8601 time the marker was written. */
  at: Schema.String
})
export type OpenTaskMarker = typeof OpenTaskMarker.Type

const decodeMarkerJson = Schema.decodeUnknownEither(Schema.parseJson(OpenTaskMarker))
const encodeMarkerJson = Schema.encodeSync(Schema.parseJson(OpenTaskMarker))

export const encodeMarker = (marker: OpenTaskMarker): string => `${encodeMarkerJson(marker)}\n`
export const decodeMarker = (text: string): OpenTaskMarker | undefined => Either.getOrUndefined(decodeMarkerJson(text))

export const isMarkerTask = (task: string): boolean => Schema.is(MarkerTask)(task)
export const markerFileOf = (task: string): string => `${task}${MARKER_SUFFIX}`
/** The task a marker file names, or undefined for any other name (temp files, strays). */
export const taskOfMarkerFile = (name: string): string | undefined => {
  if (!name.endsWith(MARKER_SUFFIX)) return undefined
  const task = name.slice(0, -MARKER_SUFFIX.length)
  return isMarkerTask(task) ? task : undefined
}

export interface ProcessFacts {
  readonly pid: number
  readonly machine: string | undefined
  /** Whether `task` is running in this very process now. */
  readonly runningHere: (task: string) => boolean
  readonly pidAlive: (pid: number) => boolean
  readonly startOf: (pid: number) => string | undefined
  readonly now: number
}

/**
 * Whether a marker's owner may still be running its task, judged as a lock's holder is: on our process table its pid
 * and start time decide, and our own pid is alive only while the task runs here. An owner on another table (another
 * machine or PID namespace) is taken as alive while a process of its pid exists here and the marker is younger than
 * the longest timeout of the locks it holds (past that its locks were free for anyone to take).
 */
export const ownerAlive = (marker: OpenTaskMarker, us: ProcessFacts): boolean => {
  const checkable = us.machine !== undefined && marker.machine === us.machine
  if (marker.pid === us.pid && (checkable || marker.machine === undefined)) return us.runningHere(marker.task)
  if (!us.pidAlive(marker.pid)) return false
  if (!checkable) {
    const timeout = Math.max(0, ...marker.locks.map((l) => LOCK_TIMEOUTS_MS[l]))
    const at = Date.parse(marker.at)
    return Number.isNaN(at) || us.now - at <= timeout
  }
  if (marker.start === undefined) return true
  const start = us.startOf(marker.pid)
  return start === undefined || start === marker.start
}
