/**
 * kill -9 during a background task's recording and publishing (update a.md, create c.md, delete b.md), in a real child
 * process that SIGKILLs itself right before a chosen file-system operation; this file takes every fourth point
 * (part 0 of 4). After each kill: every file holds its old or new bytes, the journal parses, and an undo in
 * another process brings every file back exactly (or nothing had changed and there is nothing to undo).
 */
import { beforeAll, describe, expect, it } from "vitest"
import { bundleWorker, runTrials } from "./crashSupport.ts"

let worker = ""
beforeAll(async () => {
  worker = await bundleWorker()
})

describe("kill -9 at every point of record and publish (part 0 of 4)", () => {
  it("files old or new, journal parseable, undo exact", async () => {
    const counts = await runTrials(worker, "task", 0, 4)
    expect(counts.trials).toBeGreaterThan(20)
    // Kills before the first intent leave nothing to undo; later ones leave a task that undo reverses.
    expect(counts.nothingToUndo).toBeGreaterThan(0)
    expect(counts.nothingToUndo).toBeLessThan(counts.trials)
  })
})
