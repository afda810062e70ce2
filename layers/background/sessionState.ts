/**
 * The state one BackgroundSession keeps between events, shared by its parts (BackgroundSession.ts composes them):
 * the generation tasks are valid in, the active project, the extractor's cursor, the parent's captured request, the
 * project's run history, this session's usage totals and the tasks in flight. It holds values only; what changes
 * them, and when, is each part's. Also the host side only the background needs, and the guard against a stale host.
 * The drain of the project's queue has a fiber set of its own.
 */
import type { Message } from "@earendil-works/pi-ai"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import type { BackgroundConfig } from "../../src/background/config.ts"
import type { RunHistory } from "../../src/background/runHistory.ts"
import type { BackgroundKind } from "../../src/background/runs.ts"
import { type UsageTotals, zeroUsage } from "../../src/model/usage.ts"
import type { ProjectLocation } from "../../src/storage/layout.ts"
import type { CodemodeSettings } from "./tools/taskTool.ts"

/** What only the background side needs from Pi beyond Host. */
export interface BackgroundHostShape {
  /** The status line of `kind` (each kind has its own key, statusKeyOf). */
  readonly setStatus: (kind: BackgroundKind, text: string | undefined) => Effect.Effect<void>
  /** The main session's codemode when it is on (then tasks get their own over the six tools). */
  readonly codemode: Effect.Effect<CodemodeSettings | undefined>
  /**
   * The current session's directory of `.jsonl` files, and whether it is shared by several projects (a custom
   * session directory) rather than Pi's default folder for this cwd. Undefined: no session files (no dream).
   */
  readonly sessionDir?: Effect.Effect<{ readonly dir: string; readonly shared: boolean } | undefined>
}

export interface ModelIdentity {
  readonly provider: string
  readonly api: string
  readonly id: string
}

/** The project memory of this session while it is on: where it is, and its background settings. */
export interface Active {
  readonly location: ProjectLocation
  readonly canonicalMemoryDir: string
  readonly background: BackgroundConfig
}

export interface Captured {
  readonly messages: ReadonlyArray<Message>
  readonly model: ModelIdentity
}

export interface SessionState {
  /** Bumped by every start and invalidation: a task is valid only in the generation it started in. */
  readonly generation: Ref.Ref<number>
  readonly active: Ref.Ref<Active | undefined>
  readonly cursor: Ref.Ref<string | undefined>
  readonly captured: Ref.Ref<Captured | undefined>
  /** The project's recent runs, as last read or written. */
  readonly history: Ref.Ref<RunHistory>
  /** This session's background model usage, all runs. */
  readonly totals: Ref.Ref<UsageTotals>
  /** The extraction in flight (at most one per session), and whether a turn settled while it ran. */
  readonly current: Ref.Ref<Fiber.RuntimeFiber<void, never> | undefined>
  readonly trailing: Ref.Ref<boolean>
  /** Every background fiber of the session, owned by the layer's scope. */
  readonly fibers: FiberSet.FiberSet<void, never>
  /** The dream in flight in this session (at most one; turns that settle meanwhile do not queue another). */
  readonly dreamCurrent: Ref.Ref<Fiber.RuntimeFiber<void, never> | undefined>
  /** Open while this session's extraction waits for extract.lock held by another process; `holder` says who. */
  readonly lockWaiting: Effect.Latch
  readonly holder: Ref.Ref<string | undefined>
  /** Set by shutdown: what is stopped now is handed over (and recorded) by the hand-off. */
  readonly ending: Ref.Ref<boolean>
  /** The run of the project's queued jobs (queueDrain.ts), apart from `fibers`: shutdown never waits for it. */
  readonly drains: FiberSet.FiberSet<void, never>
}

export const makeSessionState = (scope: Scope.Scope): Effect.Effect<SessionState> =>
  Effect.gen(function*() {
    const generation = yield* Ref.make(0)
    const active = yield* Ref.make<Active | undefined>(undefined)
    const cursor = yield* Ref.make<string | undefined>(undefined)
    const captured = yield* Ref.make<Captured | undefined>(undefined)
    const history = yield* Ref.make<RunHistory>([])
    const totals = yield* Ref.make<UsageTotals>(zeroUsage)
    const current = yield* Ref.make<Fiber.RuntimeFiber<void, never> | undefined>(undefined)
    const trailing = yield* Ref.make(false)
    const fibers = yield* FiberSet.make<void, never>().pipe(Scope.extend(scope))
    const dreamCurrent = yield* Ref.make<Fiber.RuntimeFiber<void, never> | undefined>(undefined)
    const lockWaiting = yield* Effect.makeLatch(false)
    const holder = yield* Ref.make<string | undefined>(undefined)
    const ending = yield* Ref.make(false)
    const drains = yield* FiberSet.make<void, never>().pipe(Scope.extend(scope))
    return { generation, active, cursor, captured, history, totals, current, trailing, fibers, dreamCurrent, lockWaiting, holder, ending, drains }
  })

export const safe = <A>(effect: Effect.Effect<A>, fallback: A): Effect.Effect<A> =>
  // A stale host context (after reload) throws: treat it as "no longer valid" rather than a crash.
  Effect.catchAllDefect(effect, () => Effect.succeed(fallback))

/** Yields to the event loop (not to the clock): pending I/O callbacks and handlers run first. */
export const nextMacrotask: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})
