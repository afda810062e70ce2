/**
 * `pm scan`, `status`, `list` and `search` in their plain forms run without @effect/cli (cli/fastPath.ts), and answer
 * exactly as the full command line answers the same request; every other form is left to the full command line.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { plainForm } from "../../cli/fastPath.ts"
import { loadedBy, recordLoadsOption, sourcesOf } from "../support/moduleLoads.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { tempAgent, tempDir } from "../support/tmp.ts"

describe("which command lines are plain forms", () => {
  let dir: string
  beforeAll(() => {
    dir = tempDir("pm-fast-forms-")
  })

  it("takes a subcommand's own options once each, --json alone, and search's words", () => {
    expect(plainForm(["scan"])).toEqual({ command: "scan", values: new Map(), json: false, words: [] })
    expect(plainForm(["scan", "--json", "--memory-dir", dir, "--cwd", dir])).toEqual({
      command: "scan",
      values: new Map([["--memory-dir", dir], ["--cwd", dir]]),
      json: true,
      words: []
    })
    expect(plainForm(["list", "--limit", "0", "--offset", "12", "--memory-dir", "not/a/dir/yet"])?.values).toEqual(
      new Map([["--limit", "0"], ["--offset", "12"], ["--memory-dir", "not/a/dir/yet"]])
    )
    expect(plainForm(["search", "pnpm", "--json", "migrate"])).toEqual({ command: "search", values: new Map(), json: true, words: ["pnpm", "migrate"] })
    expect(plainForm(["status", "--cwd", dir])?.command).toBe("status")
  })

  it("leaves every other form to the full command line", () => {
    const left = [
      [],
      ["--version"],
      ["help", "scan"],
      ["scan", "--help"],
      ["scan", "-h"],
      ["lint", "--json"],
      ["show", "alpha"],
      ["SCAN"],
      ["scan", "--JSON"],
      ["scan", "--json", "--json"],
      ["scan", "--json", "yes"],
      ["search", "--json", "No", "words"],
      ["scan", `--memory-dir=${dir}`],
      ["scan", "--memory-dir", dir, "--memory-dir", dir],
      ["scan", "--memory-dir"],
      ["scan", "--memory-dir", ""],
      ["scan", "--memory-dir", "-x"],
      ["scan", "--memory-dir", join(dir, "missing")],
      ["status", "--cwd", join(dir, "missing")],
      ["scan", "--limit", "3"],
      ["scan", "extra"],
      ["list", "--limit", "007"],
      ["list", "--limit", "-1"],
      ["list", "--limit", "1e3"],
      ["list", "--limit", "99999999999999999999"],
      ["search"],
      ["search", "--json"],
      ["search", "--", "-word"],
      ["search", "--bogus", "word"],
      ["search", "--limit", "3", "word"],
      ["list", "--wait", "3"],
      ["scan", "--log-level", "debug"]
    ]
    for (const words of left) expect(plainForm(words), words.join(" ")).toBeUndefined()
    // A file where a directory is wanted is @effect/cli's to refuse.
    writeFileSync(join(dir, "file.md"), "x")
    expect(plainForm(["scan", "--memory-dir", join(dir, "file.md")])).toBeUndefined()
    // The browse commands take any text as --memory-dir (their service reports a missing one).
    expect(plainForm(["search", "--memory-dir", join(dir, "file.md"), "w"])).toBeDefined()
  })
})

describe("pm runs a plain form without @effect/cli", () => {
  let record: string
  let memoryDir: string
  let project: string
  beforeAll(() => {
    ensureBuilt()
    record = recordLoadsOption()
    memoryDir = tempDir("pm-fast-")
    project = tempDir("pm-fast-project-")
    mkdirSync(join(project, "sub"))
    writeFileSync(join(memoryDir, "alpha.md"), "---\nname: alpha\ndescription: The alpha topic\ntype: project\n---\nPnpm migrate notes.\n")
    writeFileSync(join(memoryDir, "beta.md"), "---\nname: beta\ndescription: The beta topic\ntype: user\n---\nNothing here.\n")
    writeFileSync(join(memoryDir, "MEMORY.md"), "- [alpha](alpha.md) - the alpha topic\n")
  })

  it("and answers as the full command line does: same output, same exit code", async () => {
    const agent = tempAgent()
    const pairs: ReadonlyArray<readonly [ReadonlyArray<string>, ReadonlyArray<string>]> = [
      [["scan", "--json", "--memory-dir", memoryDir], ["scan", "--json", `--memory-dir=${memoryDir}`]],
      [["scan", "--memory-dir", memoryDir], ["scan", `--memory-dir=${memoryDir}`]],
      [["list", "--json", "--memory-dir", memoryDir, "--limit", "1"], ["list", "--json", `--memory-dir=${memoryDir}`, "--limit=1"]],
      [["search", "--memory-dir", memoryDir, "pnpm", "migrate"], ["search", `--memory-dir=${memoryDir}`, "pnpm", "migrate"]],
      [["search", "--memory-dir", join(memoryDir, "missing"), "pnpm"], ["search", `--memory-dir=${join(memoryDir, "missing")}`, "pnpm"]],
      [["status", "--json", "--cwd", project, "--memory-dir", memoryDir], ["status", "--json", `--cwd=${project}`, `--memory-dir=${memoryDir}`]]
    ]
    for (const [plain, other] of pairs) {
      const fast = await runPm(plain, { ...agent, env: { NODE_OPTIONS: record } })
      const full = await runPm(other, { ...agent, env: { NODE_OPTIONS: record } })
      const fastSources = sourcesOf(loadedBy(fast.stderr))
      const fullSources = sourcesOf(loadedBy(full.stderr))
      // The plain form ran without the command line; the other went through it.
      expect(fastSources.has("cli/general.ts"), plain.join(" ")).toBe(false)
      expect(fastSources.has("cli/commandLine.ts"), plain.join(" ")).toBe(false)
      expect(fullSources.has("cli/general.ts"), other.join(" ")).toBe(true)
      expect(fast.code, plain.join(" ")).toBe(full.code)
      expect(fast.stdout, plain.join(" ")).toBe(full.stdout)
      expect(fast.stderr.replace(/^(LOADED|BUILTINS) .*\n/gm, ""), plain.join(" ")).toBe(full.stderr.replace(/^(LOADED|BUILTINS) .*\n/gm, ""))
    }
  })
})
