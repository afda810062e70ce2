/**
 * A child for bounds.e2e.test.ts: opens the real sandbox (which starts the runtime's socat bridge), checks the
 * runtime's dependencies once initialised with our socat launcher, says so, and waits to be killed.
 */
import { SandboxManager } from "@anthropic-ai/sandbox-runtime"
import * as Effect from "effect/Effect"
import { defaultSandbox } from "../../layers/safety/Sandbox.ts"

const session = await Effect.runPromise(defaultSandbox().open)
const deps = SandboxManager.checkDependencies()
process.stdout.write(`open ${session.availability._tag} ${deps.errors.length === 0 ? "ok" : deps.errors.join("; ")}\n`)
setInterval(() => undefined, 60_000)
