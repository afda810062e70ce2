/**
 * Whether the session's background tasks may go on, for the extraction and the dream alike: a task is valid while
 * the generation it started in is current, the project is trusted, memory is on and the task's own switch is on
 * (config.json as it is now). Invalidation (`/memory off`, reload, a new session) starts a new generation and
 * interrupts every task at once; a lost trust or a switch turned off is noticed at the task's next check, before its
 * next model or tool call, and every later call of the task fails.
 */
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Ref from "effect/Ref"
import { offReason, switchesFor } from "../../src/project/config.ts"
import { ConfigService } from "../project/ConfigService.ts"
import { Host } from "../session/Host.ts"
import { TaskInvalid } from "../writes/writeErrors.ts"
import { safe, type SessionState } from "./sessionState.ts"

export const makeTaskValidity = (state: SessionState) =>
  Effect.gen(function*() {
    const host = yield* Host
    const config = yield* ConfigService

    /** Valid while the generation is the one the task started in, the project is trusted and the task's switch is on. */
    const validity = (startedIn: number, kind: "extraction" | "dream"): Effect.Effect<void, TaskInvalid> =>
      Effect.gen(function*() {
        if ((yield* Ref.get(state.generation)) !== startedIn) {
          return yield* Effect.fail(new TaskInvalid({ reason: "project memory was reloaded, turned off or restarted" }))
        }
        if (!(yield* safe(host.isTrusted, false))) {
          return yield* Effect.fail(new TaskInvalid({ reason: "the project is no longer trusted" }))
        }
        const { config: cfg } = yield* config.load
        const switches = switchesFor(cfg, (yield* Ref.get(state.active))?.location.projectRoot)
        if (!switches.memory.on) return yield* Effect.fail(new TaskInvalid({ reason: "project memory was turned off" }))
        if (!switches[kind].on) return yield* Effect.fail(new TaskInvalid({ reason: offReason(kind, switches[kind]) }))
      })

    /** Whether a settled turn starts this kind of task: its switch as config.json says now. */
    const switchedOn = (kind: "extraction" | "dream") =>
      Effect.gen(function*() {
        const a = yield* Ref.get(state.active)
        if (a === undefined) return false
        return switchesFor((yield* config.load).config, a.location.projectRoot)[kind].on
      })

    /**
     * A new generation: every task in flight (a drain of the queue too) is interrupted, and no trailing extraction is
     * left marked.
     */
    const invalidate = (_reason: string) =>
      Effect.gen(function*() {
        yield* Ref.update(state.generation, (g) => g + 1)
        yield* FiberSet.clear(state.fibers)
        yield* FiberSet.clear(state.drains)
        yield* Ref.set(state.current, undefined)
        yield* Ref.set(state.dreamCurrent, undefined)
        yield* Ref.set(state.trailing, false)
      })

    return { validity, switchedOn, invalidate }
  })

export type TaskValidity = Effect.Effect.Success<ReturnType<typeof makeTaskValidity>>
