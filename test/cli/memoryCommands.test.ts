/** `pm list|show|search|forget` through the real dist/pm.js against real memory directories. */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { existsSync, readFileSync, utimesSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { Journal } from "../../layers/writes/Journal.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { gitRepo, tempAgent, tempDir, writeFileAt } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

const topic = (name: string, description: string, type: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  type: ${type}\n---\n${body}\n`

const setup = async () => {
  const agent = tempAgent()
  const repo = gitRepo()
  const r = await runPm(["project", "--json", "--cwd", repo], agent)
  expect(r.code).toBe(0)
  const project = JSON.parse(r.stdout) as Record<string, string>
  const memoryDir = project["memoryDir"]!
  const rootDir = join(project["storageRoot"]!, "memory-roots", project["memoryRootHash"]!)
  const DAY = 86_400_000
  writeFileAt(join(memoryDir, "build.md"), topic("Build steps", "how to build and test", "project", "Run node scripts/build.mjs before the tests.\nThen vitest."))
  writeFileAt(join(memoryDir, "my notes.md"), topic("my notes", "notes kept by hand", "user", "The user likes tabs over spaces."))
  writeFileAt(join(memoryDir, "orphan.md"), topic("Orphan", "a topic the index forgot", "reference", "Dashboards live at grafana."), Date.now() - 5 * DAY)
  writeFileAt(
    join(memoryDir, "MEMORY.md"),
    "# Memory\n- [Build](build.md) - how to build\n- [Notes](my%20notes.md) - notes\n- [Gone](gone.md) - a missing file\n"
  )
  return { ...agent, repo, memoryDir, rootDir }
}

describe("pm list", () => {
  it("lists every topic with type, age, description and whether the index links it (--json)", async () => {
    const s = await setup()
    const r = await runPm(["list", "--json", "--cwd", s.repo], s)
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.memoryDir).toBe(s.memoryDir)
    const byFile = Object.fromEntries(out.topics.map((t: { filename: string }) => [t.filename, t]))
    expect(Object.keys(byFile).sort()).toEqual(["build.md", "my notes.md", "orphan.md"])
    expect(byFile["build.md"]).toMatchObject({ type: "project", description: "how to build and test", linked: true, ageDays: 0 })
    expect(byFile["my notes.md"]).toMatchObject({ type: "user", linked: true })
    expect(byFile["orphan.md"]).toMatchObject({ type: "reference", linked: false, ageDays: 5 })
  })

  it("prints a table without --json and says how many topics the index misses", async () => {
    const s = await setup()
    const r = await runPm(["list", "--cwd", s.repo], s)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^5d\s+reference\s+missing\s+orphan\.md\s+a topic the index forgot$/m)
    expect(r.stdout).toMatch(/^now\s+project\s+linked\s+build\.md/m)
    expect(r.stdout).toContain("1 topic is not linked from MEMORY.md")
  })

  it("fails with exit 2 and one line naming a missing --memory-dir, instead of listing nothing", async () => {
    const missing = join(tempDir(), "nowhere")
    for (const args of [["list"], ["list", "--json"], ["search", "x"], ["show", "x"]]) {
      const r = await runPm([...args, "--memory-dir", missing], tempAgent())
      expect(r.code).toBe(2)
      expect(r.stdout).toBe("")
      expect(r.stderr).toBe(`pm: memory directory ${missing} does not exist\n`)
    }
  })
})

describe("pm show", () => {
  it("finds a topic by file name, by name without .md and by frontmatter name", async () => {
    const s = await setup()
    for (const name of ["build.md", "build", "Build steps"]) {
      const r = await runPm(["show", name, "--json", "--cwd", s.repo], s)
      expect(r.code).toBe(0)
      const out = JSON.parse(r.stdout)
      expect(out.filename).toBe("build.md")
      expect(out.content).toBe(readFileSync(join(s.memoryDir, "build.md"), "utf8"))
      expect(out.stale).toBe(false)
    }
  })

  it("shows the header, the staleness note of an old topic and the whole file", async () => {
    const s = await setup()
    const r = await runPm(["show", "orphan", "--cwd", s.repo], s)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("(5 days ago, stale)")
    expect(r.stdout).toContain("Index:   not linked from MEMORY.md")
    expect(r.stdout).toContain("This memory was last changed 5 days ago")
    expect(r.stdout).toContain("---\nname: Orphan\n")
  })

  it("refuses an unknown name with exit 1 and a reason", async () => {
    const s = await setup()
    const r = await runPm(["show", "nothing-here", "--cwd", s.repo], s)
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.stderr).toMatch(/^pm: no topic named nothing-here/)
  })
})

describe("pm search", () => {
  it("ranks topics by the query words and gives the matching line (--json)", async () => {
    const s = await setup()
    const r = await runPm(["search", "build tests", "--json", "--cwd", s.repo], s)
    expect(r.code).toBe(0)
    const hits = JSON.parse(r.stdout)
    expect(hits.map((h: { filename: string }) => h.filename)).toEqual(["build.md"])
    expect(hits[0]).toMatchObject({ line: 7, text: "Run node scripts/build.mjs before the tests." })
  })

  it("ranks a name match above a body match, and says when nothing matches", async () => {
    const s = await setup()
    writeFileAt(join(s.memoryDir, "tabs.md"), topic("Tabs", "indentation", "user", "Use tabs."))
    const r = await runPm(["search", "tabs", "--cwd", s.repo], s)
    expect(r.code).toBe(0)
    const files = r.stdout.split("\n").slice(1).filter((l) => l !== "").map((l) => /^\d+\s+(.+?\.md:\d+)\s/.exec(l)?.[1])
    expect(files).toEqual(["tabs.md:7", "my notes.md:7"])
    const none = await runPm(["search", "kubernetes", "--cwd", s.repo], s)
    expect(none.code).toBe(0)
    expect(none.stdout).toBe('No topic matches "kubernetes".\n')
  })
})

describe("pm forget", () => {
  const journalOf = (rootDir: string) =>
    readFileSync(join(rootDir, "journal", "journal.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))

  it("deletes a topic whose name has spaces, removes its index line and journals the change as forget (--json)", async () => {
    const s = await setup()
    const before = readFileSync(join(s.memoryDir, "my notes.md"), "utf8")
    const r = await runPm(["forget", "my notes", "--json", "--cwd", s.repo], s)
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out).toMatchObject({ forgotten: ["my notes.md"], indexLinesRemoved: 1 })
    expect(existsSync(join(s.memoryDir, "my notes.md"))).toBe(false)
    expect(readFileSync(join(s.memoryDir, "MEMORY.md"), "utf8")).toBe("# Memory\n- [Build](build.md) - how to build\n- [Gone](gone.md) - a missing file\n")
    // One intent and one outcome per file, all under the forget's task.
    const entries = journalOf(s.rootDir)
    expect(entries.filter((e) => "kind" in e).map((e) => [e.task, e.kind, e.changes[0].file])).toEqual([
      [out.task, "forget", "my notes.md"],
      [out.task, "forget", "MEMORY.md"]
    ])
    expect(entries.filter((e) => "outcome" in e).map((e) => e.outcome)).toEqual(["done", "done"])
    // The journal's undo puts both files back byte for byte.
    const layer = Journal.layer.pipe(Layer.provide(LockService.layer), Layer.provide(FileSystem.layer))
    const undone = await Effect.runPromise(
      Effect.flatMap(Journal, (j) => j.undo({ rootDir: s.rootDir, memoryDir: s.memoryDir }, { session: null, model: null })).pipe(Effect.provide(layer))
    )
    expect(undone.task).toBe(out.task)
    expect(readFileSync(join(s.memoryDir, "my notes.md"), "utf8")).toBe(before)
    expect(readFileSync(join(s.memoryDir, "MEMORY.md"), "utf8")).toContain("- [Notes](my%20notes.md) - notes")
  })

  it("forgets the last topics, leaving the index with only what no topic backs", async () => {
    const s = await setup()
    const r = await runPm(["forget", "build", "my notes.md", "Orphan", "--cwd", s.repo], s)
    expect(r.code).toBe(0)
    expect(r.stdout).toBe("Forgot build.md, my notes.md, orphan.md; 2 index lines removed.\n`pm undo` brings it back.\n")
    const list = JSON.parse((await runPm(["list", "--json", "--cwd", s.repo], s)).stdout)
    expect(list.topics).toEqual([])
    expect(readFileSync(join(s.memoryDir, "MEMORY.md"), "utf8")).toBe("# Memory\n- [Gone](gone.md) - a missing file\n")
  })

  it("refuses a name outside memory (exit 1, a reason) and changes nothing, even beside a good name", async () => {
    const s = await setup()
    const outside = join(s.repo, "secret.md")
    writeFileAt(outside, topic("x", "y", "user", "z"))
    for (const bad of ["../../secret.md", outside, "MEMORY.md", "unknown-topic"]) {
      const r = await runPm(["forget", "build", bad, "--cwd", s.repo], s)
      expect(r.code).toBe(1)
      expect(r.stdout).toBe("")
      expect(r.stderr.split("\n").filter((l) => l !== "")).toHaveLength(1)
      expect(r.stderr).toMatch(/^pm: /)
    }
    const r = await runPm(["forget", "../../secret.md", "--json", "--cwd", s.repo], s)
    expect(r.stderr).toContain("outside the memory directory")
    expect(existsSync(outside)).toBe(true)
    expect(existsSync(join(s.memoryDir, "build.md"))).toBe(true)
    expect(existsSync(join(s.rootDir, "journal", "journal.jsonl"))).toBe(false)
  })

  it("keeps an old mtime of the survivors (only the named topic and the index change)", async () => {
    const s = await setup()
    const old = new Date(Date.now() - 10 * 86_400_000)
    utimesSync(join(s.memoryDir, "build.md"), old, old)
    const r = await runPm(["forget", "orphan", "--cwd", s.repo], s)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("0 index lines removed")
    const list = JSON.parse((await runPm(["list", "--json", "--cwd", s.repo], s)).stdout)
    expect(list.topics.find((t: { filename: string }) => t.filename === "build.md").ageDays).toBe(10)
  })
})

describe("pm forget while a background task writes", () => {
  it("waits for the dream's lock, then refuses with a reason and changes nothing; once it is free, forgets", async () => {
    const s = await setup()
    const before = readFileSync(join(s.memoryDir, "MEMORY.md"), "utf8")
    // This test process plays a dream in progress: it holds dream.lock, as the background task does while it writes.
    const live = LockService.layer.pipe(Layer.provide(FileSystem.layer))
    const scope = Effect.runSync(Scope.make())
    const held = await Effect.runPromise(
      Effect.flatMap(LockService, (locks) => locks.acquire(join(s.rootDir, "locks"), "dream.lock")).pipe(
        Scope.extend(scope),
        Effect.provide(live)
      )
    )
    expect(held._tag).toBe("Acquired")
    try {
      const refused = await runPm(["forget", "build", "--wait", "3", "--cwd", s.repo], s)
      expect(refused.code).toBe(2)
      // The holder is named (this test process: live, so never taken over), with progress while it waited.
      expect(refused.stderr).toContain(`pm: waiting for dream.lock: held by a pm process, pid ${process.pid} on ${hostname()}`)
      expect(refused.stderr).toMatch(new RegExp(`^pm: forget failed: memory is busy: dream\\.lock is held by a pm process, pid ${process.pid} on .*; gave up after waiting 3 s\\.`, "m"))
      expect(existsSync(join(s.memoryDir, "build.md"))).toBe(true)
      expect(readFileSync(join(s.memoryDir, "MEMORY.md"), "utf8")).toBe(before)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
    const done = await runPm(["forget", "build", "--cwd", s.repo], s)
    expect(done.code).toBe(0)
    expect(existsSync(join(s.memoryDir, "build.md"))).toBe(false)
  })
})

describe("pm rough edges", () => {
  it("a missing --memory-dir is exit 2 with one line naming it, for scan and lint too", async () => {
    const missing = join(tempDir(), "nowhere")
    for (const sub of ["scan", "lint"]) {
      const r = await runPm([sub, "--memory-dir", missing], tempAgent())
      expect(r.code).toBe(2)
      expect(r.stdout).toBe("")
      expect(r.stderr).toBe(`pm: memory directory ${missing} does not exist\n`)
    }
  })

  it("an unknown flag is 'pm: Unknown option --bogus' with exit 2", async () => {
    for (const sub of ["scan", "list", "status"]) {
      const r = await runPm([sub, "--bogus"], tempAgent())
      expect(r.code).toBe(2)
      expect(r.stderr).toContain("pm: Unknown option --bogus")
      expect(r.stderr).not.toContain("Received unknown argument")
    }
  })

  it("--version prints one line and no blank line after it", async () => {
    const r = await runPm(["--version"], tempAgent())
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/)
  })
})

describe("pm status", () => {
  it("shows configuration problems, not only pm doctor", async () => {
    const agent = tempAgent()
    const repo = gitRepo()
    writeFileAt(join(agent.storageRoot, "config.json"), JSON.stringify({ enabled: "yes please" }))
    const r = await runPm(["status", "--cwd", repo], agent)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^Config: +problem: .*enabled/m)
    const json = JSON.parse((await runPm(["status", "--json", "--cwd", repo], agent)).stdout)
    expect(json.configWarnings.length).toBeGreaterThan(0)
  })
})

describe("pm lint additions", () => {
  it("reports topics the index does not link, index links to missing files and a description cut by ' #'", async () => {
    const dir = tempDir()
    writeFileAt(join(dir, "build.md"), "---\nname: Build\ndescription: build with make # not cmake\nmetadata:\n  type: project\n---\nbody\n")
    writeFileAt(join(dir, "quoted.md"), '---\nname: Q\ndescription: "C # is fine when quoted"\nmetadata:\n  type: project\n---\nbody\n')
    writeFileAt(join(dir, "MEMORY.md"), "- [Build](build.md) - b\n- [Gone](gone.md) - g\n")
    const r = await runPm(["lint", "--json", "--memory-dir", dir], tempAgent())
    expect(r.code).toBe(1)
    const by = Object.fromEntries((JSON.parse(r.stdout) as Array<{ file: string; problems: Array<{ code: string; message: string }> }>).map((f) => [f.file, f.problems]))
    expect(by["MEMORY.md"]!.map((p) => p.code).sort()).toEqual(["index-link-missing", "topic-not-indexed"])
    expect(by["MEMORY.md"]!.find((p) => p.code === "topic-not-indexed")!.message).toContain("quoted.md")
    expect(by["build.md"]!.map((p) => p.code)).toEqual(["description-cut-by-comment"])
    expect(by["build.md"]![0]!.message).toContain('description: "build with make # not cmake"')
    expect(by["quoted.md"]).toBeUndefined()
  })

  it("index lines: exactly 150 characters pass, 151 are too long (the rules say at most 150)", async () => {
    const dir = tempDir()
    writeFileAt(join(dir, "a.md"), "---\nname: A\ndescription: a\nmetadata:\n  type: user\n---\nx\n")
    const head = "- [A](a.md) - "
    for (const [length, problems] of [[149, 0], [150, 0], [151, 1]] as const) {
      writeFileAt(join(dir, "MEMORY.md"), `${head}${"h".repeat(length - head.length)}\n`)
      const r = await runPm(["lint", "--json", "--memory-dir", dir], tempAgent())
      const out = JSON.parse(r.stdout) as Array<{ file: string; problems: Array<{ code: string }> }>
      expect(out.flatMap((f) => f.problems).filter((p) => p.code === "index-line-too-long")).toHaveLength(problems)
    }
  })

  it("reports a huge file's real size, and FILE resolves against the current directory", async () => {
    const dir = tempDir()
    const big = `---\nname: Big\ndescription: big\nmetadata:\n  type: user\n---\n${"x".repeat(3 * 1024 * 1024)}\n`
    writeFileAt(join(dir, "big.md"), big)
    const r = await runPm(["lint", "--json", "--memory-dir", dir, "big.md"], { ...tempAgent(), cwd: dir })
    expect(r.code).toBe(1)
    const out = JSON.parse(r.stdout) as Array<{ file: string; problems: Array<{ code: string; message: string }> }>
    const over = out[0]!.problems.find((p) => p.code === "recall-window-over")!
    expect(over.message).toContain(`${Buffer.byteLength(big)} bytes`)
  })
})

describe("pm help", () => {
  it("every subcommand's help has usage starting with pm and no generic type lines", async () => {
    for (const sub of ["project", "scan", "lint", "recall", "bash-check", "status", "doctor", "list", "show", "search", "forget"]) {
      const r = await runPm([sub, "--help"], tempAgent())
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(new RegExp(`^\\$ pm ${sub}\\b`, "m"))
      expect(r.stdout).not.toMatch(/A directory\.|A user-defined piece of text\.|A true or false value\./)
    }
  })
})
