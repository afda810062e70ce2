/**
 * Whether the tests that need the OS sandbox run here. They are never skipped when `CI` or `PM_SANDBOX_REQUIRED`
 * (set by .ci/run) is set: a missing sandbox fails them. Elsewhere they skip, with the reason printed, only when
 * bubblewrap is truly absent (Linux) or the platform has no sandbox; any other failure to start fails them.
 */
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { defaultSandbox, sandboxAvailability } from "../../layers/safety/Sandbox.ts"
import type { SandboxAvailability } from "../../src/safety/sandbox.ts"

export interface SandboxGate {
  readonly availability: SandboxAvailability
  /** Skip the sandbox tests (locally, no bubblewrap at all). */
  readonly skip: boolean
  readonly reason: string
}

const hasBwrap = (): boolean => {
  try {
    execFileSync("sh", ["-c", "command -v bwrap"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

export const sandboxGate = async (): Promise<SandboxGate> => {
  const availability = await Effect.runPromise(sandboxAvailability(defaultSandbox()))
  const required = (process.env["CI"] ?? "") !== "" || (process.env["PM_SANDBOX_REQUIRED"] ?? "") !== ""
  const absent = process.platform === "linux" ? !hasBwrap() : process.platform !== "darwin"
  const skip = availability._tag === "Unavailable" && !required && absent
  const reason = availability._tag === "Unavailable" ? availability.reason : "available"
  if (skip) console.warn(`[sandbox tests skipped: ${reason}; install bubblewrap and socat to run them]`)
  return { availability, skip, reason }
}

/** Runs `f` over `items`, `n` at a time (the sandbox tests replay their corpora two commands at once). */
export const pool = async <A, B>(items: ReadonlyArray<A>, n: number, f: (a: A) => Promise<B>): Promise<Array<B>> => {
  const out: Array<B> = new Array(items.length)
  let next = 0
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await f(items[i]!)
    }
  }))
  return out
}
