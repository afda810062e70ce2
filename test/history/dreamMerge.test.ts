/**
 * The dream merges a topic's other-machine version (kept beside it by a sync) at its next run, in the real Pi host
 * with a scripted model, and the dream is one commit of the memory history naming its kind, session and files.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { call, calls, type Harness, type Recorded, say, startHarness, taskTurn, textOf, topic } from "../background/harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const isDream = (r: Recorded) => r.messages.some((m: any) => m.role === "user" && textOf(m).includes("# Memory consolidation"))

const OURS = topic("Deploys", "how deploys run", "project", "Deploys need the VPN on.")
const THEIRS = topic("Deploys", "how deploys run", "project", "Deploys run from the release branch only.")
const MERGED = topic("Deploys", "how deploys run", "project", "Deploys need the VPN on.\nDeploys run from the release branch only.")

describe("the dream and a topic changed on two machines", () => {
  it("is told what a conflict file is, merges it into the topic, deletes it, and commits that as one dream commit", async () => {
    const base = join(realpathSync(tmpdir()), `pm-dreammerge-${process.pid}-${Math.random().toString(36).slice(2)}`)
    mkdirSync(base)
    h = await startHarness({
      base,
      sessionDir: join(base, "sessions"),
      config: { history: { enabled: true } },
      memory: { "MEMORY.md": "- [Deploys](deploys.md) - how deploys run\n", "deploys.md": OURS, "deploys.conflict-beta.md": THEIRS }
    })
    const dir = h.memoryDir
    h.background = (r) => {
      if (!isDream(r)) return say("Nothing to save.")
      const turn = taskTurn(r)
      if (turn === 0) return calls(["read", { path: join(dir, "deploys.md") }], ["read", { path: join(dir, "deploys.conflict-beta.md") }])
      if (turn === 1) return call("write", { path: join(dir, "deploys.md"), content: MERGED })
      if (turn === 2) return call("bash", { command: `rm ${join(dir, "deploys.conflict-beta.md")}` })
      return say("Merged the other machine's version of deploys.md and removed it.")
    }
    await h.prompt("we talk about the deploy schedule today")
    await h.prompt("/memory dream")
    const dream = h.ofKind("background").filter(isDream)
    expect(textOf(dream[0]!.messages.at(-1))).toContain("`<topic>.conflict-<machine>.md` is another machine's version of `<topic>.md`")
    expect(readFileSync(join(dir, "deploys.md"), "utf8")).toBe(MERGED)
    expect(existsSync(join(dir, "deploys.conflict-beta.md"))).toBe(false)

    const roots = join(h.agentDir, "project-memory", "memory-roots")
    const gitDir = join(roots, readdirSync(roots)[0]!, "history.git")
    const log = execFileSync("git", [`--git-dir=${gitDir}`, "log", "-z", "--format=%B"], { encoding: "utf8" }).split("\0").filter((b) => b.trim() !== "")
    expect(log[0]).toMatch(/^dream: dream consolidated memory \(deploys\.conflict-beta\.md, deploys\.md\)/)
    expect(log[0]).toMatch(/Kind: dream\nSession: \S+/)
    expect(log[0]).toContain("deleted deploys.conflict-beta.md")
    expect(log[0]).toContain("changed deploys.md")
  })
})
