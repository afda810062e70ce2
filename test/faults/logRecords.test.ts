/**
 * Log records never reach the person. A journal whose state file cannot be read (here a folder where `state.json`
 * should be) makes every journaled change log "journal pruning skipped" as a warning; the change itself succeeds.
 * `pm` (a real child process) and the extension in the real Pi host must not print that record; with `PM_LOG=1` it is
 * printed, which shows the warning really fires in the same setup.
 */
import { mkdirSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import { call, calls, type Harness, say, startHarness, taskTurn, topic } from "../background/harness.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { gitRepo, tempAgent } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

const RECORD = /level=|fiber=#/

/** Replaces the journal's state file of every memory root under `storageRoot` with a folder. */
const breakJournalState = (storageRoot: string): void => {
  const roots = join(storageRoot, "memory-roots")
  for (const root of readdirSync(roots)) {
    const state = join(roots, root, "journal", "state.json")
    rmSync(state, { force: true })
    mkdirSync(state, { recursive: true })
  }
}

describe("pm", () => {
  it("prints no log record when the journal's state cannot be read, and the change succeeds", async () => {
    const agent = tempAgent()
    const repo = gitRepo()
    const pm = (args: Array<string>, env: Record<string, string> = {}) =>
      runPm(args, { cwd: repo, agentDir: agent.agentDir, home: agent.home, env })
    expect((await pm(["remember", "the build runs with make on this project"])).code).toBe(0)
    breakJournalState(agent.storageRoot)

    const quiet = await pm(["remember", "deploys happen on fridays only here"])
    expect(quiet.code).toBe(0)
    expect(quiet.stdout).toContain("Saved")
    expect(quiet.stdout + quiet.stderr).not.toMatch(RECORD)

    const shown = await pm(["remember", "releases are tagged by the release bot"], { PM_LOG: "1" })
    expect(shown.code).toBe(0)
    expect(shown.stdout + shown.stderr).toMatch(/level=WARN .*journal pruning skipped/)
  })
})

describe("the extension in Pi", () => {
  let h: Harness | undefined
  afterEach(async () => {
    vi.restoreAllMocks()
    await h?.dispose()
    h = undefined
    delete process.env["PM_LOG"]
  })

  const extractionWrites = (dir: string, file: string, text: string) => (r: Parameters<NonNullable<Harness["background"]>>[0]) => {
    const turn = taskTurn(r)
    if (turn === 0) return calls(["write", { path: join(dir, file), content: topic(file, text) }])
    if (turn === 1) return call("read", { path: join(dir, "MEMORY.md") })
    return say("Saved.")
  }

  const printed = (spies: ReadonlyArray<{ mock: { calls: Array<Array<unknown>> } }>) =>
    spies.flatMap((s) => s.mock.calls.map((args) => args.map(String).join(" "))).join("\n")

  for (const shown of [false, true]) {
    it(`a background write ${shown ? "prints the record with PM_LOG=1" : "prints no log record"} when the journal's state cannot be read`, async () => {
      if (shown) process.env["PM_LOG"] = "1"
      h = await startHarness()
      const dir = h.memoryDir
      h.background = extractionWrites(dir, "builds.md", "the build runs with make on this project")
      await h.prompt("please remember that the build runs with make")
      await h.prompt("/memory extract")
      breakJournalState(join(h.agentDir, "project-memory"))
      const spies = (["log", "error", "warn"] as const).map((m) => vi.spyOn(console, m).mockImplementation(() => undefined))
      h.background = extractionWrites(dir, "deploys.md", "deploys happen on fridays only")
      await h.prompt("and remember that deploys happen on fridays only")
      await h.prompt("/memory extract")
      expect(readdirSync(dir)).toContain("deploys.md")
      if (shown) expect(printed(spies)).toMatch(/level=WARN .*journal pruning skipped/)
      else expect(printed(spies)).not.toMatch(RECORD)
    })
  }
})
