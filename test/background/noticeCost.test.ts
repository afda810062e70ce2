import { readFileSync } from "node:fs"
/**
 * What change notices cost the conversation over a session: six turns, each followed by an extraction that writes a
 * topic and adds its line to MEMORY.md (two changes a task). The sixth request carries every notice so far; their
 * characters are measured against the user's own text (the figures are in docs/background.md).
 */
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { call, calls, type Harness, say, startHarness, taskTurn, textOf, topic } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const PROMPTS = [
  "please remember that deploys happen on Fridays",
  "we use pnpm for every install in this repo",
  "the staging database is reset every Monday",
  "code review needs two approvals before merge",
  "our API tokens rotate on the first of the month",
  "what do you remember about deploys and reviews"
]

describe("the cost of change notices over six turns", () => {
  it("one notice per task, naming its files: well under the user's own text", async () => {
    h = await startHarness({ memory: { "MEMORY.md": "- [Old](old.md) - an older memory\n", "old.md": topic("Old", "an older memory") } })
    const dir = h.memoryDir
    let n = 0
    h.background = (r) => {
      const turn = taskTurn(r)
      if (turn === 0) return call("read", { path: join(dir, "MEMORY.md") })
      if (turn === 1) {
        n++
        // The read answers with a pointer to the index the fork already holds: the text to edit is the file's.
        const index = readFileSync(join(dir, "MEMORY.md"), "utf8")
        return calls(
          ["write", { path: join(dir, `fact-${n}.md`), content: topic(`Fact ${n}`, `fact number ${n}`) }],
          ["edit", { path: join(dir, "MEMORY.md"), edits: [{ oldText: index, newText: `${index}- [Fact ${n}](fact-${n}.md) - fact ${n}\n` }] }]
        )
      }
      return say("Saved.")
    }
    for (const p of PROMPTS.slice(0, 5)) {
      await h.prompt(p)
      await h.prompt("/memory extract") // the dispatched extraction has ended before the next turn
    }
    await h.prompt(PROMPTS[5]!)
    const last = h.ofKind("main").at(-1)!
    const notices = last.messages.filter((m: any) => m.role === "user" && /background memory|changed by the background/.test(textOf(m)) && textOf(m).startsWith("<system-reminder>"))
    const userText = last.messages.filter((m: any) => m.role === "user" && PROMPTS.includes(textOf(m)))
    const noticeChars = notices.reduce((s: number, m: any) => s + textOf(m).length, 0)
    const userChars = userText.reduce((s: number, m: any) => s + textOf(m).length, 0)
    console.log(`six turns: ${notices.length} notices, ${noticeChars} characters; user text ${userChars} characters`)
    expect(userText).toHaveLength(6)
    expect(notices).toHaveLength(5)
    for (const [i, m] of notices.entries()) expect(textOf(m)).toContain(`fact-${i + 1}.md (written), MEMORY.md (edited)`)
    expect(noticeChars).toBeLessThan(1_000)
  })
})
