/**
 * A hung provider in the real Pi host (the strict HTTP provider's hang mode), with the extension loaded from source on
 * Effect's TestClock: every background model call has a time limit, and neither `/compact` nor exit waits past 60 s.
 * Time moves only when the test adjusts the clock, once the deadline it moves to is on the clock.
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import type * as TestClockNs from "effect/TestClock"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { latestRuns, parseRunHistory } from "../../src/background/runHistory.ts"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { type Harness, say, startHarness, taskTurn, textOf } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const testClock = async () => {
  const clock = (await Effect.runPromise(Effect.provide(TestClock.testClock(), TestContext.TestContext))) as TestClockNs.TestClock
  const now = () => Effect.runSync(clock.currentTimeMillis)
  return {
    clock,
    now,
    /** Resolves once a sleep ending at `deadline` is on the clock (yielding to the event loop between looks). */
    sleepingUntil: async (deadline: number) => {
      for (let i = 0; i < 100_000; i++) {
        if (Chunk.toReadonlyArray(await Effect.runPromise(clock.sleeps)).includes(deadline)) return
        await new Promise((resolve) => setImmediate(resolve))
      }
      throw new Error(`no sleep until ${deadline} was ever scheduled`)
    },
    adjust: (ms: number) => Effect.runPromise(clock.adjust(ms))
  }
}

const runsOf = (x: Harness): any => latestRuns(parseRunHistory(readFileSync(join(x.memoryDir, "..", "background-runs.json"), "utf8")))
const USER = "please remember that deploys happen on Fridays"

describe("a hung provider", () => {
  it("a background call is aborted after requestTimeoutSeconds; the run fails, the cursor stays, and the next extraction covers the same turn", async () => {
    const t = await testClock()
    h = await startHarness({ clock: t.clock, config: { extractor: { requestTimeoutSeconds: 30 } } })
    let tasks = 0
    h.background = (r) => (taskTurn(r) === 0 && ++tasks === 1 ? { fault: "hang" } : say("Nothing to save."))
    const start = t.now()
    await h.prompt(USER)
    await h.until(() => h!.strict!.openHangs() === 1)
    // `/memory extract` waits for the hung extraction: only its time limit ends it.
    const extracting = h.prompt("/memory extract")
    await t.sleepingUntil(start + 30_000)
    await t.adjust(30_000)
    await extracting
    expect(h.strict!.openHangs()).toBe(0)
    const tasksSent = h.ofKind("background")
    expect(tasksSent).toHaveLength(2)
    for (const r of tasksSent) expect(r.messages.some((m: any) => m.role === "user" && textOf(m) === USER)).toBe(true)
    expect(runsOf(h).extract).toMatchObject({ outcome: "nothing", trigger: "manual" })
  })

  it("/compact waits at most 60 s for an extraction on a hung provider, then stops it and compacts", async () => {
    const t = await testClock()
    // A call limit far beyond the compaction wait: only the wait's own bound can end this.
    h = await startHarness({ clock: t.clock, config: { extractor: { requestTimeoutSeconds: 3_600 } } })
    h.background = () => ({ fault: "hang" })
    await h.prompt(USER)
    await h.prompt("and the release train leaves on Mondays")
    await h.until(() => h!.strict!.openHangs() === 1)
    const start = t.now()
    let settled = false
    const compacting = h.session.compact().then(
      () => "compacted",
      (e: Error) => `compaction failed: ${e.message}`
    ).finally(() => (settled = true))
    await t.sleepingUntil(start + 60_000)
    await t.adjust(59_999)
    // Nothing moved a millisecond before the bound.
    await new Promise((resolve) => setImmediate(resolve))
    expect(settled).toBe(false)
    expect(h.strict!.openHangs()).toBe(1)
    await t.adjust(1)
    const outcome = await compacting
    expect(outcome).toMatch(/^compact/)
    expect(h.strict!.openHangs()).toBe(0)
    expect(runsOf(h).extract).toMatchObject({ outcome: "stopped", detail: "interrupted" })
  })

  it("/compact's own extraction on a hung provider is stopped at the 60 s bound too", async () => {
    const t = await testClock()
    h = await startHarness({ clock: t.clock, config: { extractor: { requestTimeoutSeconds: 3_600 } } })
    h.background = () => ({ fault: "hang" })
    // Untrusted while the turn settles: no extraction runs then, and the cursor stays before the turn.
    h.trusted = false
    await h.prompt(USER)
    await h.prompt("/memory status")
    expect(h.ofKind("background")).toEqual([])
    h.trusted = true
    const start = t.now()
    const compacting = h.session.compact().then(
      () => "compacted",
      (e: Error) => `compaction failed: ${e.message}`
    )
    // The extraction that compaction starts is the one that hangs.
    await h.until(() => h!.strict!.openHangs() === 1)
    await t.sleepingUntil(start + 60_000)
    await t.adjust(60_000)
    expect(await compacting).toMatch(/^compact/)
    expect(h.strict!.openHangs()).toBe(0)
    expect(runsOf(h).extract).toMatchObject({ trigger: "compaction", outcome: "stopped", detail: "interrupted" })
  })

  it("exit waits at most 60 s, then stops the hung extraction", async () => {
    const t = await testClock()
    h = await startHarness({ clock: t.clock, config: { extractor: { requestTimeoutSeconds: 3_600 } } })
    h.background = () => ({ fault: "hang" })
    await h.prompt(USER)
    await h.until(() => h!.strict!.openHangs() === 1)
    const start = t.now()
    const disposed = h.runtime.dispose()
    await t.sleepingUntil(start + 60_000)
    await t.adjust(60_000)
    await disposed
    expect(h.strict!.openHangs()).toBe(0)
    // Stopped at the bound, then handed to the project's queue (the newest record).
    const extracts = parseRunHistory(readFileSync(join(h.memoryDir, "..", "background-runs.json"), "utf8")).filter((r) => r.kind === "extract")
    expect(extracts.slice(-2)).toMatchObject([
      { outcome: "stopped", detail: "interrupted" },
      { outcome: "queued", trigger: "exit", detail: expect.stringContaining("the session ended before its extraction finished (exit waits at most 60 s)") }
    ])
    const x = h
    h = undefined
    await x.dispose().catch(() => undefined)
  })
})
