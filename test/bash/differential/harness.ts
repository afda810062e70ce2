/**
 * The differential harness: the real guard, its view, the sandbox and the oracle together.
 * `check(command)` classifies; when the guard says read-only it runs the command under bash and judges the run.
 */
import * as ManagedRuntime from "effect/ManagedRuntime"
import { BashGuard, type Verdict } from "../../../layers/safety/BashGuard.ts"
import type { BashGuardShape } from "../../../layers/safety/bashGuardShape.ts"
import { GuardViewer } from "./guardView.ts"
import { judge, type Mismatch } from "./oracle.ts"
import { Sandbox, type RunResult } from "./sandbox.ts"

export interface Checked {
  readonly command: string
  readonly verdict: Verdict
  /** Present when the guard allowed it and it ran. */
  readonly run?: RunResult
  readonly mismatch?: Mismatch
}

export class Harness {
  readonly sandbox: Sandbox
  readonly guard: BashGuardShape
  readonly viewer: GuardViewer
  private readonly runtime: ManagedRuntime.ManagedRuntime<BashGuard, unknown>

  private constructor(runtime: ManagedRuntime.ManagedRuntime<BashGuard, unknown>, guard: BashGuardShape, viewer: GuardViewer) {
    this.runtime = runtime
    this.guard = guard
    this.viewer = viewer
    this.sandbox = new Sandbox()
  }

  static async make(): Promise<Harness> {
    const runtime = ManagedRuntime.make(BashGuard.layer)
    const guard = await runtime.runPromise(BashGuard)
    const viewer = await GuardViewer.make()
    return new Harness(runtime, guard, viewer)
  }

  get context() {
    return { memoryDir: this.sandbox.memory, cwd: this.sandbox.cwd }
  }

  classify(command: string): Verdict {
    return this.guard.classifySync(command, this.context)
  }

  allows(command: string): boolean {
    return this.classify(command).verdict === "read-only"
  }

  /** Runs a command under bash whatever the guard says (seed demonstrations). */
  runAnyway(command: string): RunResult {
    return this.sandbox.run(command)
  }

  check(command: string): Checked {
    const verdict = this.classify(command)
    if (verdict.verdict !== "read-only") return { command, verdict }
    const run = this.sandbox.run(command)
    const mismatch = judge({
      command,
      view: this.viewer.view(command),
      run,
      home: `${this.sandbox.root}/sandbox/home`,
      allows: (c) => this.allows(c)
    })
    return mismatch === undefined ? { command, verdict, run } : { command, verdict, run, mismatch }
  }

  /** What the guard's reading says would run, against what bash ran (for a command the guard rejects). */
  judgeAnyway(command: string): { readonly run: RunResult; readonly mismatch?: Mismatch } {
    const run = this.sandbox.run(command)
    const mismatch = judge({
      command,
      view: this.viewer.view(command),
      run,
      home: `${this.sandbox.root}/sandbox/home`,
      allows: (c) => this.allows(c)
    })
    return mismatch === undefined ? { run } : { run, mismatch }
  }

  async dispose(): Promise<void> {
    this.viewer.dispose()
    this.sandbox.dispose()
    await this.runtime.dispose()
  }
}
