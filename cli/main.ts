/**
 * `pm`: a plain `scan`, `status`, `list` or `search` runs straight away (cli/fastPath.ts); every other command line
 * goes through the command line library (cli/general.ts), which this module loads only then.
 */
import * as Effect from "effect/Effect"
import { fastRun } from "./fastPath.ts"
import { finish } from "./finish.ts"
import { logRecordsLayer } from "../layers/app/logRecords.ts"

// A reader that stops early (`pm scan | head`) is not an error: stop quietly instead of dying on EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(typeof process.exitCode === "number" ? process.exitCode : 0)
    throw error
  })
}

const fast = fastRun(process.argv.slice(2))
// Log records are not for the person at the terminal (layers/app/logRecords.ts).
if (fast !== undefined) Effect.runPromiseExit(fast.pipe(Effect.provide(logRecordsLayer()))).then(finish)
else await import("./general.ts")
