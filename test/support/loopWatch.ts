/**
 * The event-loop watch (a setup file, on when PM_TEST_LOOP_REPORT names a folder): vitest's worker answers its main
 * process over an RPC channel that gives up after 60 s, so a test file that blocks its event loop for that long fails
 * the run with "Timeout calling onTaskUpdate" even when every test passes. This records, per file, the longest stretch
 * the loop was blocked, the test that was running when it was, and the file's wall time, one JSON line each.
 * `node scripts/loopReport.mjs FOLDER` prints the worst.
 */
import { appendFileSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeEach, expect } from "vitest"

const folder = process.env["PM_TEST_LOOP_REPORT"]
if (folder !== undefined && folder !== "") {
  mkdirSync(folder, { recursive: true })
  const started = performance.now()
  let last = performance.now()
  let worst = 0
  let worstTest = ""
  let current = "(collection)"
  // A timer every 20 ms: the gap between two ticks beyond 20 ms is time the loop could not run.
  const tick = setInterval(() => {
    const now = performance.now()
    const blocked = now - last - 20
    if (blocked > worst) {
      worst = blocked
      worstTest = current
    }
    last = now
  }, 20)
  tick.unref()
  beforeEach(() => {
    current = expect.getState().currentTestName ?? "(unnamed)"
  })
  afterAll(() => {
    clearInterval(tick)
    const file = expect.getState().testPath ?? "(unknown)"
    appendFileSync(
      join(folder, `${process.pid}.jsonl`),
      JSON.stringify({ file, wallMs: Math.round(performance.now() - started), worstBlockMs: Math.round(worst), worstTest }) + "\n"
    )
  })
}
