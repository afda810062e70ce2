/** LockService across real processes: mutual exclusion, takeover after SIGKILL, and no robbing of live holders. */
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { startWorker, tempDir } from "./processes.ts"

describe("locks across processes", () => {
  it("10 processes contending for one lock never overlap", async () => {
    using dir = tempDir("contend")
    const log = join(dir.path, "log")
    const iterations = 8
    const workers = Array.from({ length: 10 }, () =>
      startWorker("contend", { locksDir: join(dir.path, "locks"), log, iterations, name: "extract.lock" }))
    const codes = await Promise.all(workers.map((w) => w.exited))
    expect(codes, workers.map((w) => w.stderr()).join("\n")).toEqual(Array(10).fill(0))

    const lines = readFileSync(log, "utf8").trim().split("\n")
    expect(lines).toHaveLength(10 * iterations * 2)
    for (let i = 0; i < lines.length; i += 2) {
      const [begin, end] = [lines[i]!.split(" "), lines[i + 1]!.split(" ")]
      expect(begin[0], `line ${i}: ${lines[i]}`).toBe("B")
      expect(end[0], `line ${i + 1}: ${lines[i + 1]}`).toBe("E")
      expect(end.slice(1)).toEqual(begin.slice(1))
    }
    expect(new Set(lines.map((l) => l.split(" ")[1])).size).toBe(10)
  })

  it("a SIGKILLed holder is taken over by a waiter at once: its pid is gone, whatever the lock's timeout", async () => {
    using dir = tempDir("takeover")
    // An hour's timeout: the waiter can only get the lock by judging the holder, never by waiting out its age.
    const common = { locksDir: join(dir.path, "locks"), name: "dream.lock", timeoutMs: 3_600_000, heartbeatMs: 100 }
    const holder = startWorker("hold", common)
    const holderToken = (await holder.waitFor((l) => l["acquired"] === true))["token"]
    const waiter = startWorker("hold", { ...common, maxWaitMs: 3_600_000, holdMs: 0 })
    await waiter.waitFor((l) => l["trying"] === true) // the waiter is up and polling
    holder.child.kill("SIGKILL")
    expect(await holder.exited).toBe("SIGKILL")
    const acquired = await waiter.waitFor((l) => l["acquired"] === true, 60_000)
    expect(acquired["token"]).not.toBe(holderToken)
    expect(await waiter.exited).toBe(0)
  })

  it("a live holder is never robbed, even when stopped past the timeout", async () => {
    using dir = tempDir("robbed")
    const timeoutMs = 800
    const common = { locksDir: join(dir.path, "locks"), name: "extract.lock", timeoutMs, heartbeatMs: 100 }
    const holder = startWorker("hold", { ...common, holdMs: 1_000 })
    await holder.waitFor((l) => l["acquired"] === true)
    holder.child.kill("SIGSTOP") // no heartbeat from now on: the file ages past its timeout
    try {
      const rival = startWorker("hold", { ...common, maxWaitMs: timeoutMs * 3, holdMs: 0 })
      const outcome = await rival.waitFor((l) => l["busy"] === true || l["acquired"] === true)
      expect(outcome).toMatchObject({ busy: true, holder: { pid: holder.pid } })
      expect(Date.now() - statSync(join(dir.path, "locks", "extract.lock")).mtimeMs).toBeGreaterThan(timeoutMs)
      expect(await rival.exited).toBe(0)
    } finally {
      holder.child.kill("SIGCONT")
    }
    await holder.waitFor((l) => l["released"] === true)
    expect(await holder.exited).toBe(0)
    const next = startWorker("hold", { ...common, holdMs: 0 })
    await next.waitFor((l) => l["acquired"] === true)
    expect(await next.exited).toBe(0)
  })
})
