/** The run history's rules (pure): what is kept, how the first file format reads, and when a failure is told. */
import { describe, expect, it } from "vitest"
import { reasonOf } from "../../layers/background/runRecords.ts"
import { configuredFailure, failureNotice, type FailureState, working } from "../../src/background/failureNotice.ts"
import { addRun, latestRuns, mergeRunHistories, parseRunHistory, RUN_HISTORY_PER_KIND, serializeRunHistory } from "../../src/background/runHistory.ts"
import { earlierRuns, formatHistoryLine, formatRun, type RunRecord, unsavedDetail } from "../../src/background/runs.ts"
import { zeroUsage } from "../../src/model/usage.ts"

const run = (kind: RunRecord["kind"], at: number, outcome: RunRecord["outcome"] = "nothing", extra: Partial<RunRecord> = {}): RunRecord => ({
  kind,
  at,
  trigger: "turn",
  outcome,
  detail: outcome === "failed" ? "model error: 500 Internal Server Error" : "read this conversation",
  filesChanged: [],
  turns: 1,
  usage: zeroUsage,
  ...extra
})

describe("the run history", () => {
  it.each([RUN_HISTORY_PER_KIND - 1, RUN_HISTORY_PER_KIND, RUN_HISTORY_PER_KIND + 1, 3 * RUN_HISTORY_PER_KIND])("keeps the last %i runs of a kind up to the limit, each kind on its own", (n) => {
    let history = addRun([], run("dream", 0))
    for (let i = 1; i <= n; i++) history = addRun(history, run("extract", i))
    const extracts = history.filter((r) => r.kind === "extract")
    expect(RUN_HISTORY_PER_KIND).toBe(10)
    expect(extracts.map((r) => r.at)).toEqual(Array.from({ length: Math.min(n, 10) }, (_, i) => n - Math.min(n, 10) + i + 1))
    expect(history.filter((r) => r.kind === "dream")).toHaveLength(1)
    expect(parseRunHistory(serializeRunHistory(history))).toEqual(history)
    expect(latestRuns(history)).toEqual({ extract: run("extract", n), dream: run("dream", 0) })
  })

  it("reads the first format (one record per kind): a ran with an error answer was a failure", () => {
    const v1 = JSON.stringify({
      extract: { ...run("extract", 5), outcome: "ran", detail: "model error: overloaded" },
      dream: { ...run("dream", 4), outcome: "ran", detail: "done", filesChanged: ["a.md"] }
    })
    expect(parseRunHistory(v1).map((r) => [r.kind, r.outcome])).toEqual([["dream", "saved"], ["extract", "failed"]])
    expect(parseRunHistory("not json")).toEqual([])
    expect(parseRunHistory(JSON.stringify({ version: 2, runs: [{ kind: "extract" }, run("extract", 1)] }))).toEqual([run("extract", 1)])
  })

  it("merges what another session wrote meanwhile: every run once, oldest first", () => {
    const mine = [run("extract", 1), run("extract", 3)]
    const theirs = [run("extract", 1), run("dream", 2)]
    expect(mergeRunHistories(theirs, mine).map((r) => r.at)).toEqual([1, 2, 3])
  })

  it("says what happened: saved files, nothing, a failure with its reason, and changes that could not be made", () => {
    expect(formatRun("extract", run("extract", 0, "saved", { filesChanged: ["a.md", "MEMORY.md"] }))).toContain("saved 2 files (a.md, MEMORY.md): read this conversation; 1 turn")
    expect(formatRun("extract", run("extract", 0, "failed"))).toContain("turn: failed: model error: 500 Internal Server Error")
    expect(formatHistoryLine(run("dream", 0, "failed", { unsaved: [{ file: "x.md", reason: "Refused: x.md is a topic file" }] })))
      .toMatch(/^ {2}1970-01-01T00:00:00\.000Z dream +turn +failed: model error: 500 Internal Server Error; could not save x\.md \(Refused: x\.md is a topic file\)$/)
  })

  it("a failure's reason is never empty: the message, else the reason field, else the tag", () => {
    expect(reasonOf({ message: "", reason: "cannot set up the task's tools: boom", _tag: "ExtractionFailed" })).toBe("cannot set up the task's tools: boom")
    expect(reasonOf({ message: "model x is not known" })).toBe("model x is not known")
    expect(reasonOf({ message: "", _tag: "LockLost" })).toBe("LockLost")
  })
})

describe("when a failure is told", () => {
  const feed = (state: FailureState, records: ReadonlyArray<RunRecord>) => {
    const notices: Array<string> = []
    for (const r of records) {
      const next = failureNotice(state, r)
      state = next.state
      if (next.notice !== undefined) notices.push(`${next.notice.level}: ${next.notice.text}`)
    }
    return notices
  }

  it("once when it starts, not for each failing turn after, once when it works again; skips change nothing", () => {
    const notices = feed(working, [
      run("extract", 1),
      run("extract", 2, "failed"),
      run("extract", 3, "failed"),
      run("extract", 4, "skipped"),
      run("extract", 5, "busy"),
      run("extract", 6, "stopped"),
      run("extract", 7, "failed"),
      run("extract", 8, "saved", { filesChanged: ["a.md"] }),
      run("extract", 9, "failed")
    ])
    expect(notices).toEqual([
      "warning: Project memory: the memory extraction failed: model error: 500 Internal Server Error. Not repeated while it keeps failing; /memory status lists the recent runs and why.",
      "info: Project memory: the memory extraction works again (3 failed runs since 1970-01-01T00:00:00.002Z).",
      "warning: Project memory: the memory extraction failed: model error: 500 Internal Server Error. Not repeated while it keeps failing; /memory status lists the recent runs and why."
    ])
  })

  it("a reason that ends in a full stop gets no second one", () => {
    expect(feed(working, [run("extract", 1, "failed", { detail: "no space left on the device." })])).toEqual([
      "warning: Project memory: the memory extraction failed: no space left on the device. Not repeated while it keeps failing; /memory status lists the recent runs and why."
    ])
  })

  it("a run that saved something but could not make another change counts as failing; a configuration problem told at start is not told again", () => {
    expect(feed(working, [run("dream", 1, "saved", { filesChanged: ["a.md"], unsaved: [{ file: "b.md", reason: "Refused: too big" }] })])).toEqual([
      "warning: Project memory: the memory dream saved a.md but could not save b.md (the model asked for a change that could not be made; the next dream tries again). " +
        "Not repeated while it keeps failing; /memory status lists the recent runs and why."
    ])
    expect(feed(configuredFailure(0), [run("extract", 1, "failed"), run("extract", 2, "failed")])).toEqual([])
  })

  it("is written for the person: the files by their names in memory, never the model's instructions or the memory directory's path", () => {
    const dir = "/home/u/.pi/agent/project-memory/projects/-repo/memory"
    const reason = `write failed: ${dir}/deploys.md already exists and was not read in this task. Read it first (the whole file, or a page with offset and limit; a read cut…`
    const refused = run("extract", 1, "failed", { detail: unsavedDetail(2), unsaved: [{ file: "deploys.md", reason }, { file: "MEMORY.md", reason }] })
    expect(failureNotice(working, refused, [dir]).notice?.text).toBe(
      "Project memory: the memory extraction could not save deploys.md and MEMORY.md (the model asked for changes that could not be made; the next extraction tries again). " +
        "Not repeated while it keeps failing; /memory status lists the recent runs and why."
    )
    // A failure of the system names the file by its name in memory too; a failure and unsaved changes are both told.
    const disk = run("extract", 1, "failed", { detail: `1 write failed, so memory was not saved: Could not write ${dir}/a.md: no space left on the device. The file is unchanged.`, unsaved: [{ file: "b.md", reason }] })
    expect(failureNotice(working, disk, [`${dir}/`]).notice!.text).toBe(
      "Project memory: the memory extraction failed: 1 write failed, so memory was not saved: Could not write a.md: no space left on the device. The file is unchanged, " +
        "and could not save b.md (the model asked for a change that could not be made; the next extraction tries again). Not repeated while it keeps failing; /memory status lists the recent runs and why."
    )
  })
})

describe("the status's runs", () => {
  it("a failure that is only changes left unsaved is told once, with each file and why", () => {
    const r = run("extract", 0, "failed", { detail: unsavedDetail(1), unsaved: [{ file: "x.md", reason: "Refused: x.md is a topic file" }] })
    expect(formatHistoryLine(r)).toMatch(/turn +failed: could not save x\.md \(Refused: x\.md is a topic file\)$/)
    // Records written before said it in other words.
    expect(formatHistoryLine({ ...r, detail: "1 change(s) could not be made" })).toMatch(/turn +failed: could not save x\.md \(Refused: x\.md is a topic file\)$/)
  })

  it("the list leaves out the newest run of each kind, shown in full above it", () => {
    const history = [run("extract", 1, "failed"), run("dream", 2), run("extract", 3, "failed"), run("extract", 4)]
    expect(earlierRuns(history, latestRuns(history)).map((r) => r.at)).toEqual([1, 3])
    // Copies, as another read of the file gives them, are recognised too.
    expect(earlierRuns(history.map((r) => ({ ...r })), latestRuns(history)).map((r) => r.at)).toEqual([1, 3])
  })
})
