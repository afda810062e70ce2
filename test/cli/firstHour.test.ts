/**
 * What a person meets in a first hour with `pm`: whether Pi trusts the project, `--memory-dir` on every command that
 * has a memory directory, several words for search, one `pm:` line for each usage error, help that does not call an
 * optional repeat required, a binary file neither dumped nor mis-measured, an unreadable file reported alike by
 * scan and lint, doctor naming each file once with its versions, an invalid setting in one sentence, and reading
 * commands that create nothing.
 */
import { mkdirSync, readdirSync, symlinkSync, writeFileSync, existsSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { gitRepo, tempAgent, tempDir } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

const TOPIC = "---\nname: Package manager\ndescription: the user uses pnpm and wants to migrate\nmetadata:\n  type: user\n---\nWe migrate to pnpm next week.\n"

/** A repository, an agent directory, and the project's memory directory (created, with one linked topic). */
const project = async (options: { withMemory?: boolean } = {}) => {
  const agent = tempAgent()
  const repo = gitRepo()
  const opts = { agentDir: agent.agentDir, home: agent.home, cwd: repo }
  const memoryDir = JSON.parse((await runPm(["project", "--json"], opts)).stdout).memoryDir as string
  if (options.withMemory !== false) {
    mkdirSync(memoryDir, { recursive: true })
    writeFileSync(join(memoryDir, "pnpm.md"), TOPIC)
    writeFileSync(join(memoryDir, "MEMORY.md"), "- [Package manager](pnpm.md) - pnpm, migration\n")
  }
  const pm = (...args: Array<string>) => runPm(args, opts)
  return { agent, repo, memoryDir, pm }
}

describe("trust", () => {
  it("a project without resources that need trust is trusted, and says so", async () => {
    const p = await project()
    const status = await p.pm("status")
    expect(status.stdout).toMatch(/^Trust: +trusted \(nothing in the project needs Pi's trust\)$/m)
    const doctor = JSON.parse((await p.pm("doctor", "--json")).stdout)
    expect(doctor.problems.map((x: { code: string }) => x.code)).not.toContain("trust-undecided")
  })

  it("a .pi/settings.json with no saved decision: not decided, a doctor problem, and how to trust it", async () => {
    const p = await project()
    mkdirSync(join(p.repo, ".pi"))
    writeFileSync(join(p.repo, ".pi", "settings.json"), "{}\n")
    const status = await p.pm("status")
    const line = status.stdout.split("\n").find((l) => l.startsWith("Trust:")) ?? ""
    expect(line).toContain(`not decided: ${join(p.repo, ".pi", "settings.json")} needs trust`)
    expect(line).toContain("No memory is injected or recalled while Pi does not trust the project")
    expect(line).toContain("/trust")
    expect(line).toContain("pi --approve")
    const doctor = await p.pm("doctor")
    expect(doctor.code).toBe(1)
    expect(doctor.stdout).toMatch(/^trust-undecided: not decided: /m)
  })

  it("follows the decision saved in trust.json (nearest folder first) and defaultProjectTrust", async () => {
    const p = await project()
    mkdirSync(join(p.repo, ".pi"))
    writeFileSync(join(p.repo, ".pi", "settings.json"), "{}\n")
    const trustFile = join(p.agent.agentDir, "trust.json")
    writeFileSync(trustFile, JSON.stringify({ [join(p.repo, "..")]: false, [p.repo]: true }))
    expect((await p.pm("status")).stdout).toMatch(new RegExp(`^Trust: +trusted \\(trusted in ${trustFile} \\(${p.repo}\\)\\)$`, "m"))
    writeFileSync(trustFile, JSON.stringify({ [join(p.repo, "..")]: false }))
    const denied = JSON.parse((await p.pm("doctor", "--json")).stdout)
    expect(denied.problems.find((x: { code: string }) => x.code === "project-untrusted")?.message).toContain("NOT trusted: marked not trusted")
    writeFileSync(trustFile, "{}")
    writeFileSync(join(p.agent.agentDir, "settings.json"), JSON.stringify({ defaultProjectTrust: "always" }))
    expect((await p.pm("status")).stdout).toMatch(/^Trust: +trusted \(.*defaultProjectTrust is "always"\)$/m)
    writeFileSync(join(p.agent.agentDir, "settings.json"), JSON.stringify({ defaultProjectTrust: "never" }))
    expect((await p.pm("status")).stdout).toMatch(/^Trust: +NOT trusted: .*defaultProjectTrust is "never"/m)
  })
})

describe("words for a person", () => {
  it("pm status: '1 line' and a dream '(just now)'; pm show: '(today)'; pm help and pm help SUBCOMMAND show help", async () => {
    const p = await project()
    const where = JSON.parse((await p.pm("project", "--json")).stdout)
    const state = join(where.storageRoot, "memory-roots", where.memoryRootHash, "state.json")
    mkdirSync(join(state, ".."), { recursive: true })
    writeFileSync(state, JSON.stringify({ version: 1, lastDreamAt: Date.now() }))
    const status = (await p.pm("status")).stdout
    expect(status).toMatch(/^Index: +1 line, \d+ characters$/m)
    expect(status).toMatch(/^Last dream: \S+ \(just now\)$/m)
    expect((await p.pm("show", "pnpm")).stdout).toMatch(/^Changed: \S+ \(today\)$/m)
    const help = await p.pm("help")
    expect(help.code, help.stderr).toBe(0)
    expect(help.stdout).toMatch(/^COMMANDS\n[\s\S]*^ *- list /m)
    const listHelp = await p.pm("help", "list")
    expect(listHelp.code, listHelp.stderr).toBe(0)
    expect(listHelp.stdout).toMatch(/^\$ pm list /m)
  })
})

describe("options a free-text subcommand does not take", () => {
  it("are refused, not saved or searched as text; after -- a word with a dash is text", async () => {
    const p = await project()
    const before = readdirSync(p.memoryDir).sort()
    for (const args of [["remember", "--memory-dir", tempDir("pm-elsewhere-"), "deploys", "on", "Fridays"], ["remember", "--bogus", "deploys"], ["remember", "deploys", "-x"], ["search", "--bogus", "pnpm"], ["forget", "--bogus"]]) {
      const r = await p.pm(...args)
      expect(r.code, args.join(" ")).toBe(2)
      expect(r.stdout).toBe("")
      expect(r.stderr).toBe(`pm: Unknown option ${args.find((a) => a.startsWith("-"))} (pm ${args[0]} --help lists its options; a word that starts with a dash goes after --)\n`)
    }
    expect(readdirSync(p.memoryDir).sort()).toEqual(before)
    // Its own options, with their values, pass; so does text after --.
    const saved = await p.pm("remember", "--type", "user", "--wait", "5", "--", "--dry-run", "is", "our", "default")
    expect(saved.code, saved.stderr).toBe(0)
    expect((await p.pm("search", "dry-run")).stdout).toContain("--dry-run is our default")
    // An option's value is its value, even when it starts with a dash.
    mkdirSync(join(p.repo, "-notes"))
    writeFileSync(join(p.repo, "-notes", "pnpm.md"), TOPIC)
    const dashed = await p.pm("search", "--memory-dir", "-notes", "pnpm")
    expect(dashed.code, dashed.stderr).toBe(0)
    expect(dashed.stdout).toContain("pnpm.md")
  })
})

describe("--memory-dir", () => {
  it("is taken by project, status, doctor, log, undo and forget", async () => {
    const p = await project({ withMemory: false })
    const other = tempDir("pm-other-memory-")
    writeFileSync(join(other, "pnpm.md"), TOPIC)
    writeFileSync(join(other, "MEMORY.md"), "- [Package manager](pnpm.md) - pnpm\n")
    expect(JSON.parse((await p.pm("project", "--json", "--memory-dir", other)).stdout).memoryDir).toBe(other)
    expect((await p.pm("status", "--memory-dir", other)).stdout).toMatch(/^Topics: +1$/m)
    expect((await p.pm("doctor", "--memory-dir", other)).stdout).toContain(`No problems found in ${other}.`)
    const forget = await p.pm("forget", "--memory-dir", other, "pnpm")
    expect(forget.code, forget.stderr).toBe(0)
    expect(existsSync(join(other, "pnpm.md"))).toBe(false)
    expect((await p.pm("log", "--memory-dir", other)).stdout).toContain("forget")
    const undo = await p.pm("undo", "--memory-dir", other)
    expect(undo.code, undo.stderr).toBe(0)
    expect(existsSync(join(other, "pnpm.md"))).toBe(true)
    // The project's own memory was never touched or created.
    expect(existsSync(p.memoryDir)).toBe(false)
    const missing = await p.pm("status", "--memory-dir", join(other, "nope"))
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/^pm: /)
  })
})

describe("the command line", () => {
  it("searches for several words without quotes", async () => {
    const p = await project()
    const r = await p.pm("search", "pnpm", "migrate")
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain("pnpm.md")
    expect((await p.pm("search", "pnpm", "nowhere")).stdout).toBe('No topic matches "pnpm nowhere".\n')
  })

  it("says every usage error in one line starting pm:", async () => {
    const p = await project()
    const unknown = await p.pm("bogus")
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/^pm: unknown subcommand 'bogus'; use one of project, scan, .*forget, .*\(pm --help\)\n$/)
    expect((await p.pm("--cwd", p.repo, "bogus")).stderr).toMatch(/^pm: unknown subcommand 'bogus';/)
    // A subcommand pm knows, after options: not "unknown subcommand 'list'", but where the options go.
    const early = await p.pm("--cwd", p.repo, "list")
    expect(early.code).toBe(2)
    expect(early.stderr).toBe(`pm: options go after the subcommand: pm list --cwd ${p.repo}\n`)
    const extra = await p.pm("recall", "two", "words")
    expect(extra.code).toBe(2)
    expect(extra.stderr).toMatch(/^pm: unexpected argument 'words': .*quote a value of several words/)
    expect(extra.stderr.trim().split("\n")).toHaveLength(1)
    const missing = await p.pm("search")
    expect(missing.stderr).toMatch(/^pm: Missing argument <WORDS>\n$/)
    expect((await p.pm("log", "--limit", "x")).stderr).toMatch(/^pm: /)
  })

  it("shows optional repeats in brackets in the subcommand list, aligned", async () => {
    const help = (await runPm(["--help"])).stdout
    const lines = help.split("\n").filter((l) => /^\s*- [a-z-]+ /.test(l))
    expect(lines.find((l) => l.includes("- recall "))).toContain("[--select text...] <QUERY>")
    expect(lines.find((l) => l.includes("- lint "))).toContain("[<FILE>...]")
    expect(lines.find((l) => l.includes("- forget "))).toMatch(/ <NAME>\.\.\. /)
    // Where each description starts: after the usage and its padding.
    const starts = lines.map((l) => /^(\s*- \S.*?\S {2,})\S/.exec(l)?.[1]?.length)
    expect(starts.every((n) => n !== undefined)).toBe(true)
    expect(new Set(starts).size).toBe(1)
  })
})

describe("a binary file in memory", () => {
  it("is not dumped by show, is measured in its real bytes by lint", async () => {
    const p = await project()
    const bytes = Buffer.alloc(4096)
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 151 + 7) % 256
    writeFileSync(join(p.memoryDir, "binary.md"), bytes)
    const show = await p.pm("show", "binary.md")
    expect(show.code).toBe(1)
    expect(show.stdout).toContain("(not shown: binary.md is not text, 4,096 bytes;")
    expect(show.stdout).not.toMatch(/[\u0000-\u0008\ufffd]/)
    const json = JSON.parse((await p.pm("show", "binary.md", "--json")).stdout)
    expect(json).toMatchObject({ binary: true, sizeBytes: 4096, content: "" })
    const lint = await p.pm("lint", "binary.md")
    expect(lint.stdout).toContain("binary.md is ")
    expect(lint.stdout).toMatch(/binary\.md is \d+ lines and 4096 bytes[,;]/)
  })
})

describe("an unreadable file", () => {
  it("is reported by lint as scan reports it", async () => {
    const p = await project()
    symlinkSync(join(p.memoryDir, "gone-target.md"), join(p.memoryDir, "gone.md"))
    const scan = JSON.parse((await p.pm("scan", "--json")).stdout)
    expect(scan.skipped).toEqual([{ filename: "gone.md", reason: "missing or a dangling symlink" }])
    const lint = await p.pm("lint", "--json")
    expect(lint.code).toBe(1)
    expect(JSON.parse(lint.stdout)).toContainEqual({
      file: "gone.md",
      problems: [{ code: "file-unreadable", message: "gone.md cannot be read: missing or a dangling symlink." }]
    })
  })
})

describe("pm doctor", () => {
  it("names each file once and prints the versions without --json", async () => {
    const p = await project()
    writeFileSync(join(p.memoryDir, "unlinked.md"), TOPIC)
    const r = await p.pm("doctor")
    expect(r.stdout).toMatch(/^topic-not-indexed: MEMORY\.md does not link unlinked\.md\./m)
    expect(r.stdout).not.toMatch(/MEMORY\.md: MEMORY\.md/)
    expect(r.stdout.trim().split("\n").at(-1)).toMatch(/^Versions: node \d+\.\d+\.\d+, pi (\d+\.\d+\.\d+|not found)$/)
    writeFileSync(join(p.memoryDir, "MEMORY.md"), "- [Package manager](pnpm.md) - pnpm\n- [Unlinked](unlinked.md) - x\n")
    const clean = await p.pm("doctor")
    expect(clean.stdout).toContain("No problems found")
    expect(clean.stdout).toMatch(/^Versions: node /m)
  })
})

describe("an invalid setting", () => {
  it("is one sentence naming the key, what it takes and what the file holds", async () => {
    const p = await project()
    mkdirSync(p.agent.storageRoot, { recursive: true })
    writeFileSync(join(p.agent.storageRoot, "config.json"), JSON.stringify({ selector: { model: 5 } }))
    const r = await p.pm("status")
    const line = r.stdout.split("\n").find((l) => l.startsWith("Config:")) ?? ""
    expect(line).toBe(
      `Config:     problem: ${join(p.agent.storageRoot, "config.json")}: "selector.model" must be "provider/model-id" (for example "anthropic/claude-haiku-4-5") (found 5); using the default.`
    )
    writeFileSync(join(p.agent.storageRoot, "config.json"), JSON.stringify({ selector: "fast" }))
    expect((await p.pm("status")).stdout).toContain(`"selector" must be an object (found "fast")`)
    expect((await p.pm("status")).stderr).not.toMatch(/└─|Expected/)
  })
})

describe("pm status", () => {
  it("words the next dream without saying 'eligible now, once'", async () => {
    const p = await project()
    const r = await p.pm("status")
    expect(r.stdout).toMatch(/^Next dream: once 5 other sessions of this project have been active \(no dream yet, so no waiting time\)$/m)
  })
})

describe("reading commands", () => {
  it("list, show and search of a project without memory create nothing", async () => {
    const p = await project({ withMemory: false })
    const list = await p.pm("list")
    expect(list.code).toBe(0)
    expect(list.stdout).toContain("not created yet: Pi makes it on its first session in this project")
    expect((await p.pm("search", "anything", "here")).code).toBe(0)
    const show = await p.pm("show", "x")
    expect(show.code).toBe(1)
    expect(show.stderr).toMatch(/^pm: no topic "x": /)
    expect(existsSync(p.agent.storageRoot) ? readdirSync(p.agent.storageRoot, { recursive: true }) : []).toEqual([])
  })
})
