/**
 * Where Effect's log records go. A record (`timestamp=… level=WARN fiber=#21 message=…`) is for whoever debugs the
 * product, never for the person at the terminal: what they should know reaches them as a sentence through the command's
 * output or Pi's notifications. So both entries (`pm` and the Pi extension) replace Effect's default logger with one
 * that keeps quiet, unless `PM_LOG=1` is set, which keeps the default logger (records on the terminal) for debugging.
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"

/** True when the environment asks for log records on the terminal. */
export const logRecordsShown = (env: Readonly<Record<string, string | undefined>>): boolean => env["PM_LOG"] === "1"

/** The logger both entries run with: none, or Effect's default when `PM_LOG=1`. */
export const logRecordsLayer = (env: Readonly<Record<string, string | undefined>> = process.env): Layer.Layer<never> =>
  logRecordsShown(env) ? Layer.empty : Logger.replace(Logger.defaultLogger, Logger.none)

/**
 * `effect` with the loggers of `logRecordsLayer`, without a layer: for the extension's runtime, made without Effect's
 * layer builder (a runtime captured inside it keeps them).
 */
export const withLogRecords = (env: Readonly<Record<string, string | undefined>> = process.env) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    logRecordsShown(env)
      ? effect
      : Effect.locallyWith(effect, FiberRef.currentLoggers, (loggers) => HashSet.add(HashSet.remove(loggers, Logger.defaultLogger), Logger.none))
