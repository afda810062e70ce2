/**
 * `pm` loads what the command it runs needs: the command line alone for help and usage, the core services for
 * `scan`, and the browse, recall or guard services only for their own subcommands. Observed through Node's module
 * hooks in the child process and the bundle's source maps, not by timing.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { loadedBy, recordLoadsOption, sourcesOf } from "../support/moduleLoads.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { tempDir } from "../support/tmp.ts"

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
  const sourcesLoadedBy = async (args: ReadonlyArray<string>, expectedCode = 0) => {
    const r = await runPm(args, { env: { NODE_OPTIONS: record } })
    expect(r.code, r.stderr).toBe(expectedCode)
    const loaded = loadedBy(r.stderr)
    expect(loaded).toContain("pm-main.js")
    return sourcesOf(loaded)
  }

  it("help, version and a usage error load the command line and no service", async () => {
    for (const [args, code] of [[["--help"], 0], [["--version"], 0], [["scan", "--help"], 0], [["scan", "--bogus"], 2]] as const) {
      const sources = await sourcesLoadedBy(args, code)
      expect(sources.has("cli/commandLine.ts"), args.join(" ")).toBe(true)
      const services = [...sources].filter((s) => s.startsWith("layers/"))
      expect(services, args.join(" ")).toEqual([])
    }
  })

  it("scan loads the core and its handler, and none of the other services", async () => {
    const sources = await sourcesLoadedBy(["scan", "--json", "--memory-dir", memoryDir])
    for (const s of ["layers/app/Core.ts", "layers/memory/MemoryStore.ts", "cli/inspect.ts"]) expect(sources.has(s), s).toBe(true)
    for (const s of SERVICES_OUTSIDE_THE_CORE) expect(sources.has(s), s).toBe(false)
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
})
