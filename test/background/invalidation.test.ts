/**
 * In the real Pi host: a running extraction stops when trust is revoked, memory is turned off or the session
 * reloads; its pending tool call never changes memory and the cursor stays. And on exit the host waits for it.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { latestRuns, parseRunHistory } from "../../src/background/runHistory.ts"
import { afterEach, describe, expect, it } from "vitest"
import { call, type Harness, type Recorded, say, startHarness, taskTurn, textOf } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

/** A promise and its resolver. */
const gate = <A = void>() => {
  let open!: (a: A) => void
  const promise = new Promise<A>((resolve) => (open = resolve))
  return { promise, open }
}

const cursors = (x: Harness) => x.branch().filter((e) => e.type === "custom" && e.customType === "pm-extract-cursor")

describe("invalidation during a running extraction", () => {
  it("revoked trust: the next tool call fails, nothing is written, the task stops and the cursor stays", async () => {
    h = await startHarness()
    const target = join(h.memoryDir, "secret.md")
    h.background = (r) => {
      if (taskTurn(r) === 0) {
        h!.trusted = false
        return call("write", { path: target, content: "---\nname: s\ndescription: s\nmetadata:\n  type: user\n---\nx\n" })
      }
      return say("should never be asked")
    }
    await h.prompt("please remember that deploys happen on Fridays")
    await h.prompt("/memory extract")
    expect(existsSync(target)).toBe(false)
    expect(h.ofKind("background")).toHaveLength(1)
    expect(cursors(h)).toEqual([])
    h.trusted = true
    await h.prompt("/memory status")
    expect(h.notifications.at(-1)!.message).toMatch(/Last extraction: .* turn: stopped: .*no longer trusted/)
  })

  it("/memory off: the model call in flight is abandoned at once and its answer never runs", async () => {
    h = await startHarness()
    const target = join(h.memoryDir, "late.md")
    const asked = gate()
    const answer = gate()
    h.background = async () => {
      asked.open()
      await answer.promise
      return call("write", { path: target, content: "x" })
    }
    await h.prompt("please remember that deploys happen on Fridays")
    await asked.promise
    await h.prompt("/memory off")
    answer.open()
    await h.prompt("/memory status")
    expect(existsSync(target)).toBe(false)
    expect(cursors(h)).toEqual([])
    expect(h.ofKind("background")).toHaveLength(1)
    const runs = latestRuns(parseRunHistory(readFileSync(join(h.memoryDir, "..", "background-runs.json"), "utf8")))
    expect(runs.extract).toMatchObject({ outcome: "stopped", detail: "interrupted" })
  })

  it("reload: the task stops at once, and the new instance extracts the same messages again (cursor stayed)", async () => {
    h = await startHarness()
    const target = join(h.memoryDir, "late.md")
    const asked = gate()
    const answer = gate()
    let tasks = 0
    h.background = async (r) => {
      if (taskTurn(r) > 0) return say("Nothing to save.")
      if (++tasks > 1) return say("Nothing to save.")
      asked.open()
      await answer.promise
      return call("write", { path: target, content: "x" })
    }
    await h.prompt("please remember that deploys happen on Fridays")
    await asked.promise
    await h.session.reload()
    answer.open()
    await h.prompt("/memory extract")
    expect(existsSync(target)).toBe(false)
    const background = h.ofKind("background")
    expect(background).toHaveLength(2)
    // The retry covers the same user message: the stopped run did not advance the cursor. A fork carries the whole
    // conversation, so what counts is the window the task is told to study (its last N messages), not the request.
    const said = (m: any) => m.role === "user" && textOf(m) === "please remember that deploys happen on Fridays"
    expect(studied(background[0]!).some(said)).toBe(true)
    expect(studied(background[1]!).some(said)).toBe(true)
    expect(cursors(h)).toHaveLength(1)
  })
})

/** The messages a background task is told to study: the last N before its instructions ("the last N messages above"). */
const studied = (r: Recorded): Array<any> => {
  const messages = r.messages.filter((m: any) => m.role !== "system")
  const n = Number(/the last (\d+) messages above/.exec(textOf(messages.at(-1)))?.[1] ?? 0)
  return n > 0 ? messages.slice(0, -1).slice(-n) : []
}

describe("exit", () => {
  it("the host's shutdown waits for the running extraction, so the settled turn is extracted before exit", async () => {
    h = await startHarness()
    const target = join(h.memoryDir, "exit.md")
    const asked = gate()
    const answer = gate()
    h.background = async (r) => {
      if (taskTurn(r) > 0) return say("Saved.")
      asked.open()
      await answer.promise
      return call("write", { path: target, content: "---\nname: Exit\ndescription: written during shutdown\nmetadata:\n  type: project\n---\nx\n" })
    }
    await h.prompt("please remember that deploys happen on Fridays")
    await asked.promise
    const disposed = h.runtime.dispose()
    answer.open()
    await disposed
    expect(readFileSync(target, "utf8")).toContain("written during shutdown")
    const x = h
    h = undefined
    await x.dispose().catch(() => undefined)
  })
})

describe("compaction", () => {
  it("waits for the running extraction, then extracts the rest before the conversation is compacted", async () => {
    h = await startHarness()
    const asked = gate()
    const answer = gate()
    const order: Array<string> = []
    let tasks = 0
    h.background = async (r) => {
      if (taskTurn(r) > 0) return say("Nothing to save.")
      const n = ++tasks
      order.push(`extraction ${n}`)
      if (n === 1) {
        asked.open()
        await answer.promise
      }
      return say("Nothing to save.")
    }
    await h.prompt("please remember that deploys happen on Fridays")
    await asked.promise
    // A second turn settles while the first extraction still runs.
    await h.prompt("and the release train leaves on Mondays")
    const compacting = h.session.compact().then(
      () => order.push("compacted"),
      (e: Error) => order.push(`compaction failed: ${e.message}`)
    )
    answer.open()
    await compacting
    expect(order[0]).toBe("extraction 1")
    expect(order[1]).toBe("extraction 2")
    expect(order.at(-1)).toBe("compacted")
    const second = h.ofKind("background").find((r) => taskTurn(r) === 0 && r.messages.some((m: any) => JSON.stringify(m.content).includes("release train")))
    expect(second).toBeDefined()
    const runs = latestRuns(parseRunHistory(readFileSync(join(h.memoryDir, "..", "background-runs.json"), "utf8")))
    expect(runs.extract).toMatchObject({ trigger: "compaction", outcome: "nothing", turns: 1 })
  })
})
