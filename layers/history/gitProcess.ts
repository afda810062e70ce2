/**
 * One child process of the memory history's git, bounded: it lives in a scope, so whatever ends the wait for it (its
 * time bound, an output past its bound, the caller's fiber interrupted) stops it with SIGKILL and waits until it has
 * exited and been reaped before going on: no child outlives the effect that ran it.
 *
 * - Time: an Effect timeout (`Effect.timeoutTo`), so the clock is Effect's (a TestClock drives it in tests), not a
 *   Node timer. The child is stopped once `timeoutMs` has passed, and not before.
 * - Output: stdout and stderr each may be `maxOutputBytes` long exactly; one byte more stops the child.
 * - Never fails: the outcome says whether it exited (with its code), ran past its time, gave too much output, or
 *   could not start.
 */
import * as Effect from "effect/Effect"
import type { ChildProcess } from "node:child_process"

export interface ChildRun {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly cwd?: string
  readonly env: NodeJS.ProcessEnv
  readonly input?: string
  readonly timeoutMs: number
  readonly maxOutputBytes: number
}

export type ChildOutcome =
  | { readonly _tag: "Exited"; readonly code: number | null; readonly stdout: Buffer; readonly stderr: Buffer }
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "TooMuchOutput"; readonly stream: "stdout" | "stderr" }
  | { readonly _tag: "NotStarted"; readonly message: string }

interface Started {
  readonly child: ChildProcess
  /** Resolves once the child has exited (and Node has reaped it), or could not start. */
  readonly gone: Promise<void>
}

const start = (run: ChildRun): Effect.Effect<Started> =>
  Effect.sync(() => {
    // Node's child_process is taken when a git first starts: a command that reads the history's state and runs no git
    // (`pm status` with sync off) does not load it.
    const { spawn } = process.getBuiltinModule("node:child_process")
    const child = spawn(run.command, [...run.args], { cwd: run.cwd, env: run.env, stdio: ["pipe", "pipe", "pipe"] })
    const gone = new Promise<void>((resolve) => {
      child.once("exit", () => resolve())
      child.once("error", () => resolve())
    })
    // A git that exits before reading its input (refused, killed) must not crash us with EPIPE.
    child.stdin?.on("error", () => undefined)
    if (run.input !== undefined) child.stdin?.end(run.input)
    else child.stdin?.end()
    return { child, gone }
  })

/** Stops a child that still runs, and waits until it is gone. */
const stop = ({ child, gone }: Started): Effect.Effect<void> =>
  Effect.promise(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    return gone
  })

const outcomeOf = ({ child }: Started, maxOutputBytes: number): Effect.Effect<ChildOutcome> =>
  Effect.async<ChildOutcome>((resume) => {
    const chunks = { stdout: [] as Array<Buffer>, stderr: [] as Array<Buffer> }
    const sizes = { stdout: 0, stderr: 0 }
    let done = false
    const finish = (outcome: ChildOutcome) => {
      if (done) return
      done = true
      resume(Effect.succeed(outcome))
    }
    for (const stream of ["stdout", "stderr"] as const) {
      child[stream]?.on("data", (chunk: Buffer) => {
        sizes[stream] += chunk.length
        if (sizes[stream] > maxOutputBytes) finish({ _tag: "TooMuchOutput", stream })
        else chunks[stream].push(chunk)
      })
    }
    child.once("error", (e) => finish({ _tag: "NotStarted", message: e.message }))
    // "close": the child exited and both streams ended, so every byte it wrote has been counted.
    child.once("close", (code) => finish({ _tag: "Exited", code, stdout: Buffer.concat(chunks.stdout), stderr: Buffer.concat(chunks.stderr) }))
  })

/** Runs one child to its end, or stops it at its bound; the child is gone when this returns. */
export const runBounded = (run: ChildRun): Effect.Effect<ChildOutcome> =>
  Effect.scoped(
    Effect.flatMap(Effect.acquireRelease(start(run), stop), (started) =>
      outcomeOf(started, run.maxOutputBytes).pipe(
        Effect.timeoutTo({ duration: run.timeoutMs, onTimeout: (): ChildOutcome => ({ _tag: "TimedOut" }), onSuccess: (o) => o })
      ))
  )
