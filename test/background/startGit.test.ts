/**
 * Git at session start, in the real Pi host with the built extension: the entry asks git for the session's folder
 * while the session side loads, and that one query answers the memory side's and the background side's locates
 * (one `git rev-parse` for the whole start). An answer nobody took (memory switched off) is dropped with the start:
 * the first locate after it asks git again. Git runs are counted by a `git` first on PATH that logs each call.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { dropPrefetched, prefetchGitQuery, takePrefetched } from "../../layers/project/gitQuery.ts"
import { ensureBuilt } from "../support/pm.ts"
import { gitRepo, tempDir } from "../support/tmp.ts"
import { type Harness, startHarness } from "./harness.ts"
import { execFileSync } from "node:child_process"

beforeAll(() => ensureBuilt())

const savedPath = process.env["PATH"]
let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
  process.env["PATH"] = savedPath
})

/** A `git` first on PATH that logs the subcommand of each run (after `-c x=y` options), then runs the real one. */
const countingGit = (): { readonly revParses: () => number } => {
  const bin = tempDir("pm-git-bin-")
  const log = join(bin, "runs.log")
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim()
  writeFileSync(
    join(bin, "git"),
    `#!/bin/sh\nfor a in "$@"; do case "$a" in rev-parse) echo rev-parse >> '${log}';; esac; done\nexec '${real}' "$@"\n`,
    { mode: 0o755 }
  )
  process.env["PATH"] = `${bin}:${savedPath}`
  return { revParses: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((l) => l === "rev-parse").length : 0) }
}

describe("git at session start", () => {
  it("one query answers the start: the entry's, taken by the memory side's and the background side's locates", async () => {
    const git = countingGit()
    h = await startHarness()
    expect(git.revParses()).toBe(1)
    // The session is located: memory is active.
    await h.prompt("/memory status")
    expect(h.notifications.map((n) => n.message).join("\n")).toContain(h.memoryDir)
  })

  it("an answer nobody took is dropped with the start: switching memory on later asks git afresh", async () => {
    const git = countingGit()
    h = await startHarness({ config: { enabled: false } })
    // Asked while the session side loaded; memory is off everywhere, so no locate took it.
    expect(git.revParses()).toBe(1)
    await h.prompt("/memory on")
    expect(git.revParses()).toBe(2)
  })
})

describe("a prefetched git query", () => {
  it("is taken once, and is gone once dropped", async () => {
    const repo = gitRepo()
    prefetchGitQuery(repo)
    const taken = takePrefetched(repo)
    expect(await taken).toMatchObject({ toplevel: repo })
    expect(takePrefetched(repo)).toBeUndefined()
    prefetchGitQuery(repo)
    dropPrefetched()
    expect(takePrefetched(repo)).toBeUndefined()
  })
})
