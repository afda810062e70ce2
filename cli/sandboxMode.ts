/**
 * The sandbox's one line for `pm bash-check`: whether the commands it classifies would run inside the OS sandbox,
 * behind the guard alone, or not at all (src/safety/sandbox.ts, `sandbox.whenUnavailable`), and how to get the sandbox.
 */
import * as Effect from "effect/Effect"
import { sandboxStatusLine } from "../layers/background/tools/sandboxed.ts"

export const sandboxModeNote: Effect.Effect<string> = Effect.promise(() => sandboxStatusLine())

/**
 * Where the line goes: after a plain verdict on stdout; to stderr when stdout carries JSON (one object, or JSON
 * Lines), so the output stays parseable.
 */
export const printSandboxModeNote = (plainSingle: boolean): Effect.Effect<void> =>
  sandboxModeNote.pipe(Effect.flatMap((line) => Effect.sync(() => void (plainSingle ? process.stdout : process.stderr).write(`${line}\n`))))
