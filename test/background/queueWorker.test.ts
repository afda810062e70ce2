/**
 * The background worker's rules (src/background/queueWorker.ts): which runs hand off at once, when the worker runs
 * the queue again (a job it has not tried, within QUEUE_WORKER_MAX_MS, at, below and above it), how its log is
 * opened around QUEUE_WORKER_LOG_MAX_BYTES, where the extension finds dist/pm.js, and what the person is told.
 */
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"
import { pmScriptFrom } from "../../extension/queueWorker.ts"
import { deferredNotice } from "../../layers/background/handOff.ts"
import { anotherPass, handsOffAtOnce, queueWorkerOn, workerLogFlag } from "../../src/background/queueWorker.ts"
import { QUEUE_WORKER_LOG_MAX_BYTES, QUEUE_WORKER_MAX_MS } from "../../src/limits.ts"
import { repoRoot } from "../support/pm.ts"

describe("the background worker's rules", () => {
  it("print and json runs hand off at once unless PM_QUEUE_WORKER=0; other modes never", () => {
    expect(["print", "json", "tui", "rpc"].map((m) => handsOffAtOnce(m, {}))).toEqual([true, true, false, false])
    expect(["print", "json"].map((m) => handsOffAtOnce(m, { PM_QUEUE_WORKER: "0" }))).toEqual([false, false])
    expect([queueWorkerOn({ PM_QUEUE_WORKER: "1" }), queueWorkerOn({ PM_QUEUE_WORKER: "" }), queueWorkerOn({})]).toEqual([true, true, true])
  })

  it("another pass only for a job not tried yet, after a pass that was not stopped, below the time bound", () => {
    const base = { stopped: false, startedAt: 1_000, now: 2_000, waiting: ["b.json"], tried: new Set(["a.json"]) }
    expect(anotherPass(base)).toBe(true)
    expect(anotherPass({ ...base, waiting: ["a.json"] })).toBe(false)
    expect(anotherPass({ ...base, waiting: [] })).toBe(false)
    expect(anotherPass({ ...base, stopped: true })).toBe(false)
    expect(anotherPass({ ...base, now: base.startedAt + QUEUE_WORKER_MAX_MS - 1 })).toBe(true)
    expect(anotherPass({ ...base, now: base.startedAt + QUEUE_WORKER_MAX_MS })).toBe(false)
    expect(anotherPass({ ...base, now: base.startedAt + QUEUE_WORKER_MAX_MS + 1 })).toBe(false)
  })

  it("the log is added to up to its bound and started afresh above it", () => {
    expect(workerLogFlag(undefined)).toBe("a")
    expect(workerLogFlag(QUEUE_WORKER_LOG_MAX_BYTES - 1)).toBe("a")
    expect(workerLogFlag(QUEUE_WORKER_LOG_MAX_BYTES)).toBe("a")
    expect(workerLogFlag(QUEUE_WORKER_LOG_MAX_BYTES + 1)).toBe("w")
  })

  it("dist/pm.js is found beside the bundle and from the sources", () => {
    const pm = join(repoRoot, "dist", "pm.js")
    expect(pmScriptFrom(pathToFileURL(join(repoRoot, "dist", "extension-session-X.js")).href)).toBe(pm)
    expect(pmScriptFrom(pathToFileURL(join(repoRoot, "extension", "queueWorker.ts")).href)).toBe(pm)
    expect(pmScriptFrom(pathToFileURL("/nowhere/at/all.js").href)).toBeUndefined()
  })

  it("the notice names the worker when one takes the work, and the next session or pm extract otherwise", () => {
    expect(deferredNotice(2, 0, 1, true)).toBe(
      "Project memory: the extraction of this session's last 2 messages was handed to a background worker (pm extract), which saves what it holds after this run ends (1 extraction queued now)."
    )
    expect(deferredNotice(1, 0, 3)).toBe(
      "Project memory: the extraction of this session's last 1 message was deferred; the next interactive session of this project or `pm extract` completes it (3 extractions queued now)."
    )
  })
})
