/** `/memory list|show|search|forget|recalled` and name completions, in the real Pi host with the built extension. */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { run } from "../support/install.ts"
import { ensureBuilt, repoRoot } from "../support/pm.ts"
import { gitRepo, tempDir } from "../support/tmp.ts"
import { selectAnswer, startHarness, topic, type Harness } from "./harness.ts"

beforeAll(() => ensureBuilt())

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const RELEASE = topic("Release process", "How releases are tagged and published; who approves")
const NOTES = topic("my notes", "notes kept by hand", "user", "The user prefers tabs.")
const INDEX = "- [Release process](release.md) - tagging and publishing\n- [Notes](my%20notes.md) - notes\n"

const said = async (x: Harness, command: string): Promise<ReadonlyArray<{ message: string; level: string }>> => {
  const before = x.notifications.length
  await x.prompt(command)
  return x.notifications.slice(before)
}
const text = async (x: Harness, command: string) => (await said(x, command)).map((n) => n.message).join("\n")

describe("/memory browsing", () => {
  it("remember refuses a risky instruction unless --allow-risky; show tells the source; review says when nothing is held", async () => {
    h = await startHarness({ memory: { "MEMORY.md": "" } })
    const refused = await said(h, "/memory remember force pushes approved")
    expect(refused.map((n) => n.level)).toEqual(["warning"])
    expect(refused[0]!.message).toContain("nothing was saved: the text reads as an instruction to do something risky (force-pushing")
    expect(existsSync(join(h.memoryDir, "force-pushes-approved.md"))).toBe(false)
    expect(await text(h, "/memory remember --allow-risky force pushes approved")).toContain("saved force-pushes-approved.md, MEMORY.md")
    expect(await text(h, "/memory show force-pushes-approved")).toMatch(/^Source: person \(remember, task remember-/m)
    expect(await text(h, "/memory review")).toBe("No background write is held for review.")
    expect(await text(h, "/memory review approve")).toContain("Usage: /memory review")
  })

  it("list shows each topic with type and whether the index links it", async () => {
    h = await startHarness({ memory: { "MEMORY.md": "- [Release process](release.md) - x\n", "release.md": RELEASE, "my notes.md": NOTES } })
    const out = await text(h, "/memory list")
    expect(out).toMatch(/^release\.md +\[project, today\] +How releases are tagged/m)
    expect(out).toMatch(/^my notes\.md  \[user, today, not in MEMORY\.md\]  notes kept by hand$/m)
    // Columns line up: every description starts at the same place.
    const starts = out.split("\n").map((l) => /^(.*?\] +)\S/.exec(l)?.[1]?.length)
    expect(new Set(starts).size).toBe(1)
  })

  it("show of a file that is not text prints a note, not its bytes", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE, "blob.md": "\u0000\u0001\u0002 binary \u0000" } })
    const out = await text(h, "/memory show blob.md")
    expect(out).toContain("(not shown: blob.md is not text, 12 bytes;")
    expect(out).not.toContain("\u0000")
  })

  it("status says whether Pi trusts the project, and how to trust it", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE } })
    expect(await text(h, "/memory status")).toMatch(/^Trust: +trusted by Pi$/m)
    await h.dispose()
    h = await startHarness({ trusted: false, memory: { "MEMORY.md": INDEX, "release.md": RELEASE } })
    const status = await text(h, "/memory status")
    expect(status).toMatch(/^Trust: +NOT trusted by Pi: no memory is injected or recalled/m)
    expect(status).toContain("/trust, then restart pi (for one run: pi --approve)")
  })

  it("status warns about a project key in config.json that names no folder, and applies a key spelled with a trailing slash", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE } })
    const missing = join(tempDir("gone-"), "no-such-project")
    writeFileSync(
      join(h.agentDir, "project-memory", "config.json"),
      JSON.stringify({ projects: { [missing]: { memory: { enabled: false } }, [`${h.cwd}/`]: { recall: { enabled: false } } } })
    )
    const status = await text(h, "/memory status")
    expect(status).toContain(`Config problem:   `)
    expect(status).toContain(`"projects" key ${JSON.stringify(missing)} names no folder that exists; it applies to no project.`)
    expect(status).toMatch(/recall off \(project\)/)
  })

  it("show prints the file by frontmatter name; an unknown name is a warning with the reason", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE, "my notes.md": NOTES } })
    const out = await text(h, '/memory show "Release process"')
    expect(out).toContain("release.md [project, changed")
    expect(out).toContain(RELEASE.replace(/\n$/, ""))
    const bad = await said(h, "/memory show nothing")
    expect(bad).toHaveLength(1)
    expect(bad[0]).toMatchObject({ level: "warning" })
    expect(bad[0]!.message).toContain("no topic named nothing")
  })

  it("search lists the matching topics with the matching line", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE, "my notes.md": NOTES } })
    expect(await text(h, "/memory search tabs")).toBe("my notes.md:7  The user prefers tabs.")
    expect(await text(h, "/memory search kubernetes")).toBe('No topic matches "kubernetes".')
  })

  it("forget deletes a quoted name with spaces and its index line, and refuses a name outside memory", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE, "my notes.md": NOTES } })
    const refused = await said(h, "/memory forget ../../etc/passwd")
    expect(refused[0]).toMatchObject({ level: "warning" })
    expect(refused[0]!.message).toContain("outside the memory directory")
    const out = await text(h, '/memory forget "my notes"')
    expect(out).toContain("Forgot my notes.md; 1 index line removed.")
    expect(existsSync(join(h.memoryDir, "my notes.md"))).toBe(false)
    expect(readFileSync(join(h.memoryDir, "MEMORY.md"), "utf8")).toBe("- [Release process](release.md) - tagging and publishing\n")
    expect(await text(h, "/memory list")).not.toContain("my notes")
  })

  it("completes topic names for show and forget, quoting names with spaces", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE, "my notes.md": NOTES } })
    const command = h.session.extensionRunner.getCommand("memory")
    const values = async (prefix: string) => ((await command.getArgumentCompletions(prefix)) ?? []).map((i: { value: string }) => i.value)
    expect(await values("sh")).toEqual(["show"])
    expect((await values("show ")).sort()).toEqual(['show "my notes.md"', "show release.md"])
    expect(await values("forget re")).toEqual(["forget release.md"])
    expect(await values("search re")).toEqual([])
    // What is typed in full is offered no more: Enter runs it at once instead of accepting the same text.
    expect(await values("show release.md")).toEqual([])
    expect(await values('forget "my notes.md"')).toEqual([])
    expect(await values("list")).toEqual([])
    expect(await values("show")).toEqual([])
  })
})

describe("/memory recalled", () => {
  it("names what was recalled for which message and the budget left", async () => {
    h = await startHarness({ memory: { "MEMORY.md": INDEX, "release.md": RELEASE }, selector: () => selectAnswer(["release.md"]) })
    expect(await text(h, "/memory recalled")).toMatch(/^Nothing recalled on this branch yet\.\nBudget: 0 of [\d,]+ characters used on this branch, [\d,]+ left\.$/)
    await h.prompt("how do we tag a release")
    const out = await text(h, "/memory recalled")
    expect(out).toMatch(/^"how do we tag a release" -> release\.md$/m)
    const m = /Budget: ([\d,]+) of ([\d,]+) characters used on this branch, ([\d,]+) left\./.exec(out)
    expect(m).not.toBeNull()
    const [used, total, left] = [m![1]!, m![2]!, m![3]!].map((s) => Number(s.replace(/,/g, "")))
    expect(used).toBeGreaterThan(0)
    expect(used! + left!).toBe(total)
  })
})

describe("/memory in print mode (pi -p, no UI)", () => {
  const piBin = join(repoRoot, "node_modules", ".bin", "pi")
  const runPi = (prompt: string, cwd: string, agentDir: string) =>
    run(piBin, ["-e", join(repoRoot, "dist", "extension.ts"), "--no-session", "-p", prompt], {
      cwd,
      env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, HOME: agentDir, NO_COLOR: "1" },
      timeoutMs: 120_000
    })

  it("prints /memory output on stdout and warnings on stderr", async () => {
    const agentDir = tempDir("pm-pi-agent-")
    const repo = gitRepo()
    const status = await runPi("/memory status", repo, agentDir)
    expect(status.code).toBe(0)
    expect(status.stdout).toMatch(/^Memory directory: .*project-memory\/projects\/.*\/memory$/m)
    expect(status.stdout).toMatch(/^Topics: +0$/m)
    const bad = await runPi("/memory show nothing", repo, agentDir)
    expect(bad.stdout).not.toContain("no topic named")
    expect(bad.stderr).toContain("Project memory: no topic named nothing")
  })

  it("names the shell's command where pm has one: pm undo takes a remembered topic back", async () => {
    const agentDir = tempDir("pm-pi-agent-")
    const repo = gitRepo()
    const saved = await runPi("/memory remember deploys happen on Fridays only", repo, agentDir)
    expect(saved.code, saved.stderr).toBe(0)
    expect(saved.stdout).toMatch(/^Project memory: saved deploys-happen-on-fridays-only\.md, MEMORY\.md \(task \S+; pm undo takes it back\)\.$/m)
    expect(saved.stdout).not.toContain("/memory undo")
  })
})

describe("/memory help and small words", () => {
  it("/memory help lists every subcommand with what it does; the status counts one index line as one line", async () => {
    h = await startHarness({ memory: { "MEMORY.md": "- [Release process](release.md) - x\n", "release.md": RELEASE } })
    const help = await said(h, "/memory help")
    expect(help.map((n) => n.level)).toEqual(["info"])
    for (const sub of ["status", "on", "off", "remember", "review", "context", "open", "extract", "dream", "undo", "list", "show", "search", "forget", "recalled", "help"]) {
      expect(help[0]!.message).toMatch(new RegExp(`^  ${sub} +\\S`, "m"))
    }
    expect(await text(h, "/memory status")).toMatch(/^Index: +1 line, \d+ characters$/m)
  })
})
