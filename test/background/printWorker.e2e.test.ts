/**
 * A print-mode run with the background worker on (PM_QUEUE_WORKER=1; the suite turns it off): a real `pi -p` states
 * a fact and exits without waiting for its extraction (no background request reaches the provider while Pi runs; the
 * provider holds every one until Pi has exited), says in one stderr line that a background worker took
 * the work, and the detached `pm extract --worker` it started saves the fact and its index line, empties the queue,
 * logs what it did and ends: no process of this agent directory is left. A run with nothing of its own to queue still
 * starts the worker when an older run left a job. A print-only person's memory is consolidated too: the worker
 * checks the dream against the session folder of the run that started it and runs it when due.
 */
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { SHUTDOWN_WAIT_MS } from "../../layers/background/lifecycle.ts"
import * as Effect from "effect/Effect"
import { makeQueueStore } from "../../layers/background/queueStore.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { makeJob } from "../../src/background/queue.ts"
import { QUEUE_WORKER_LOG } from "../../src/background/queueWorker.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { type Reply, type StrictProvider, type StrictRequest, startStrictProvider } from "../support/strictProvider.ts"
import { gitRepo, tempDir } from "../support/tmp.ts"
import { type Recorded, taskTurn, topic } from "./harness.ts"
import { exitWithin, kindOf, startPi, textOf } from "./pi.ts"

beforeAll(() => ensureBuilt())

let strict: StrictProvider | undefined
afterEach(async () => {
  await strict?.close()
  strict = undefined
})

/** Live processes whose environment names `agentDir` (every process a Pi of that agent directory started). */
const processesOf = (agentDir: string): ReadonlyArray<number> => {
  const mark = `\0PI_CODING_AGENT_DIR=${agentDir}\0`
  return readdirSync("/proc").filter((n) => /^\d+$/.test(n)).map(Number).filter((pid) => {
    try {
      return `\0${readFileSync(`/proc/${pid}/environ`, "utf8")}\0`.includes(mark)
    } catch {
      return false
    }
  })
}

/** Resolves when process `pid` (not our child) has ended: coreutils' tail follows it. */
const ended = (pid: number) => new Promise<void>((resolve) => spawn("tail", [`--pid=${pid}`, "-f", "/dev/null"], { stdio: "ignore" }).on("exit", () => resolve()))

/** The strict provider's script: nothing selected, "Noted." to the main agent, the extractor saving `fact` only after Pi exited. */
const script = (memoryDir: string, fact: string, afterPi: Promise<void>, whilePiRan: Array<StrictRequest> = []) => async (r: StrictRequest): Promise<Reply> => {
  const kind = kindOf(r)
  if (kind === "selector") return { toolCalls: [{ name: "select_memories", arguments: { selected_memories: [] } }] }
  if (kind === "main") return { text: "Noted." }
  // Recorded before the wait: a background request that reaches us while Pi still runs is one Pi started itself.
  whilePiRan.push(r)
  await afterPi
  if (!r.messages.map(textOf).join("\n").includes(`The fact is ${fact}.`)) return { text: "Nothing to save." }
  switch (taskTurn(r as unknown as Recorded)) {
    case 0:
      return { toolCalls: [{ name: "write", arguments: { path: join(memoryDir, `fact-${fact}.md`), content: topic(`Fact ${fact}`, `the fact ${fact}`, "project", `The fact is ${fact}.`) } }] }
    case 1:
      return { toolCalls: [{ name: "write", arguments: { path: join(memoryDir, "MEMORY.md"), content: `- [Fact ${fact}](fact-${fact}.md) — the fact ${fact}\n` } }] }
    default:
      return { text: `Saved fact-${fact}.md.` }
  }
}

/** A project, its agent folder with the strict provider's model, where its memory and root live, and a fresh fact. */
const workerProject = async () => {
  const agentDir = tempDir("pm-worker-agent-")
  const repo = gitRepo()
  const provider = await startStrictProvider({ models: [{ id: "strict-1", contextWindow: 128_000, maxTokens: 16_384 }] })
  strict = provider
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(provider.modelsJson(), null, 2))
  const project = JSON.parse((await runPm(["project", "--json", "--cwd", repo], { agentDir, home: agentDir })).stdout)
  return {
    provider,
    agentDir,
    repo,
    memoryDir: project.memoryDir as string,
    rootDir: join(project.storageRoot, "memory-roots", project.memoryRootHash),
    fact: `f${Math.random().toString(36).slice(2, 10)}`
  }
}

describe("pi -p with the background worker", () => {
  it("a run with nothing of its own to queue still starts the worker for a job an older run left, which saves it", async () => {
    const { provider, agentDir, repo, memoryDir, rootDir, fact } = await workerProject()
    // A job an earlier session handed over, still waiting.
    const made = makeJob({
      session: "older-session",
      cwd: repo,
      queuedAt: Date.now(),
      reason: "the session ended before these messages were extracted",
      model: null,
      cursor: undefined,
      branch: [
        { type: "message", id: "u1", message: { role: "user", content: `Please remember this for later. The fact is ${fact}.` } },
        { type: "message", id: "a1", message: { role: "assistant", content: [{ type: "text", text: "Noted." }] } }
      ]
    })
    if (made._tag !== "Job") throw new Error("no job")
    await Effect.runPromise(makeQueueStore(makeNodeFileSystem()).enqueue(rootDir, made.job, made.text))

    let piExited!: () => void
    const afterPi = new Promise<void>((resolve) => (piExited = resolve))
    provider.handler = script(memoryDir, fact, afterPi)
    // Two words: nothing this run would extract.
    const run = startPi(["-p", "hello there"], repo, agentDir, { env: { PM_QUEUE_WORKER: "1" } })
    const exit = await exitWithin(run, SHUTDOWN_WAIT_MS + 60_000)
    piExited()
    expect(exit.code, exit.stderr).toBe(0)
    expect(exit.stderr).not.toContain("background worker")
    const pid = Number(/ worker (\d+) started for /.exec(readFileSync(join(rootDir, QUEUE_WORKER_LOG), "utf8"))?.[1])
    expect(pid).toBeGreaterThan(0)
    await ended(pid)
    expect(readFileSync(join(memoryDir, `fact-${fact}.md`), "utf8")).toContain(`The fact is ${fact}.`)
    expect(readdirSync(join(rootDir, "queue")).filter((n) => n.endsWith(".json"))).toEqual([])
    expect(processesOf(agentDir)).toEqual([])
  })

  it("exits without waiting for its extraction; the detached worker saves the fact and its index line, then ends", async () => {
    const { provider, agentDir, repo, memoryDir, rootDir, fact } = await workerProject()

    let piExited!: () => void
    const afterPi = new Promise<void>((resolve) => (piExited = resolve))
    const index = join(memoryDir, "MEMORY.md")
    // Background work is answered only once Pi has gone: a Pi waiting for it would never exit within its bound.
    const whilePiRan: Array<StrictRequest> = []
    provider.handler = script(memoryDir, fact, afterPi, whilePiRan)

    const run = startPi(["-p", `Please remember this for later. The fact is ${fact}.`], repo, agentDir, { env: { PM_QUEUE_WORKER: "1" } })
    // A bound against a hang only; that Pi did not wait for an extraction is shown by the requests it sent, not by time.
    const exit = await exitWithin(run, SHUTDOWN_WAIT_MS + 60_000)
    // An extraction Pi started and waited for would have sent its first request before Pi exited.
    expect(whilePiRan).toEqual([])
    piExited()
    expect(exit.signal, exit.stderr).toBeNull()
    expect(exit.code, exit.stderr).toBe(0)
    expect(exit.stdout).toContain("Noted.")
    const told = exit.stderr.split("\n").filter((l) => l.includes("background worker"))
    expect(told, exit.stderr).toEqual([
      "Project memory: the extraction of this session's last 2 messages was handed to a background worker (pm extract), which saves what it holds after this run ends (1 extraction queued now)."
    ])
    expect(exit.stderr).not.toContain("was deferred")

    // The worker's pid, as the run that started it logged it.
    const log = () => readFileSync(join(rootDir, QUEUE_WORKER_LOG), "utf8")
    const pid = Number(/ worker (\d+) started for /.exec(log())?.[1])
    expect(pid).toBeGreaterThan(0)
    await ended(pid)

    expect(readFileSync(join(memoryDir, `fact-${fact}.md`), "utf8")).toContain(`The fact is ${fact}.`)
    expect(readFileSync(index, "utf8")).toContain(`- [Fact ${fact}](fact-${fact}.md)`)
    expect(readdirSync(join(rootDir, "queue")).filter((n) => n.endsWith(".json"))).toEqual([])
    expect(log()).toMatch(/- saved 2 files \(fact-f[a-z0-9]+\.md, MEMORY\.md\)/)
    expect(log()).toMatch(new RegExp(`The worker ${pid} ends\\.`))
    expect(existsSync(join(rootDir, "locks", "queue.lock"))).toBe(false)
    expect(processesOf(agentDir)).toEqual([])
    // The job ran once, in the worker: one extraction's two turns (it ends once its writes landed and are indexed).
    expect(provider.requests.filter((r) => kindOf(r) === "background" && r.messages.map(textOf).join("\n").includes(fact)).length).toBe(2)
  })

  it("runs the dream when it is due, with the session folder of the run that started it", async () => {
    const { provider, agentDir, repo, memoryDir, rootDir, fact } = await workerProject()
    // Never dreamed, and five other sessions of this project in the folder Pi picks for it: the dream is due.
    const sessions = join(agentDir, "sessions", `--${repo.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`)
    mkdirSync(sessions, { recursive: true })
    const others = ["s1", "s2", "s3", "s4", "s5"].map((id) => `older-${id}`)
    for (const id of others) writeFileSync(join(sessions, `${id}.jsonl`), `${JSON.stringify({ type: "session", id, cwd: repo })}\n`)

    let piExited!: () => void
    const afterPi = new Promise<void>((resolve) => (piExited = resolve))
    const extraction = script(memoryDir, fact, afterPi)
    const isDream = (r: StrictRequest) => r.messages.some((m) => textOf(m).includes("# Memory consolidation"))
    provider.handler = async (r) => (isDream(r) ? { text: "Nothing to consolidate." } : extraction(r))

    const run = startPi(["-p", `Please remember this for later. The fact is ${fact}.`], repo, agentDir, { env: { PM_QUEUE_WORKER: "1" } })
    const exit = await exitWithin(run, SHUTDOWN_WAIT_MS + 60_000)
    piExited()
    expect(exit.code, exit.stderr).toBe(0)
    const log = () => readFileSync(join(rootDir, QUEUE_WORKER_LOG), "utf8")
    const pid = Number(/ worker (\d+) started for /.exec(log())?.[1])
    await ended(pid)

    expect(readFileSync(join(memoryDir, `fact-${fact}.md`), "utf8")).toContain(`The fact is ${fact}.`)
    const dreams = provider.requests.filter(isDream)
    expect(dreams.length).toBe(1)
    // The dream was given the sessions of this project's folder, the run's own among them.
    const told = dreams[0]!.messages.map(textOf).join("\n")
    for (const id of others) expect(told).toContain(id)
    expect(log()).toMatch(/Last dream:\s+\S+ turn: /)
    expect(processesOf(agentDir)).toEqual([])
  })

  it("checks the dream but does not run it when it is not due", async () => {
    const { provider, agentDir, repo, rootDir, memoryDir, fact } = await workerProject()
    let piExited!: () => void
    const afterPi = new Promise<void>((resolve) => (piExited = resolve))
    provider.handler = script(memoryDir, fact, afterPi)
    // No other session of this project: the dream is not due.
    const run = startPi(["-p", `Please remember this for later. The fact is ${fact}.`], repo, agentDir, { env: { PM_QUEUE_WORKER: "1" } })
    const exit = await exitWithin(run, SHUTDOWN_WAIT_MS + 60_000)
    piExited()
    expect(exit.code, exit.stderr).toBe(0)
    const log = () => readFileSync(join(rootDir, QUEUE_WORKER_LOG), "utf8")
    await ended(Number(/ worker (\d+) started for /.exec(log())?.[1]))
    expect(log()).toContain("No dream is due.")
    expect(provider.requests.filter((r) => r.messages.some((m) => textOf(m).includes("# Memory consolidation")))).toEqual([])
  })
})
