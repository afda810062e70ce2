/**
 * A child for lookupRetry.e2e.test.ts: opens the real sandbox under the PATH it was given (a `which` that fails some
 * lookups first), runs one command in it, prints one JSON line and exits.
 */
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { defaultSandbox } from "../../layers/safety/Sandbox.ts"

const session = await Effect.runPromise(defaultSandbox().open)
let output: string | undefined
if (session.availability._tag === "Available") {
  const line = await Effect.runPromise(session.wrap("echo ran-inside", { denyRead: [], allowRead: [], allowWrite: [], denyWrite: [] }))
  output = execFileSync("bash", ["-c", line], { encoding: "utf8" }).trim()
}
process.stdout.write(`${JSON.stringify({ availability: session.availability, output })}\n`)
await Effect.runPromise(session.close)
process.exit(0)
