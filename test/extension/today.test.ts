/**
 * Today's date for the main agent, in the real Pi host with the extension on Effect's TestClock: the user's local
 * date (the process's time zone, here set to Auckland so that it differs from UTC), in a system-prompt section of its
 * own that stays byte for byte within a day and changes once, as one patch after the cached prefix, at local midnight.
 */
process.env.TZ = "Pacific/Auckland"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { memoryRulesPrompt } from "../../src/session/memoryRules.ts"
import { makeTestClock, startHarness, topic, type Harness } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

/** 20:00 UTC on Thursday 3 December 2026: 09:00 on Friday 4 December in Auckland (UTC+13 in summer). */
const T0 = Date.parse("2026-12-03T20:00:00Z")
/** Local midnight after T0: 00:00 on Saturday 5 December in Auckland. */
const MIDNIGHT = Date.parse("2026-12-04T11:00:00Z")
const INDEX = "- [Release process](release.md) - tagging and publishing\n"

describe("today's date in the main agent's system prompt", () => {
  it("is the local date, unchanged through the day, and changes once at local midnight as a patch after the prefix", async () => {
    const clock = await makeTestClock()
    await Effect.runPromise(clock.clock.setTime(T0))
    h = await startHarness({ clock: clock.clock, memory: { "MEMORY.md": INDEX, "release.md": topic("Release process", "How releases are tagged") } })
    await h.prompt("first question here")
    // A millisecond before local midnight: still Friday.
    await Effect.runPromise(clock.clock.setTime(MIDNIGHT - 1))
    await h.prompt("second question here")
    const [first, second] = h.mainRequests()
    expect(first!.system).toContain("<auto_memory_date>\nToday is Friday 2026-12-04 (the user's local date).\n</auto_memory_date>")
    // After the rules and the index, which stay as they were.
    expect(first!.system.indexOf("<auto_memory_date>")).toBeGreaterThan(first!.system.indexOf(`<auto_memory>\n${memoryRulesPrompt(h.memoryDir)}`))
    expect(first!.system.indexOf("<auto_memory_date>")).toBeGreaterThan(first!.system.indexOf("<auto_memory_index>"))
    expect(second!.system).toBe(first!.system)
    expect(second!.systemPatches).toHaveLength(0)
    // At local midnight: Saturday, once.
    await Effect.runPromise(clock.clock.setTime(MIDNIGHT))
    await h.prompt("third question here")
    await Effect.runPromise(clock.clock.setTime(MIDNIGHT + 23 * 3_600_000))
    await h.prompt("fourth question here")
    const [, , third, fourth] = h.mainRequests()
    expect(h.mainRequests()).toHaveLength(4)
    expect(third!.leadingSystem).toBe(first!.leadingSystem)
    expect(third!.systemPatches).toHaveLength(1)
    expect(JSON.stringify(third!.systemPatches[0])).toContain("Today is Saturday 2026-12-05 (the user's local date).")
    expect(third!.system).toBe(first!.system.replace("Friday 2026-12-04", "Saturday 2026-12-05"))
    // The rest of that day: nothing new.
    expect(fourth!.systemPatches).toHaveLength(1)
    expect(fourth!.system).toBe(third!.system)
  })

  it("/memory context shows the date section as it is sent", async () => {
    const clock = await makeTestClock()
    await Effect.runPromise(clock.clock.setTime(T0))
    h = await startHarness({ clock: clock.clock })
    await h.prompt("first question here")
    const before = h.notifications.length
    await h.prompt("/memory context")
    const reply = h.notifications.slice(before).map((n) => n.message).join("\n")
    const section = "<auto_memory_date>\nToday is Friday 2026-12-04 (the user's local date).\n</auto_memory_date>"
    expect(reply).toContain(`auto_memory_date (system prompt): ${section.length} characters`)
    expect(reply).toContain(section)
    expect(h.mainRequests()[0]!.system).toContain(section)
  })
})
