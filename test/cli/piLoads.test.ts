/**
 * `pm status` says whether Pi loads project memory, as Pi's own package manager resolves it: after `pi install` of
 * this checkout and after `pi remove`, from the agent folder's extensions/, switched off by a package filter, named
 * but not installed, and from a project's .pi/settings.json only when Pi trusts the project.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { run } from "../support/install.ts"
import { ensureBuilt, repoRoot, runPm } from "../support/pm.ts"
import { gitRepo, tempAgent } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

const piBin = join(repoRoot, "node_modules", ".bin", "pi")

const setup = () => {
  const agent = tempAgent()
  const repo = gitRepo()
  const env = { PI_OFFLINE: "1" }
  const status = async () => {
    const text = await runPm(["status", "--cwd", repo], { agentDir: agent.agentDir, home: agent.home, env })
    expect(text.code, text.stderr).toBe(0)
    const json = await runPm(["status", "--cwd", repo, "--json"], { agentDir: agent.agentDir, home: agent.home, env })
    return { line: text.stdout.split("\n").find((l) => l.startsWith("Pi:")) ?? "", loads: JSON.parse(json.stdout).piLoads }
  }
  const pi = async (...args: Array<string>) => {
    const r = await run(piBin, args, { cwd: repo, env: { ...process.env, PI_CODING_AGENT_DIR: agent.agentDir, HOME: agent.home, PI_OFFLINE: "1" } })
    expect(r.code, r.stderr).toBe(0)
  }
  const settings = (value: unknown) => writeFileSync(join(agent.agentDir, "settings.json"), JSON.stringify(value))
  return { agent, repo, status, pi, settings }
}

describe("pm status: whether Pi loads project memory", () => {
  it("after pi install of this checkout it does, after pi remove it does not, and says how to add it", async () => {
    const s = setup()
    const none = await s.status()
    expect(none.loads).toEqual({ state: "absent" })
    expect(none.line).toBe(
      `Pi:         does not load project memory: nothing in ${join(s.agent.agentDir, "settings.json")} or ${join(s.agent.agentDir, "extensions")} is this package. ` +
        "To add it: pi install npm:pi-project-memory (for one run: pi -e PATH)"
    )
    await s.pi("install", repoRoot)
    const installed = await s.status()
    expect(installed.loads).toMatchObject({ state: "loaded", path: join(repoRoot, "index.ts"), scope: "user" })
    expect(installed.line).toMatch(/^Pi: +loads project memory from .*\/index\.ts \(.*, in .*settings\.json\)$/)
    await s.pi("remove", repoRoot)
    expect((await s.status()).loads).toEqual({ state: "absent" })
  })

  it("from the agent folder's extensions/; switched off by a package filter; named but not installed", async () => {
    const s = setup()
    mkdirSync(join(s.agent.agentDir, "extensions"))
    symlinkSync(repoRoot, join(s.agent.agentDir, "extensions", "memory"))
    const found = await s.status()
    expect(found.loads).toMatchObject({ state: "loaded", source: "auto" })
    expect(found.line).toContain(`(found in ${join(s.agent.agentDir, "extensions")})`)

    const t = setup()
    t.settings({ packages: [{ source: repoRoot, extensions: [] }] })
    const off = await t.status()
    expect(off.loads).toMatchObject({ state: "switched-off" })
    expect(off.line).toContain("but its settings switch the extension off, so Pi does not load it")

    t.settings({ packages: ["npm:pi-project-memory"] })
    const missing = await t.status()
    expect(missing.loads).toEqual({ state: "not-installed", source: "npm:pi-project-memory" })
    expect(missing.line).toContain("names npm:pi-project-memory, which is not installed (pi install npm:pi-project-memory installs it)")
  })

  it("a project's .pi/settings.json counts only when Pi trusts the project", async () => {
    const s = setup()
    mkdirSync(join(s.repo, ".pi"))
    writeFileSync(join(s.repo, ".pi", "settings.json"), JSON.stringify({ packages: [repoRoot] }))
    expect((await s.status()).loads).toEqual({ state: "absent" })
    writeFileSync(join(s.agent.agentDir, "trust.json"), JSON.stringify({ [s.repo]: true }))
    const trusted = await s.status()
    expect(trusted.loads).toMatchObject({ state: "loaded", scope: "project" })
    expect(trusted.line).toContain("in the project's .pi/settings.json")
  })
})
