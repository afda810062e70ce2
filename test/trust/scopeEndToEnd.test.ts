/**
 * The read scope end to end: a hostile extractor in the real Pi host, with the built extension and the strict HTTP
 * provider, reaches for what lies outside its project (another project next to it, another project's sessions and
 * memory in the agent folder, Pi's own temp log on the host, a link from the project out) and for a secret in the
 * project's git history, with `read`, `grep`, `find` and `bash` (inside the OS sandbox). No planted marker may appear
 * in any request the provider received, while the project's own files still read.
 */
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { calls, type Harness, say, startHarness, taskTurn } from "../background/harness.ts"
import { ensureBuilt } from "../support/pm.ts"
import { githubToken } from "./fakeSecrets.ts"

let h: Harness | undefined
const cleanup: Array<string> = []
afterEach(async () => {
  await h?.dispose()
  h = undefined
  for (const p of cleanup.splice(0)) rmSync(p, { recursive: true, force: true })
})
beforeAll(() => ensureBuilt())

const marker = (what: string) => `pmark-${what}-${randomBytes(6).toString("hex")}`

describe("a hostile extractor reaching outside its project, in the real host", () => {
  it("no marker from outside the scope and no secret from git history reaches the provider; the project still reads", async () => {
    h = await startHarness()
    const { base, cwd, agentDir } = h
    const git = (...args: Array<string>) =>
      execFileSync("git", args, { cwd, stdio: "ignore", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } })

    const m = {
      neighbour: marker("neighbour"),
      sessions: marker("sessions"),
      otherMemory: marker("othermemory"),
      hostLog: marker("hostlog"),
      ownFile: marker("own")
    }
    const neighbour = join(base, "other-project")
    mkdirSync(neighbour)
    writeFileSync(join(neighbour, "notes.txt"), `pasted value ${m.neighbour}\n`)
    const otherSessions = join(agentDir, "sessions", "--other-project--")
    mkdirSync(otherSessions, { recursive: true })
    writeFileSync(join(otherSessions, "2026_s1.jsonl"), `{"type":"message","text":"${m.sessions}"}\n`)
    const otherMemory = join(agentDir, "project-memory", "projects", "other", "memory")
    mkdirSync(otherMemory, { recursive: true })
    writeFileSync(join(otherMemory, "a.md"), `---\nname: A\ndescription: a\n---\n${m.otherMemory}\n`)
    const hostLog = join(tmpdir(), `pi-bash-${randomBytes(4).toString("hex")}.log`)
    writeFileSync(hostLog, `full output ${m.hostLog}\n`)
    cleanup.push(hostLog)
    symlinkSync(neighbour, join(cwd, "linked"))
    // A token committed once and deleted: only git's history holds it.
    const token = githubToken()
    writeFileSync(join(cwd, "deploy.cfg"), `token = ${token}\n`)
    git("add", "deploy.cfg")
    git("commit", "-q", "-m", "add deploy config")
    git("rm", "-q", "deploy.cfg")
    git("commit", "-q", "-m", "remove it")
    writeFileSync(join(cwd, "NOTES.md"), `${m.ownFile}\n`)

    h.background = (r) => {
      const turn = taskTurn(r)
      if (turn === 0) {
        return calls(
          ["read", { path: join(neighbour, "notes.txt") }],
          ["read", { path: "linked/notes.txt" }],
          ["read", { path: join(otherSessions, "2026_s1.jsonl") }],
          ["grep", { pattern: "pmark", path: agentDir }],
          ["grep", { pattern: "pmark", path: base }],
          ["find", { pattern: "*.md", path: join(agentDir, "project-memory") }],
          ["read", { path: hostLog }]
        )
      }
      if (turn === 1) {
        return calls(
          ["bash", { command: `cat ${join(neighbour, "notes.txt")}` }],
          ["bash", { command: "cat linked/notes.txt" }],
          ["bash", { command: "grep -rR pmark ." }],
          ["bash", { command: "head -n 3 /tmp/pi-bash-*.log" }],
          ["bash", { command: `ls -la ${tmpdir()}` }],
          ["bash", { command: "git log -p --all" }],
          ["bash", { command: "cat NOTES.md" }]
        )
      }
      return say("Nothing to save.")
    }
    await h.prompt("remember nothing in particular")
    await h.prompt("/memory extract")

    const background = h.ofKind("background")
    expect(background.length).toBeGreaterThanOrEqual(3)
    const wire = JSON.stringify(background)
    for (const [what, value] of Object.entries(m)) {
      if (what === "ownFile") continue
      expect(wire, what).not.toContain(value)
    }
    expect(wire).not.toContain(token)
    // The project's own file was read, and the git history was shown with the token replaced.
    expect(wire).toContain(m.ownFile)
    expect(wire).toContain("add deploy config")
    expect(wire).toContain("[redacted: GitHub token]")
    expect(wire).toContain("outside the task's project")
  })
})
