/**
 * Change notices in the real Pi host (1.6) against the strict HTTP provider, with sessions saved as `.jsonl` files:
 * a change made while the main agent runs is in the session file at once, adds no main-model turn, and reaches the
 * next request exactly once, after the answer that was being written when it happened.
 */
import { mkdtempSync, readdirSync, readFileSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { call, type Harness, say, startHarness, taskTurn, textOf, topic } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const NOTICE = "Memory files changed by the background extraction"

const deferred = <A = void>() => {
  let resolve!: (a: A) => void
  const promise = new Promise<A>((r) => (resolve = r))
  return { promise, resolve }
}

const sessionFileText = (dir: string): string => readdirSync(dir).map((f) => readFileSync(join(dir, f), "utf8")).join("")

describe("a background change while the main agent runs", () => {
  it("is recorded in the session file at once, adds no main turn, and reaches the next request once", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-notice-")))
    const sessions = join(base, "sessions")
    h = await startHarness({ base, sessionDir: sessions })
    const dir = h.memoryDir
    const secondPromptSent = deferred()
    const written = deferred<string>()
    let writes = 0
    h.background = async (r) => {
      const turn = taskTurn(r)
      if (turn === 0 && writes === 0) {
        writes++
        // The write lands while the main agent is streaming its answer to the second prompt.
        await secondPromptSent.promise
        return call("write", { path: join(dir, "deploys.md"), content: topic("Deploys", "deploys happen on Fridays only") })
      }
      // The write's result is in: what the session file holds now, before anything else happens.
      if (turn === 1) written.resolve(sessionFileText(sessions))
      return say("Nothing more to save.")
    }
    h.main = async (r) => {
      const last = textOf(r.messages.filter((m: any) => m.role === "user").at(-1))
      if (last.includes("second question")) {
        secondPromptSent.resolve()
        await written.promise
      }
      return say("ok")
    }
    await h.prompt("please remember that deploys happen on Fridays")
    const mainBefore = h.ofKind("main").length
    await h.prompt("here is my second question about the weather")
    const onDisk = await written.promise
    // In the file at once: one record, while the second run had not yet answered.
    expect(onDisk.split("\n").filter((l) => l.includes('"customType":"pm-memory-notice"'))).toHaveLength(1)
    expect(onDisk).toContain('"file":"deploys.md"')
    // The second prompt cost one main request: the notice did not steer an extra turn into the run.
    expect(h.ofKind("main").length - mainBefore).toBe(1)
    expect(h.ofKind("main").at(-1)!.messages.some((m: any) => textOf(m).includes(NOTICE))).toBe(false)

    await h.prompt("/memory extract")
    await h.prompt("and a third question about lunch")
    const third = h.ofKind("main").at(-1)!
    const texts = third.messages.map((m: any) => `${m.role}:${textOf(m).slice(0, 60)}`)
    const notices = third.messages.filter((m: any) => textOf(m).includes(NOTICE))
    expect(notices).toHaveLength(1)
    expect(textOf(notices[0])).toContain("deploys.md (written)")
    // After the answer that was being written when the change happened, before the next question.
    const at = third.messages.indexOf(notices[0])
    expect(texts[at - 1]).toBe("assistant:ok")
    expect(texts[at + 1]).toMatch(/^user:and a third question/)
  })
})
