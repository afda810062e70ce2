/** 8 processes x 200 compare-and-swap increments on one state.json: exactly 1,600, nothing lost. */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { startWorker, tempDir } from "../locks/processes.ts"

describe("state.json compare-and-swap across processes", () => {
  it("8 processes x 200 increments = 1,600", async () => {
    using dir = tempDir("cas")
    const rootDir = join(dir.path, "memory-roots", "abc")
    const workers = Array.from({ length: 8 }, () => startWorker("cas", { rootDir, iterations: 200 }))
    const codes = await Promise.all(workers.map((w) => w.exited))
    expect(codes, workers.map((w) => w.stderr()).join("\n")).toEqual(Array(8).fill(0))
    const state = JSON.parse(readFileSync(join(rootDir, "state.json"), "utf8"))
    expect(state.counter).toBe(1_600)
    expect(state.version).toBe(1_600)
    expect(readdirSync(rootDir).filter((n) => n.endsWith(".tmp"))).toEqual([])
    expect(existsSync(join(rootDir, "locks", "last-dream-at.lock"))).toBe(false)
    // The work is fixed (1,600 locked writes by 8 processes); how long it takes depends on the machine's load.
  })
})
