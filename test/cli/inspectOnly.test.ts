/**
 * `pm project`, `pm status` and `pm doctor` only look: on a project that has no memory yet they create nothing under
 * the storage root, and they report the same location a later write would claim. Once the memory holds topics,
 * `pm scan` keeps its manifest in the memory root's state folder, and the next process sees what changed since.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
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

describe("the kept manifest of a memory with topics", () => {
  it("is written by pm scan beside the memory root's other state, named by the hash pm project reports", async () => {
    const agent = tempAgent()
    const repo = gitRepo()
    const env = { PI_CODING_AGENT_DIR: agent.agentDir, HOME: agent.home }
    const where = JSON.parse((await runPm(["project", "--json", "--cwd", repo], { env })).stdout)
    mkdirSync(where.memoryDir, { recursive: true })
    writeFileSync(join(where.memoryDir, "a.md"), "---\nname: A\ndescription: first\nmetadata:\n  type: user\n---\nBody.\n")
    const first = await runPm(["scan", "--json", "--cwd", repo], { env })
    expect(JSON.parse(first.stdout).topics.map((t: { filename: string }) => t.filename)).toEqual(["a.md"])
    const kept = JSON.parse(readFileSync(join(agent.storageRoot, "memory-roots", where.memoryRootHash, "topic-manifest.json"), "utf8"))
    expect(kept.format).toBe("pi-project-memory topic manifest")
    expect(kept.memoryDir).toBe(where.memoryDir)
    // A new process over the kept file sees what changed since.
    writeFileSync(join(where.memoryDir, "a.md"), "---\nname: A\ndescription: FIRST\nmetadata:\n  type: user\n---\nBody.\n")
    writeFileSync(join(where.memoryDir, "b.md"), "---\nname: B\ndescription: second\nmetadata:\n  type: user\n---\nBody.\n")
    const second = JSON.parse((await runPm(["scan", "--json", "--cwd", repo], { env })).stdout)
    expect(second.topics.map((t: { description: string }) => t.description).sort()).toEqual(["FIRST", "second"])
  })
})
