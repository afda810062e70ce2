/**
 * The gate's deadline on the task's clock (Effect's TestClock): read, find, grep, write and edit are stopped at
 * exactly TOOL_DEADLINE_MS, their abort signal fires and the model gets an error; a call that ends a millisecond
 * sooner keeps its result; bash has its own timeout and is not timed by the gate.
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import type * as TestClockNs from "effect/TestClock"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { describe, expect, it } from "vitest"
import { makeChangeRecords } from "../../layers/background/tools/changeRecords.ts"
import { GREP_TIMEOUT_MS } from "../../layers/background/tools/grep.ts"
import { deadlineMessage, makeGuarded, TOOL_DEADLINE_MS } from "../../layers/background/tools/guardedCall.ts"
import { type BackgroundToolName, textResult, type ToolResult } from "../../layers/background/tools/taskTool.ts"
import { makeToolRuntime } from "../../layers/background/tools/toolRuntime.ts"

const ARGS: Record<BackgroundToolName, Record<string, unknown>> = {
  read: { path: "notes.md" },
  find: { pattern: "*.md" },
  grep: { pattern: "needle" },
  write: { path: "/m/a.md", content: "x" },
  edit: { path: "/m/a.md", edits: [{ oldText: "a", newText: "b" }] },
  bash: { command: "ls" }
}

/** A gate on a TestClock, and a body that ends only when told to (or never), recording its signal. */
const harness = async () => {
  const clock = (await Effect.runPromise(Effect.provide(TestClock.testClock(), TestContext.TestContext))) as TestClockNs.TestClock
  const runtime = makeToolRuntime(Effect.runSync(Effect.runtime<never>().pipe(Effect.withClock(clock))))
  const guarded = makeGuarded({ runtime, check: Effect.void, records: makeChangeRecords("/p", "/m"), prepareOf: {} })
  let finish: (r: ToolResult) => void = () => undefined
  let seen: AbortSignal | undefined
  const body = (_id: string, _args: Record<string, unknown>, signal: AbortSignal) => {
    seen = signal
    return new Promise<ToolResult>((resolve) => void (finish = resolve))
  }
  const start = Effect.runSync(clock.currentTimeMillis)
  return {
    call: (name: BackgroundToolName, signal = new AbortController().signal) => {
      let settled: ToolResult | undefined
      const promise = guarded(name, body)("c1", ARGS[name], signal).then((r) => (settled = r))
      return { promise, settled: () => settled }
    },
    signal: () => seen,
    finish: (r: ToolResult) => finish(r),
    /** Resolves once the deadline's sleep is on the clock (yielding to the event loop between looks). */
    timed: async () => {
      for (let i = 0; i < 100_000; i++) {
        if (Chunk.toReadonlyArray(await Effect.runPromise(clock.sleeps)).includes(start + TOOL_DEADLINE_MS)) return
        await new Promise((resolve) => setImmediate(resolve))
      }
      throw new Error("no deadline was ever set")
    },
    hasSleeps: async () => Chunk.toReadonlyArray(await Effect.runPromise(clock.sleeps)).length > 0,
    adjust: (ms: number) => Effect.runPromise(clock.adjust(ms)),
    flush: () => new Promise((resolve) => setImmediate(resolve))
  }
}

const textOf = (r: ToolResult | undefined) => r?.content.map((c) => (c.type === "text" ? c.text : "")).join("")

describe("the deadline of a background tool call", () => {
  it("is 30 s, longer than grep's own limit (grep stops itself first, with its own advice)", () => {
    expect(TOOL_DEADLINE_MS).toBe(30_000)
    expect(GREP_TIMEOUT_MS).toBeLessThan(TOOL_DEADLINE_MS)
  })

  for (const name of ["read", "find", "grep", "write", "edit"] as const) {
    it(`${name}: still running 1 ms before the deadline; at it, stopped with its signal aborted and an error result`, async () => {
      const h = await harness()
      const c = h.call(name)
      await h.timed()
      await h.adjust(TOOL_DEADLINE_MS - 1)
      await h.flush()
      expect(c.settled()).toBeUndefined()
      expect(h.signal()!.aborted).toBe(false)
      await h.adjust(1)
      const result = await c.promise
      expect(result.isError).toBe(true)
      expect(textOf(result)).toBe(deadlineMessage(name))
      expect(textOf(result)).toContain(`${name} took longer than 30 s and was stopped`)
      expect(h.signal()!.aborted).toBe(true)
      // What the body returns after the deadline is ignored.
      h.finish(textResult("late"))
      await h.flush()
      expect(textOf(await c.promise)).toBe(deadlineMessage(name))
    })
  }

  it("a call that ends 1 ms before the deadline keeps its result; its signal fires only once it is over", async () => {
    const h = await harness()
    const c = h.call("read")
    await h.timed()
    await h.adjust(TOOL_DEADLINE_MS - 1)
    await h.flush()
    expect(h.signal()!.aborted).toBe(false)
    h.finish(textResult("file text"))
    const result = await c.promise
    expect(result.isError).not.toBe(true)
    expect(textOf(result)).toBe("file text")
    // Once the call is over its signal fires, so nothing the body left listening on it lingers.
    expect(h.signal()!.aborted).toBe(true)
  })

  it("a call past the deadline (by 1 ms) is already stopped", async () => {
    const h = await harness()
    const c = h.call("grep")
    await h.timed()
    await h.adjust(TOOL_DEADLINE_MS + 1)
    expect(textOf(await c.promise)).toBe(deadlineMessage("grep"))
  })

  it("the caller's abort reaches the body's signal at once", async () => {
    const h = await harness()
    const caller = new AbortController()
    const c = h.call("read", caller.signal)
    await h.timed()
    caller.abort()
    expect(h.signal()!.aborted).toBe(true)
    h.finish(textResult("stopped"))
    expect(textOf(await c.promise)).toBe("stopped")
  })

  it("bash is not timed by the gate (its own timeout applies)", async () => {
    const h = await harness()
    const c = h.call("bash")
    await h.flush()
    await h.adjust(10 * TOOL_DEADLINE_MS)
    await h.flush()
    expect(c.settled()).toBeUndefined()
    expect(await h.hasSleeps()).toBe(false)
    h.finish(textResult("listing"))
    expect(textOf(await c.promise)).toBe("listing")
  })
})
