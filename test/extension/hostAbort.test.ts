/**
 * What the real Pi 1.6 host offers to shorten the recall wait on Esc: nothing. `before_agent_start` runs before the
 * agent's run exists, so `ctx.signal` is undefined there, and an abort requested meanwhile (`session.abort()`, what
 * Esc calls) fires no extension event and no signal until the run starts after the handlers return; Pi then
 * aborts the run at `agent_start`. The wait is bounded by its own 2 s timer. If a later Pi gives the handler a
 * signal, this test fails and the wait should listen to it.
 */
import { afterEach, describe, expect, it } from "vitest"
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"
import { startHarness, type Harness } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

describe("Pi 1.6 host: abort during before_agent_start", () => {
  it("gives the handler no signal, and an abort fires no event until the run starts", async () => {
    const seen: Array<string> = []
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let entered!: () => void
    const inHandler = new Promise<void>((r) => (entered = r))
    const probe = (pi: ExtensionAPI) => {
      for (const name of ["agent_start", "agent_end", "agent_settled", "turn_start", "message_start"] as const) {
        pi.on(name as any, () => void seen.push(name))
      }
      pi.on("before_agent_start", async (_event, ctx) => {
        seen.push(`before_agent_start signal=${ctx.signal === undefined ? "none" : "set"}`)
        entered()
        await gate
        seen.push(`after abort signal=${ctx.signal === undefined ? "none" : ctx.signal.aborted ? "aborted" : "set"}`)
        return undefined
      })
    }
    h = await startHarness({ extension: false, factories: [probe] })
    const run = h.prompt("a request that is aborted while it starts")
    await inHandler
    const aborting = h.session.abort() as Promise<void>
    // The abort is requested; whatever it fires synchronously or in the next turns of the event loop is in `seen`.
    await new Promise<void>((r) => setImmediate(r))
    const whileWaiting = [...seen]
    release()
    await run
    await aborting
    expect(whileWaiting).toEqual(["before_agent_start signal=none"])
    expect(seen[1]).toBe("after abort signal=none")
    // The run starts and is aborted at once: no request reaches the model.
    expect(seen).toContain("agent_settled")
    expect(h.mainRequests()).toHaveLength(0)
  })
})
