/**
 * The memory history, with the real pm and git: opt-in (a user who never turns it on gets no git folder and no git
 * run), one commit per remember, forget and undo whose message names the kind, the journal's task and the files,
 * and nothing but memory files committed (our temp files and anything not Markdown stay out).
 */
import { execFileSync } from "node:child_process"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt } from "../support/pm.ts"
import { machine } from "./machines.ts"

beforeAll(() => ensureBuilt())

describe("memory history in git", () => {
  it("is off unless turned on: remember makes no git folder", async () => {
    const a = machine("alpha")
    expect((await a.pm(["remember", "The deploy script lives in scripts/deploy.sh"])).code).toBe(0)
    expect(existsSync(a.gitDir())).toBe(false)
  })

  it("makes one commit per remember, forget and undo, each saying what changed, and agreeing with pm log", async () => {
    const a = machine("alpha")
    const on = await a.pm(["on", "history", "--project"])
    expect(on.code, on.stderr).toBe(0)
    expect(existsSync(join(a.gitDir(), "HEAD"))).toBe(true)
    expect((await a.pm(["remember", "The deploy script lives in scripts/deploy.sh"])).code).toBe(0)
    expect((await a.pm(["remember", "Use pnpm, never npm"])).code).toBe(0)
    const forgot = await a.pm(["forget", "use-pnpm-never-npm.md"])
    expect(forgot.code, forgot.stderr).toBe(0)
    const undone = await a.pm(["undo"])
    expect(undone.code, undone.stderr).toBe(0)
    const subjects = a.log()
    expect(subjects).toHaveLength(4)
    expect(subjects[3]).toMatch(/^remember: .*the-deploy-script-lives-in-scripts\.md/)
    expect(subjects[2]).toMatch(/^remember: .*use-pnpm-never-npm\.md/)
    expect(subjects[1]).toMatch(/^forget: .*use-pnpm-never-npm\.md/)
    expect(subjects[0]).toMatch(/^undo: .*use-pnpm-never-npm\.md/)
    // The commit names the journal's task: the one pm log lists for it.
    const log = JSON.parse((await a.pm(["log", "--json"])).stdout) as ReadonlyArray<{ task: string; kind: string }>
    const bodies = a.log("%B")
    expect(log).toHaveLength(4)
    for (const [i, t] of log.entries()) {
      expect(bodies[i]).toContain(`Task: ${t.task}`)
      expect(bodies[i]).toContain(`Kind: ${t.kind}`)
    }
    expect(bodies[0]).toMatch(/Undoes: forget-/)
    expect(bodies[1]).toContain("deleted use-pnpm-never-npm.md")
  })

  it("commits memory files only: temp files, dot-files and other files stay out", async () => {
    const a = machine("alpha")
    expect((await a.pm(["on", "history", "--project"])).code).toBe(0)
    expect((await a.pm(["remember", "First fact for the history"])).code).toBe(0)
    writeFileSync(join(a.memoryDir(), ".pm-0000.tmp"), "half written")
    writeFileSync(join(a.memoryDir(), "notes.txt"), "not memory")
    writeFileSync(join(a.memoryDir(), ".hidden.md"), "hidden")
    expect((await a.pm(["remember", "Second fact for the history"])).code).toBe(0)
    const tracked = execFileSync("git", [`--git-dir=${a.gitDir()}`, "ls-tree", "-r", "--name-only", "HEAD"], { encoding: "utf8" }).trim().split("\n")
    expect(tracked.sort()).toEqual(["MEMORY.md", "first-fact-for-the-history.md", "second-fact-for-the-history.md"])
  })

  it("a commit that fails leaves the change in memory, and the next commit takes it in", async () => {
    const a = machine("alpha")
    expect((await a.pm(["on", "history", "--project"])).code).toBe(0)
    expect((await a.pm(["remember", "First fact for the history"])).code).toBe(0)
    // A git that refuses every commit (an object folder that cannot be written).
    const broken = await a.pm(["remember", "Second fact for the history"], { PATH: `${failingGitDir()}:${process.env["PATH"]}` })
    expect(broken.code, broken.stderr).toBe(0)
    expect(a.files()).toContain("second-fact-for-the-history.md")
    expect(a.log()).toHaveLength(1)
    expect((await a.pm(["remember", "Third fact for the history"])).code).toBe(0)
    expect(a.log()).toHaveLength(2)
    expect(a.log()[0]).toMatch(/second-fact-for-the-history\.md/)
    expect(a.log()[0]).toMatch(/third-fact/)
  })

  it("pm off history pauses it: no commit, nothing removed", async () => {
    const a = machine("alpha")
    expect((await a.pm(["on", "history", "--project"])).code).toBe(0)
    expect((await a.pm(["remember", "First fact for the history"])).code).toBe(0)
    expect((await a.pm(["off", "history", "--project"])).code).toBe(0)
    expect((await a.pm(["remember", "Second fact for the history"])).code).toBe(0)
    expect(a.log()).toHaveLength(1)
    expect((await a.pm(["on", "history", "--project"])).code).toBe(0)
    expect((await a.pm(["remember", "Third fact for the history"])).code).toBe(0)
    expect(a.log()).toHaveLength(2)
  })
})

/** A folder holding a `git` that fails every `commit` and runs the real one otherwise. */
const failingGitDir = (): string => {
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim()
  const dir = join(machine("helper").project, ".bin")
  execFileSync("mkdir", ["-p", dir])
  writeFileSync(join(dir, "git"), `#!/bin/sh\nfor a in "$@"; do [ "$a" = commit ] && { echo "fatal: refused by the test" >&2; exit 128; }; done\nexec ${real} "$@"\n`, { mode: 0o755 })
  return dir
}
