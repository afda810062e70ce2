/**
 * Git at session start, in the real Pi host with the built extension: in a plain checkout both the memory side and
 * the background side locate the project from the file system (layers/project/gitDiscovery.ts), so the start runs no
 * `git rev-parse` at all, and neither does switching memory on later. (Where git must be asked, concurrent locates of
 * one folder share its process: test/readpath/projectLocator.test.ts.) Git runs are counted by a `git` first on PATH
 * that logs each call.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { askGit } from "../../layers/project/gitQuery.ts"
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
  it("a plain checkout's start runs no git: both sides locate it from the file system", async () => {
    const git = countingGit()
    h = await startHarness()
    // The session is located: memory is active.
    await h.prompt("/memory status")
    expect(h.notifications.map((n) => n.message).join("\n")).toContain(h.memoryDir)
    expect(git.revParses()).toBe(0)
  })

  it("switching memory on later locates without git too", async () => {
    const git = countingGit()
    h = await startHarness({ config: { enabled: false } })
    await h.prompt("/memory on")
    await h.prompt("/memory status")
    expect(h.notifications.map((n) => n.message).join("\n")).toContain(h.memoryDir)
    expect(git.revParses()).toBe(0)
  })
})

describe("git's own query, where the file system cannot answer", () => {
  it("names the work tree of a folder inside it, and nothing outside one", async () => {
    const git = countingGit()
    const repo = gitRepo()
    expect(await askGit(repo)).toMatchObject({ toplevel: repo })
    expect(await askGit(tempDir("pm-not-git-"))).toBeUndefined()
    expect(git.revParses()).toBe(2)
  })
})
