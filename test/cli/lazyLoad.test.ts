/**
 * `pm` loads what the command it runs needs: the command line alone for help and usage, the core services for
 * `scan`, and the browse, recall or guard services only for their own subcommands. Observed through Node's module
 * hooks in the child process and the bundle's source maps, not by timing.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { builtinsLoadedBy, loadedBy, recordLoadsOption, sourcesOf } from "../support/moduleLoads.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { gitRepo, tempAgent, tempDir } from "../support/tmp.ts"
import { jobFileName, makeJob } from "../../src/background/queue.ts"

const SERVICES_OUTSIDE_THE_CORE = [
  "layers/writes/MemoryWriter.ts",
  "layers/memory/MemoryBrowse.ts",
  "layers/recall/Recall.ts",
  "layers/recall/Selector.ts",
  "layers/model/ModelRegistry.ts",
  "layers/safety/BashGuard.ts",
  "cli/PiModelRuntime.ts"
]

describe("pm loads what the command needs", () => {
  let record: string
  let memoryDir: string
  beforeAll(() => {
    ensureBuilt()
    record = recordLoadsOption()
    memoryDir = tempDir("pm-lazy-")
    writeFileSync(join(memoryDir, "alpha.md"), "---\nname: alpha\ndescription: The alpha topic\ntype: project\n---\nBody.\n")
  })
  const sourcesLoadedBy = async (args: ReadonlyArray<string>, expectedCode = 0, options: { agentDir?: string; home?: string } = {}) => {
    const r = await runPm(args, { ...options, env: { NODE_OPTIONS: record } })
    expect(r.code, r.stderr).toBe(expectedCode)
    const loaded = loadedBy(r.stderr)
    expect(loaded).toContain("pm-main.js")
    return sourcesOf(loaded)
  }

  it("help, version and a usage error load the command line and no service", async () => {
    for (const [args, code] of [[["--help"], 0], [["--version"], 0], [["scan", "--help"], 0], [["scan", "--bogus"], 2]] as const) {
      const sources = await sourcesLoadedBy(args, code)
      expect(sources.has("cli/commandLine.ts"), args.join(" ")).toBe(true)
      // layers/app/logRecords.ts is no service: the logger every command runs with, a few lines over Effect's Logger.
      const services = [...sources].filter((s) => s.startsWith("layers/") && s !== "layers/app/logRecords.ts")
      expect(services, args.join(" ")).toEqual([])
    }
  })

  it("scan loads the core and its handler, and none of the other services", async () => {
    const sources = await sourcesLoadedBy(["scan", "--json", "--memory-dir", memoryDir])
    for (const s of ["layers/app/Core.ts", "layers/memory/MemoryStore.ts", "cli/inspect.ts"]) expect(sources.has(s), s).toBe(true)
    for (const s of SERVICES_OUTSIDE_THE_CORE) expect(sources.has(s), s).toBe(false)
  })

  it("a command that starts no process does not load Node's child_process (the launcher's and git's are taken on use)", async () => {
    const { agentDir, home } = tempAgent()
    const project = tempDir("pm-lazy-plain-")
    for (const args of [["--version"], ["scan", "--json", "--memory-dir", memoryDir], ["status", "--json", "--cwd", project]]) {
      const r = await runPm(args, { agentDir, home, env: { NODE_OPTIONS: record } })
      expect(r.code, r.stderr).toBe(0)
      const builtins = builtinsLoadedBy(r.stderr)
      expect(builtins, args.join(" ")).toContain("fs")
      expect(builtins, args.join(" ")).not.toContain("child_process")
    }
  })

  it("list, recall --select and bash-check each load their own services and not the others'", async () => {
    const list = await sourcesLoadedBy(["list", "--json", "--memory-dir", memoryDir])
    expect(list.has("layers/memory/MemoryBrowse.ts")).toBe(true)
    for (const s of ["layers/safety/BashGuard.ts", "cli/PiModelRuntime.ts"]) expect(list.has(s), s).toBe(false)
    const recall = await sourcesLoadedBy(["recall", "--json", "--memory-dir", memoryDir, "--select", "alpha.md", "what about alpha"])
    expect(recall.has("layers/recall/Recall.ts")).toBe(true)
    expect(recall.has("layers/safety/BashGuard.ts")).toBe(false)
    const check = await sourcesLoadedBy(["bash-check", "--json", "--memory-dir", memoryDir, "ls -la"])
    expect(check.has("layers/safety/BashGuard.ts")).toBe(true)
    expect(check.has("layers/memory/MemoryBrowse.ts")).toBe(false)
  })

  it("extract loads the background agents' graph when a job waits, and no other command loads it", async () => {
    const graph = ["layers/app/ExtensionApp.ts", "layers/background/BackgroundSession.ts", "cli/extract.ts"]
    const { agentDir, home } = tempAgent()
    const repo = gitRepo()
    const project = JSON.parse((await runPm(["project", "--json", "--cwd", repo], { agentDir, home })).stdout)
    const status = await sourcesLoadedBy(["status", "--json", "--cwd", repo], 0, { agentDir, home })
    for (const s of graph) expect(status.has(s), s).toBe(false)
    // The check of config.json's models is doctor's: status loads neither it nor the model registry.
    for (const s of ["cli/modelCheck.ts", "layers/model/ModelRegistry.ts"]) expect(status.has(s), s).toBe(false)
    // Nothing queued: said without the graph.
    const empty = await sourcesLoadedBy(["extract", "--cwd", repo], 0, { agentDir, home })
    expect(empty.has("cli/extract.ts")).toBe(true)
    expect(empty.has("layers/app/ExtensionApp.ts")).toBe(false)
    const made = makeJob({ session: "s", cwd: repo, queuedAt: 1_000, reason: "test", model: null, cursor: undefined, branch: [] })
    if (made._tag !== "Job") throw new Error("no job")
    const queue = join(project.storageRoot, "memory-roots", project.memoryRootHash, "queue")
    mkdirSync(queue, { recursive: true })
    writeFileSync(join(queue, jobFileName(made.job, "aa")), made.text)
    // No model is configured here: the job stays queued (exit 1), after the graph was built.
    const one = await sourcesLoadedBy(["extract", "--cwd", repo], 1, { agentDir, home })
    for (const s of graph) expect(one.has(s), s).toBe(true)
  })
})
