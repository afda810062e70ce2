/**
 * Where Effect's log records go. A record (`timestamp=… level=WARN fiber=#21 message=…`) is for whoever debugs the
 * product, never for the person at the terminal: what they should know reaches them as a sentence through the command's
 * output or Pi's notifications. So both entries (`pm` and the Pi extension) replace Effect's default logger with one
 * that keeps quiet, unless `PM_LOG=1` is set, which keeps the default logger (records on the terminal) for debugging.
 */
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"

/** True when the environment asks for log records on the terminal. */
export const logRecordsShown = (env: Readonly<Record<string, string | undefined>>): boolean => env["PM_LOG"] === "1"

/** The logger both entries run with: none, or Effect's default when `PM_LOG=1`. */
export const logRecordsLayer = (env: Readonly<Record<string, string | undefined>> = process.env): Layer.Layer<never> =>
  logRecordsShown(env) ? Layer.empty : Logger.replace(Logger.defaultLogger, Logger.none)
