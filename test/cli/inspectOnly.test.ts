/**
 * `pm project`, `pm status` and `pm doctor` only look: on a project that has no memory yet they create nothing under
 * the storage root, and they report the same location a later write would claim.
 */
import { existsSync, readdirSync } from "node:fs"
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { gitRepo, tempAgent } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

const listing = (dir: string): Array<string> => (existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).sort() : [])

describe("inspection commands", () => {
  it("create no directory, marker, index or state on a fresh project", async () => {
    const agent = tempAgent()
    const repo = gitRepo()
    const env = { PI_CODING_AGENT_DIR: agent.agentDir, HOME: agent.home }
    for (const command of [["project", "--json"], ["status", "--json"], ["doctor", "--json"], ["status"], ["doctor"]]) {
      const r = await runPm([...command, "--cwd", repo], { env })
      expect([0, 1], `${command.join(" ")}: ${r.stderr}`).toContain(r.code)
      expect(listing(agent.storageRoot), command.join(" ")).toEqual([])
    }
  })

  it("report the location that scanning then uses, and scanning creates nothing", async () => {
    const agent = tempAgent()
    const repo = gitRepo()
    const env = { PI_CODING_AGENT_DIR: agent.agentDir, HOME: agent.home }
    const before = JSON.parse((await runPm(["project", "--json", "--cwd", repo], { env })).stdout)
    const scan = await runPm(["scan", "--json", "--cwd", repo], { env })
    expect(scan.code).toBe(0)
    expect(JSON.parse(scan.stdout).memoryDir).toBe(before.memoryDir)
    expect(existsSync(before.memoryDir)).toBe(false)
    const after = JSON.parse((await runPm(["project", "--json", "--cwd", repo], { env })).stdout)
    expect(after).toEqual(before)
  })
})
