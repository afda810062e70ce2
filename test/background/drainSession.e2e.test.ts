/**
 * A session of the real Pi host (test/background/harness.ts, the strict provider) runs the jobs that ended sessions
 * handed to its project's queue, in the background after its start, when it is an interactive one: the job's fact
 * is saved and the job leaves the queue. A one-shot run (print mode) leaves them: it would end before a job does.
 */
import { existsSync, mkdirSync, readFileSync, watch, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { drainsQueue } from "../../extension/session.ts"
import { jobFileName, makeJob } from "../../src/background/queue.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { type Harness, startHarness, taskTurn, topic } from "./harness.ts"

beforeAll(() => ensureBuilt())

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

/** Queues a job stating `fact` for the harness's project; returns its path. */
const queueJob = async (harness: Harness, fact: string): Promise<string> => {
  const project = JSON.parse((await runPm(["project", "--json", "--cwd", harness.cwd], { agentDir: harness.agentDir, home: harness.agentDir })).stdout)
  const made = makeJob({
    session: "ended-session",
    cwd: harness.cwd,
    queuedAt: Date.now(),
    reason: "extract.lock was held by another session when the session ended",
    model: `${harness.providerName}/strict-1`,
    cursor: undefined,
    branch: [
      { type: "message", id: "u1", message: { role: "user", content: `Please remember this for later. The fact is ${fact}.` } },
      { type: "message", id: "a1", message: { role: "assistant", content: [{ type: "text", text: "Noted." }] } }
    ]
  })
  if (made._tag !== "Job") throw new Error("no job")
  const dir = join(project.storageRoot, "memory-roots", project.memoryRootHash, "queue")
  mkdirSync(dir, { recursive: true })
  const path = join(dir, jobFileName(made.job, "aa"))
  writeFileSync(path, made.text)
  return path
}

/** Resolves once `path` is gone (watching its folder). */
const gone = (path: string): Promise<void> =>
  new Promise((resolve) => {
    const watcher = watch(join(path, ".."), () => check())
    const check = () => {
      if (existsSync(path)) return
      watcher.close()
      resolve()
    }
    check()
  })

const saving = (memoryDir: string) => (r: any) => {
  const fact = /The fact is ([a-z-]+)\./.exec(r.messages.map((m: any) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n"))?.[1]
  return taskTurn(r) === 0 && fact !== undefined
    ? { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "write", arguments: { path: join(memoryDir, `fact-${fact}.md`), content: topic(`Fact ${fact}`, `the fact ${fact}`, "project", `The fact is ${fact}.`) } }], stopReason: "toolUse" } as any
    : { role: "assistant", content: [{ type: "text", text: "Saved." }], stopReason: "stop" } as any
}

describe("a session runs its project's queue", () => {
  it("an interactive session runs a queued job in the background after its start: the fact is saved, the job leaves the queue", async () => {
    h = await startHarness({ mode: "tui" })
    h.background = saving(h.memoryDir)
    const job = await queueJob(h, "deploys-on-friday")
    await h.runtime.newSession()
    await gone(job)
    expect(readFileSync(join(h.memoryDir, "fact-deploys-on-friday.md"), "utf8")).toContain("The fact is deploys-on-friday.")
    expect(h.ofKind("background")).toHaveLength(2)
  })

  it("a one-shot run (print or json mode) leaves the queue for an interactive session or pm extract", () => {
    expect(["tui", "rpc", "print", "json"].map((m) => [m, drainsQueue(m as never)])).toEqual([["tui", true], ["rpc", true], ["print", false], ["json", false]])
  })
})
