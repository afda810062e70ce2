/**
 * `pm on|off [PART] [--project]`, `pm remember`, `pm context`, and what `pm status` and `pm doctor` say about the
 * switches and about config.json values that cannot be used: the bundled CLI in child processes, real git repos.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { gitRepo, tempAgent, tempDir } from "../support/tmp.ts"
import { githubToken } from "../trust/fakeSecrets.ts"

beforeAll(() => ensureBuilt())

const setup = () => {
  const agent = tempAgent()
  const repo = gitRepo()
  const pm = (...args: Array<string>) => runPm(args, { cwd: repo, agentDir: agent.agentDir, home: agent.home })
  const configPath = join(agent.storageRoot, "config.json")
  return { ...agent, repo, pm, configPath }
}

describe("pm on|off", () => {
  it("switches one part globally or for this project, keeps other keys, and status shows what is in force", async () => {
    const t = setup()
    mkdirSync(t.storageRoot, { recursive: true })
    writeFileSync(t.configPath, JSON.stringify({ extractor: { maxTurns: 3 } }))
    const off = await t.pm("off", "recall")
    expect(off.code).toBe(0)
    expect(off.stdout).toContain("Recall is off (saved in")
    expect(off.stdout).toContain("for every project")
    const dream = await t.pm("off", "dream", "--project")
    expect(dream.stdout).toContain(`for ${t.repo} only`)
    expect(JSON.parse(readFileSync(t.configPath, "utf8"))).toEqual({
      extractor: { maxTurns: 3 },
      recall: { enabled: false },
      projects: { [t.repo]: { dream: { enabled: false } } }
    })
    const status = await t.pm("status")
    expect(status.stdout).toMatch(/^Switches: +memory on, extraction on, dream off \(project\), recall off \(global\)$/m)
    const json = JSON.parse((await t.pm("status", "--json")).stdout)
    expect(json.switches.dream).toEqual({ on: false, from: "project" })
    // The project's own setting wins over the global one, and the report says so.
    await t.pm("on", "memory", "--project")
    const globalOff = await t.pm("off")
    expect(globalOff.stdout).toContain("Project memory is off")
    expect(globalOff.stdout).toContain("This project keeps its own setting")
    expect((await t.pm("status")).stdout).toMatch(/^Project memory on /m)
  })

  it("refuses a part that does not exist, and changes nothing", async () => {
    const t = setup()
    const bad = await t.pm("off", "selector")
    expect(bad.code).toBe(2)
    expect(existsSync(t.configPath)).toBe(false)
  })
})

describe("settings written by several processes at once", () => {
  it("8 pm processes switching memory off in 8 projects at once: every one's key is kept", async () => {
    const agent = tempAgent()
    const repos = Array.from({ length: 8 }, () => gitRepo())
    const runs = await Promise.all(repos.map((repo) => runPm(["off", "--project"], { cwd: repo, agentDir: agent.agentDir, home: agent.home })))
    for (const r of runs) expect(r.code, r.stderr).toBe(0)
    const config = JSON.parse(readFileSync(join(agent.storageRoot, "config.json"), "utf8"))
    expect(Object.keys(config.projects).sort()).toEqual([...repos].sort())
    for (const repo of repos) expect(config.projects[repo]).toEqual({ enabled: false })
  })
})

describe("a project's key in other spellings", () => {
  it("a trailing slash or a symlink names the same project; a key naming no folder is reported; a switch folds the aliases", async () => {
    const t = setup()
    mkdirSync(t.storageRoot, { recursive: true })
    const link = join(tempDir("pm-alias-"), "link")
    symlinkSync(t.repo, link)
    const missing = join(tempDir("pm-gone-"), "gone")
    writeFileSync(t.configPath, JSON.stringify({ projects: { [`${t.repo}/`]: { enabled: false }, [link]: { recall: { enabled: false } }, [missing]: { enabled: false } } }))
    const status = await t.pm("status")
    expect(status.stdout).toMatch(/^Project memory off /m)
    const doctor = await t.pm("doctor")
    expect(doctor.stdout).toContain(`"projects" key ${JSON.stringify(missing)} names no folder that exists`)
    expect(doctor.stdout).not.toContain(`"projects" key ${JSON.stringify(link)}`)
    // Switched back on under the canonical key: the alias spellings go, what they set beside it stays.
    const on = await t.pm("on", "--project")
    expect(on.code, on.stderr).toBe(0)
    expect((await t.pm("status")).stdout).toMatch(/^Project memory on /m)
    const written = JSON.parse(readFileSync(t.configPath, "utf8"))
    expect(Object.keys(written.projects).sort()).toEqual([missing, t.repo].sort())
    expect(written.projects[t.repo]).toEqual({ enabled: true, recall: { enabled: false } })
  })
})

describe("config.json values that cannot be used", () => {
  it("one line each in pm status and pm doctor, naming the key, the value and what it must be; never a schema dump", async () => {
    const t = setup()
    mkdirSync(t.storageRoot, { recursive: true })
    writeFileSync(t.configPath, JSON.stringify({ extractor: { maxTurns: -3 }, selector: "haiku", recall: { enabled: "no" } }))
    const status = await t.pm("status")
    const problems = status.stdout.split("\n").filter((l) => l.startsWith("Config:"))
    expect(problems).toEqual([
      `Config:     problem: ${t.configPath}: "recall.enabled" must be true or false (found "no"); treated as false (off) until it is fixed.`,
      `Config:     problem: ${t.configPath}: "selector" must be an object (found "haiku"); using the default.`,
      `Config:     problem: ${t.configPath}: "extractor.maxTurns" must be an integer from 1 to 200 (found -3); using the default, 5.`
    ])
    expect(status.stdout).toMatch(/^Switches: .*recall off \(global\)$/m)
    const doctor = await t.pm("doctor")
    expect(doctor.code).toBe(1)
    const invalid = doctor.stdout.split("\n").filter((l) => l.startsWith("config-invalid:"))
    expect(invalid).toHaveLength(3)
    expect(doctor.stdout).not.toMatch(/readonly|Expected|└|─/)
  })

  it("a config.json that is not JSON fails closed: memory off with a warning, not the defaults", async () => {
    const t = setup()
    mkdirSync(t.storageRoot, { recursive: true })
    writeFileSync(t.configPath, '{ "enabled": false, ')
    const status = await t.pm("status")
    expect(status.stdout).toMatch(/^Project memory off /m)
    expect(status.stdout).toContain("is not valid JSON")
    expect(status.stdout).toContain("project memory stays off until it is fixed")
    const doctor = await t.pm("doctor")
    expect(doctor.stdout).toMatch(/^memory-off: /m)
    expect(doctor.stdout).toMatch(/^config-invalid: .*not valid JSON/m)
    // Nothing is saved while the memory directory is not known.
    const remember = await t.pm("remember", "the deploys happen on Fridays")
    expect(remember.code).toBe(2)
    expect(remember.stderr).toContain("nothing was saved: config.json is not valid JSON")
    // And it is not rewritten by a switch: the file is the person's to fix.
    const on = await t.pm("on")
    expect(on.code).toBe(2)
    expect(readFileSync(t.configPath, "utf8")).toBe('{ "enabled": false, ')
  })
})

describe("pm remember", () => {
  it("saves a topic with its header and index line, journaled: pm log lists it, pm undo takes it back", async () => {
    const t = setup()
    const saved = await t.pm("remember", "--type", "user", "The user wants commits signed off; never push to main directly")
    expect(saved.code).toBe(0)
    const memoryDir = JSON.parse((await t.pm("project", "--json")).stdout).memoryDir as string
    const file = "the-user-wants-commits-signed-off-never.md"
    expect(saved.stdout).toContain(`Saved ${file}, MEMORY.md`)
    const content = readFileSync(join(memoryDir, file), "utf8")
    expect(content).toBe(
      '---\nname: "The user wants commits signed off; never push"\ndescription: "The user wants commits signed off; never push to main directly"\nmetadata:\n  type: user\n---\nThe user wants commits signed off; never push to main directly\n'
    )
    const index = readFileSync(join(memoryDir, "MEMORY.md"), "utf8")
    // The title and the hook read as the text, once: the hook is what follows the title.
    expect(index).toBe(`- [The user wants commits signed off; never push](${file}) - to main directly\n`)
    expect(index.trimEnd().length).toBeLessThanOrEqual(150)
    expect((await t.pm("lint")).code).toBe(0)
    // The same text again: a name of its own, never a numbered continuation.
    const again = JSON.parse((await t.pm("remember", "--json", "--type", "user", "The user wants commits signed off; never push to main directly")).stdout)
    expect(again.file).toBe("the-user-wants-commits-signed-off-never-b.md")
    const log = await t.pm("log")
    expect(log.stdout).toContain("remember")
    const undo = await t.pm("undo")
    expect(undo.code).toBe(0)
    expect(readdirSync(memoryDir).sort()).toEqual(["MEMORY.md", file])
  })

  it("the first memory of a project, undone, leaves the directory as it was: no topic and no index linking to one", async () => {
    const t = setup()
    expect((await t.pm("remember", "Deploys happen on Fridays only")).code).toBe(0)
    const memoryDir = JSON.parse((await t.pm("project", "--json")).stdout).memoryDir as string
    expect(readdirSync(memoryDir).sort()).toEqual(["MEMORY.md", "deploys-happen-on-fridays-only.md"])
    const undo = await t.pm("undo")
    expect(undo.code).toBe(0)
    expect(undo.stdout).toContain("  deleted    MEMORY.md (this task had created it)")
    expect(undo.stdout).toContain("0 restored, 2 deleted, 0 unchanged, 0 left alone.")
    expect(readdirSync(memoryDir)).toEqual([])
    expect((await t.pm("lint")).code).toBe(0)
  })

  it("refuses a credential (exit 1, the kind and the line, never the value) and writes nothing", async () => {
    const t = setup()
    const token = githubToken()
    const refused = await t.pm("remember", `the deploy token is ${token}`)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^pm: Refused: .*GitHub/m)
    expect(refused.stderr).not.toContain(token)
    // Text that starts with the credential: the file name it would have had (its first words) is not told either.
    const first = await t.pm("remember", `${token} is the deploy token`)
    expect(first.code).toBe(1)
    expect(first.stderr).toBe(
      "pm: Refused: the text to remember holds what looks like a GitHub token at line 1. Memory must never hold credentials: remove or redact it, " +
        'and describe where the credential lives instead of its value (for example "the deploy token is the DEPLOY_TOKEN secret of the CI"), then try again. ' +
        "Encoding, splitting or disguising the value does not get it past this check.\n"
    )
    expect(first.stderr.toLowerCase()).not.toContain(token.slice(4, 12).toLowerCase())
    const memoryDir = JSON.parse((await t.pm("project", "--json")).stdout).memoryDir as string
    expect(existsSync(memoryDir) ? readdirSync(memoryDir) : []).toEqual([])
  })
})

describe("pm context", () => {
  it("shows each system-prompt section with characters and tokens, and adds nothing when memory is off", async () => {
    const t = setup()
    await t.pm("remember", "Releases are tagged from main after CI passes")
    const json = JSON.parse((await t.pm("context", "--json")).stdout)
    expect(json.parts.map((p: { name: string }) => p.name)).toEqual(["auto_memory", "auto_memory_index", "auto_memory_date"])
    const index = json.parts[1]
    expect(index.text).toBe(`<auto_memory_index>\n- [Releases are tagged from main after CI passes](releases-are-tagged-from-main-after-ci.md)\n</auto_memory_index>`)
    expect(index.chars).toBe(index.text.length)
    expect(index.tokens).toBe(Math.ceil(index.text.length / 4))
    // Today's local date, as a session of this project would be told it (the child runs in this process's time zone).
    const d = new Date()
    const today = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`
    expect(json.parts[2].text).toMatch(new RegExp(`^<auto_memory_date>\nToday is [A-Z][a-z]+day ${today} \\(the user's local date\\)\\.\n</auto_memory_date>$`))
    expect(json.chars).toBe(json.parts[0].chars + index.chars + json.parts[2].chars)
    const text = await t.pm("context")
    expect(text.stdout).toMatch(/^auto_memory_index \(system prompt\): \d+ characters, about \d+ tokens$/m)
    expect(text.stdout).toMatch(/^Total: [\d,]+ characters, about [\d,]+ tokens/m)
    await t.pm("off", "--project")
    const off = await t.pm("context")
    expect(off.stdout).toContain("Project memory adds nothing to requests here: it is switched off")
  })
})
