/**
 * Today's date for the background tasks, in the real Pi host against the strict HTTP provider with the extension on
 * Effect's TestClock (the process's time zone set to Auckland, so that the local date differs from UTC): the
 * extractor and the dream find it in their own task message, read from the clock when each task starts, while the
 * fork keeps the parent's system message byte for byte and the dream's system prompt never carries a date.
 */
process.env.TZ = "Pacific/Auckland"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { mkdtempSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { type Harness, type Recorded, startHarness, textOf } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

/** 20:00 UTC on Wednesday 3 June 2026: 08:00 on Thursday 4 June in Auckland (UTC+12 in winter). */
const T0 = Date.parse("2026-06-03T20:00:00Z")
const DAY = 86_400_000
const DREAM_MARK = "# Memory consolidation"
const isDream = (r: Recorded) => r.messages.some((m: any) => m.role === "user" && textOf(m).includes(DREAM_MARK))
const taskMessage = (r: Recorded): string => textOf(r.messages.at(-1))
const line = (day: string) => `Today is ${day} (the user's local date): write relative dates ("next Thursday", "last week") as absolute ones.`

describe("today's date in the background tasks' requests", () => {
  it("the extractor and the dream are told the local date in their own message, read when each task starts", async () => {
    const clock = await Effect.runPromise(Effect.provide(TestClock.testClock(), TestContext.TestContext))
    await Effect.runPromise(clock.setTime(T0))
    const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-today-")))
    h = await startHarness({ clock, base, sessionDir: join(base, "sessions") })
    await h.prompt("the release is next Thursday")
    await h.prompt("/memory extract")
    const main = h.ofKind("main")[0]!
    const [extraction] = h.ofKind("background")
    expect(taskMessage(extraction!)).toContain(line("Thursday 2026-06-04"))
    // The fork's prefix is the parent's, byte for byte: the date rides in the task's message only.
    expect(extraction!.leadingSystem).toBe(main.leadingSystem)
    expect(extraction!.leadingSystem).not.toContain("write relative dates")

    await h.prompt("/memory dream")
    const dream = h.ofKind("background").filter(isDream)
    expect(dream.length, h.notifications.map((n) => n.message).join("\n")).toBeGreaterThan(0)
    expect(taskMessage(dream[0]!)).toContain(line("Thursday 2026-06-04"))
    expect(dream[0]!.system).not.toContain("Today is")

    // A day later, the next task reads the clock again.
    await Effect.runPromise(clock.adjust(DAY))
    const before = h.ofKind("background").length
    await h.prompt("and the freeze starts tomorrow")
    await h.prompt("/memory extract")
    const next = h.ofKind("background").slice(before).find((r) => !isDream(r))
    expect(taskMessage(next!)).toContain(line("Friday 2026-06-05"))
  })
})
