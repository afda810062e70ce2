/**
 * kill -9 during the undo of a published task, in a real child
 * process that SIGKILLs itself right before a chosen file-system operation; this file takes every fourth point
 * (part 2 of 4). After each kill: every file holds its old or new bytes, the journal parses, and an undo in
 * another process brings every file back exactly (finishing what the killed undo began).
 */
import { beforeAll, describe, expect, it } from "vitest"
import { bundleWorker, runTrials } from "./crashSupport.ts"

let worker = ""
beforeAll(async () => {
  worker = await bundleWorker()
})

describe("kill -9 at every point of undo (part 2 of 4)", () => {
  it("files old or new, journal parseable, undo exact", async () => {
    const counts = await runTrials(worker, "undo", 2, 4)
    expect(counts.trials).toBeGreaterThan(20)
    expect(counts.nothingToUndo).toBeLessThan(counts.trials)
  })
})
