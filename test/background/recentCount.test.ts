/**
 * "the last N messages above": in a fork, N is what the parent's request holds after the cursor, counted as
 * the model sees it. Pi's system entries (the prompt and its patches) are not messages; change notices are.
 * In the real Pi host against the strict provider.
 */
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { call, type Harness, say, startHarness, taskTurn, textOf, TOOLS_HEADING, topic } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const countIn = (r: { messages: ReadonlyArray<any> }): number => {
  const task = r.messages.find((m: any) => m.role === "user" && /the last \d+ messages above/.test(textOf(m)))
  return Number(/the last (\d+) messages above/.exec(textOf(task))![1])
}

describe("the number of recent messages in a fork's task", () => {
  it("counts the user's message and the answer, not Pi's system entries; a change notice after the cursor counts", async () => {
    h = await startHarness()
    const dir = h.memoryDir
    let task = 0
    h.background = (r) => {
      if (taskTurn(r) === 0) task++
      if (task === 1 && taskTurn(r) === 0) return call("write", { path: join(dir, "deploys.md"), content: topic("Deploys", "deploys happen on Fridays") })
      return say("Saved.")
    }
    await h.prompt("please remember that deploys happen on Fridays")
    await h.prompt("/memory extract")
    // Pi keeps its system prompt as a session entry: there is one among the entries after the (empty) cursor.
    expect(h.branch().some((e) => e.type === "message" && e.message.role === "system")).toBe(true)
    const first = h.ofKind("background")[0]!
    expect(countIn(first)).toBe(2)

    await h.prompt("and the staging database resets on Mondays")
    await h.prompt("/memory extract")
    const second = h.ofKind("background").filter((r) => taskTurn(r) === 0).at(-1)!
    expect(countIn(second)).toBe(3)
    // The last 3 messages before the task are the notice, the new question and its answer.
    const before = second.messages.slice(0, second.messages.findIndex((m: any) => m.role === "user" && textOf(m).includes(TOOLS_HEADING)))
    expect(before.slice(-3).map(textOf)).toEqual([
      expect.stringContaining("Memory files changed by the background extraction: deploys.md (written)"),
      "and the staging database resets on Mondays",
      "ok"
    ])
    expect(textOf(before.at(-4))).toBe("ok")
  })
})
