/**
 * `pm extract` and `pm status` about the queue, through `dist/pm.js`: jobs that cannot run here now (memory switched
 * off for the project) stay queued, `pm status` says why they wait, `pm doctor` lists it, and `pm extract` says so and
 * exits 1. The report of a drain in sentences and its exit code, for every way a drain can end; and the queue's line
 * of `/memory status`.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { extractReport } from "../../cli/extract.ts"
import { queueLine } from "../../extension/background.ts"
import type { QueueEntry } from "../../layers/background/queueStore.ts"
import { jobFileName, makeJob, type QueuedJob } from "../../src/background/queue.ts"
import type { RunRecord } from "../../src/background/runs.ts"
import { zeroUsage } from "../../src/model/usage.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { gitRepo, tempAgent } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

const job = (session: string): QueuedJob => {
  const made = makeJob({ session, cwd: "/p", queuedAt: 1_000, reason: "the session ended first", model: null, cursor: undefined, branch: [] })
  if (made._tag !== "Job") throw new Error("no job")
  return made.job
}
const entry = (session: string): QueueEntry => ({ name: `${session}.json`, path: `/q/${session}.json`, job: job(session) })
const record = (outcome: RunRecord["outcome"], detail: string, files: ReadonlyArray<string> = []): RunRecord =>
  ({ kind: "extract", at: 0, trigger: "queue", outcome, detail, filesChanged: files, turns: 1, usage: zeroUsage })

describe("pm extract's report", () => {
  it("every job ran and left the queue: what each did, and exit 0; nothing queued: one sentence, exit 0", () => {
    const done = extractReport({
      _tag: "Drained",
      runs: [{ entry: entry("a"), record: record("saved", "independent request", ["a.md"]), removed: true }, { entry: entry("b"), record: record("nothing", "independent request"), removed: true }],
      left: 0,
      damaged: []
    }, "/p")
    expect(done).toEqual({
      code: 0,
      lines: ["Ran 2 queued extractions for /p, oldest first:", "- saved 1 file (a.md): independent request", "- nothing to save: independent request", "The queue is empty."]
    })
    expect(extractReport({ _tag: "Drained", runs: [], left: 0, damaged: [] }, "/p")).toEqual({ code: 0, lines: ["Nothing is queued for /p."] })
  })

  it("a failed run, a job that stays, a drain that stopped, a damaged record or another drainer: exit 1, each said", () => {
    const failed = extractReport({ _tag: "Drained", runs: [{ entry: entry("a"), record: record("failed", "model error: 500"), removed: true }], left: 0, damaged: [] }, "/p")
    expect(failed.code).toBe(1)
    expect(failed.lines).toContain("- failed: model error: 500")
    const stays = extractReport({ _tag: "Drained", runs: [{ entry: entry("a"), record: record("busy", "x"), removed: false }], left: 1, damaged: [] }, "/p")
    expect(stays).toEqual({
      code: 1,
      lines: ["Ran 1 queued extraction for /p, oldest first:", "- skipped: another session was extracting; it stays queued", "1 extraction stays queued for the next interactive session of this project or `pm extract`."]
    })
    const stopped = extractReport({ _tag: "Drained", runs: [], left: 2, damaged: [], stoppedBecause: "project memory was turned off" }, "/p")
    expect(stopped).toEqual({ code: 1, lines: ["The queue was not finished: project memory was turned off.", "2 extractions stay queued for the next interactive session of this project or `pm extract`."] })
    const damaged = extractReport({ _tag: "Drained", runs: [], left: 0, damaged: [{ name: "x.json", reason: "it is not JSON", movedTo: "/q/damaged/x.json" }] }, "/p")
    expect(damaged).toEqual({ code: 1, lines: ["A queue record that is not a job (x.json: it is not JSON) was set aside as /q/damaged/x.json; it is not run."] })
    expect(extractReport({ _tag: "Busy", holder: "a pi session, pid 7" }, "/p").code).toBe(1)
    expect(extractReport({ _tag: "NotNow", reason: "it is off", queue: { count: 0, oldestAt: null, damaged: 0 } }, "/p")).toEqual({
      code: 0,
      lines: ["Nothing is queued for /p, and nothing could run now: it is off."]
    })
  })
})

describe("/memory status's queue line", () => {
  it("how many wait and for how long; records set aside", () => {
    expect(queueLine({ count: 0, oldestAt: null, damaged: 0 }, 0)).toBe("Queued:           no extraction waits")
    expect(queueLine({ count: 2, oldestAt: 0, damaged: 1 }, 3 * 3_600_000)).toBe(
      "Queued:           2 extractions handed over by ended sessions, the oldest for 3 h; the next interactive session of this project runs them, pm extract now; 1 unreadable record was set aside in the queue's damaged/ folder"
    )
  })
})

describe("queued extractions that cannot run here now", () => {
  it("memory switched off for the project: pm status says why they wait, pm doctor lists it, pm extract leaves them and exits 1", async () => {
    const { agentDir, home } = tempAgent()
    const repo = gitRepo()
    const pm = (...args: ReadonlyArray<string>) => runPm([...args, "--cwd", repo], { agentDir, home })
    const project = JSON.parse((await pm("project", "--json")).stdout)
    const queue = join(project.storageRoot, "memory-roots", project.memoryRootHash, "queue")
    mkdirSync(queue, { recursive: true })
    const j = makeJob({ session: "s", cwd: repo, queuedAt: Date.now() - 7_200_000, reason: "test", model: null, cursor: undefined, branch: [] })
    if (j._tag !== "Job") throw new Error("no job")
    writeFileSync(join(queue, jobFileName(j.job, "aa")), j.text)
    expect((await pm("off", "--project")).code).toBe(0)
    const status = await pm("status")
    expect(status.stdout).toMatch(
      /^Queued: {5}1 extraction handed over by ended sessions, the oldest queued 2h ago; they wait: project memory is switched off for this project \(\/memory on --project\)$/m
    )
    const doctor = await pm("doctor")
    expect(doctor.code).toBe(1)
    expect(doctor.stdout).toContain("queue-waiting: 1 queued extraction cannot run: project memory is switched off for this project (/memory on --project).")
    const extract = await pm("extract")
    expect(extract.code, extract.stderr).toBe(1)
    expect(extract.stdout.trim()).toBe(
      `1 extraction waits in ${repo}'s queue, but none can run now: project memory is switched off for this project (/memory on --project). It stays queued.`
    )
  })
})
