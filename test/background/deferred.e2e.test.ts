/**
 * Durable background work through real processes: eight `pi -p` sessions of one project (four in the main checkout,
 * four in a linked worktree) each state a fact while another process holds extract.lock. None waits for the lock:
 * each hands its extraction to the project's queue at once, says so in one line on stderr, and exits well within its
 * bound. `pm status` shows the eight jobs; `pm extract` (dist/pm.js) runs them oldest first with the strict provider's
 * model, and afterwards every fact has its topic file and its index line, and the queue is empty.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { SHUTDOWN_WAIT_MS } from "../../layers/background/lifecycle.ts"
import { startWorker } from "../locks/processes.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { type Reply, type StrictProvider, type StrictRequest, startStrictProvider } from "../support/strictProvider.ts"
import { gitRepo, linkedWorktree, tempDir } from "../support/tmp.ts"
import { type Recorded, taskTurn, topic } from "./harness.ts"
import { exitWithin, kindOf, startPi, textOf } from "./pi.ts"

beforeAll(() => ensureBuilt())

let strict: StrictProvider | undefined
afterEach(async () => {
  await strict?.close()
  strict = undefined
})

const FACT = /The fact is ([a-z0-9]+)\./

/** The extractor as a model would run it: the topic and a read of the index, then the index with its line, then done. */
const extractorScript = (memoryDir: string, seen: Array<string>) => (r: StrictRequest): Reply => {
  const fact = FACT.exec(r.messages.map(textOf).join("\n"))?.[1]
  if (fact === undefined) return { text: "Nothing to save." }
  const index = join(memoryDir, "MEMORY.md")
  switch (taskTurn(r as unknown as Recorded)) {
    case 0:
      seen.push(fact)
      return {
        toolCalls: [
          { name: "write", arguments: { path: join(memoryDir, `fact-${fact}.md`), content: topic(`Fact ${fact}`, `the fact ${fact} the user stated`, "project", `The fact is ${fact}.`) } },
          { name: "read", arguments: { path: index } }
        ]
      }
    case 1: {
      const current = existsSync(index) ? readFileSync(index, "utf8") : ""
      return { toolCalls: [{ name: "write", arguments: { path: index, content: `${current}- [Fact ${fact}](fact-${fact}.md) — the fact ${fact}\n` } }] }
    }
    default:
      return { text: `Saved fact-${fact}.md.` }
  }
}

describe("extractions handed over at a session's end", () => {
  it("8 pi -p sessions (4 + 4 across a linked worktree) while extract.lock is held: all defer at once and say so; pm extract saves every fact and its index line", async () => {
    const agentDir = tempDir("pm-defer-agent-")
    const repo = gitRepo()
    const worktree = linkedWorktree(repo)
    strict = await startStrictProvider({ models: [{ id: "strict-1", contextWindow: 128_000, maxTokens: 16_384 }] })
    writeFileSync(join(agentDir, "models.json"), JSON.stringify(strict.modelsJson(), null, 2))
    const pm = (args: ReadonlyArray<string>, cwd = repo) => runPm([...args, "--cwd", cwd], { agentDir, home: agentDir })
    const project = JSON.parse((await pm(["project", "--json"])).stdout)
    const memoryDir: string = project.memoryDir
    const rootDir = join(project.storageRoot, "memory-roots", project.memoryRootHash)

    // Another process holds extract.lock for as long as the sessions run.
    const holder = startWorker("hold", { locksDir: join(rootDir, "locks"), name: "extract.lock" })
    await holder.waitFor((l) => l["acquired"] === true)

    const seen: Array<string> = []
    const extractor = extractorScript(memoryDir, seen)
    strict.handler = (r) => {
      const kind = kindOf(r)
      if (kind === "selector") return { toolCalls: [{ name: "select_memories", arguments: { selected_memories: [] } }] }
      return kind === "main" ? { text: "Noted." } : extractor(r)
    }

    const facts = Array.from({ length: 8 }, () => `f${Math.random().toString(36).slice(2, 10)}`)
    const runs = facts.map((f, i) => startPi(["-p", `Please remember this for later. The fact is ${f}.`], i < 4 ? repo : worktree, agentDir))
    // The bound of a session's exit: the wait for its own running work, and a margin for a loaded machine.
    const exits = await Promise.all(runs.map((r) => exitWithin(r, SHUTDOWN_WAIT_MS + 60_000)))
    for (const e of exits) {
      expect(e.signal, e.stderr).toBeNull()
      expect(e.code, e.stderr).toBe(0)
      expect(e.stdout).toContain("Noted.")
      const told = e.stderr.split("\n").filter((l) => l.includes("was deferred"))
      expect(told, e.stderr).toHaveLength(1)
      expect(told[0]).toMatch(/^Project memory: the extraction of this session's last 2 messages was deferred; the next interactive session of this project or `pm extract` completes it \(\d+ extractions? queued now\)\.$/)
    }
    // No extraction ran: the lock was never theirs.
    expect(strict.requests.filter((r) => kindOf(r) === "background")).toEqual([])
    const queued = readdirSync(join(rootDir, "queue")).filter((n) => n.endsWith(".json")).sort()
    expect(queued).toHaveLength(8)
    const queuedFacts = queued.map((n) => FACT.exec(readFileSync(join(rootDir, "queue", n), "utf8"))?.[1])
    expect([...queuedFacts].sort()).toEqual([...facts].sort())

    const status = await pm(["status"])
    expect(status.stdout).toMatch(/^Queued: {5}8 extractions handed over by ended sessions, the oldest queued .*; the next interactive session of this project runs them, pm extract now$/m)

    holder.child.kill("SIGKILL")
    await holder.exited
    const drained = await pm(["extract"], worktree)
    expect(drained.code, `${drained.stdout}\n${drained.stderr}`).toBe(0)
    expect(drained.stdout).toContain("Ran 8 queued extractions for")
    expect(drained.stdout).toContain("The queue is empty.")
    expect(drained.stdout.match(/^- saved 2 files \(fact-f[a-z0-9]+\.md, MEMORY\.md\)/gm)).toHaveLength(8)
    // Oldest first: the order the jobs were queued in.
    expect(seen).toEqual(queuedFacts)

    const index = readFileSync(join(memoryDir, "MEMORY.md"), "utf8")
    for (const f of facts) {
      expect(readFileSync(join(memoryDir, `fact-${f}.md`), "utf8")).toContain(`The fact is ${f}.`)
      expect(index).toContain(`- [Fact ${f}](fact-${f}.md)`)
    }
    expect(readdirSync(join(rootDir, "queue")).filter((n) => n.endsWith(".json"))).toEqual([])
    expect((await pm(["status"])).stdout).toMatch(/^Queued: {5}none waiting$/m)
    // Nothing left: a second run says so and exits 0.
    const again = await pm(["extract"])
    expect(again.code).toBe(0)
    expect(again.stdout.trim()).toBe(`Nothing is queued for ${repo}.`)
  })
})
