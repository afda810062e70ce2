/**
 * A run whose writes were held for review did not fail (src/background/runs.ts, failureNotice.ts): the held files are
 * told apart from the failed ones, a run that only held writes raises no failure notice, and a failed change beside a
 * held one still does, naming only the failed file.
 */
import { describe, expect, it } from "vitest"
import { failureNotice, working } from "../../src/background/failureNotice.ts"
import { failedChanges, heldFiles, type RunRecord } from "../../src/background/runs.ts"
import { heldToolMessage } from "../../src/writes/held.ts"

const held = { file: "bootstrap.md", reason: `write failed: ${heldToolMessage("bootstrap.md", "its words come from a tool result (read README.md), not from the user", "0a1b2c3d")}` }
const failed = { file: "MEMORY.md", reason: "write failed: MEMORY.md was not changed: it would link bootstrap.md, which does not exist." }
const record = (unsaved: NonNullable<RunRecord["unsaved"]>, outcome: RunRecord["outcome"]): RunRecord => ({
  kind: "extract",
  at: 1,
  trigger: "turn",
  outcome,
  detail: "x",
  filesChanged: [],
  turns: 2,
  usage: { requests: 2, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 } as any,
  unsaved
})

describe("held writes in a run's record", () => {
  it("are told apart from failed changes", () => {
    expect(heldFiles([held, failed])).toEqual(["bootstrap.md"])
    expect(failedChanges([held, failed])).toEqual([failed])
  })

  it("a run that only held writes raises no failure notice; a failed change beside one does, naming only that file", () => {
    expect(failureNotice(working, record([held], "nothing")).notice).toBeUndefined()
    const notice = failureNotice(working, record([held, failed], "failed")).notice
    expect(notice?.text).toContain("could not save MEMORY.md (")
    expect(notice?.text).not.toContain("bootstrap.md")
  })
})
