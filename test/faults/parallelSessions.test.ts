/**
 * Parallel sessions drop no memory: 4 real `pi -p` sessions in one project, each stating its own fact, with a
 * scripted model (test/fixtures/providers/extractingFaux.mjs) that answers all four before any extraction ends, so
 * the extractions after the first find extract.lock held. A session whose extraction waits for the lock when it ends
 * does not wait: it hands the extraction to the project's queue and says so on stderr; `pm extract` (with the same
 * scripted model, PM_EXTENSIONS) completes them. All four topics land, each extracted once.
 */
import { spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, repoRoot, runPm } from "../support/pm.ts"
import { gitRepo, tempDir } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

const piBin = join(repoRoot, "node_modules", ".bin", "pi")
const provider = join(repoRoot, "test", "fixtures", "providers", "extractingFaux.mjs")
const SESSIONS = 4

const runPi = (prompt: string, cwd: string, env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(piBin, ["--no-session", "-e", provider, "-e", join(repoRoot, "dist", "extension.ts"), "--model", "faux/faux-1", "-p", prompt], {
      cwd,
      env: { ...process.env, ...env, PI_OFFLINE: "1", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (c: string) => void (stdout += c))
    child.stderr.setEncoding("utf8").on("data", (c: string) => void (stderr += c))
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
  })

describe("parallel pi sessions", () => {
  it(`${SESSIONS} concurrent pi -p sessions each state a fact: the extractions that find the lock held are queued, pm extract runs them, all ${SESSIONS} topics land`, async () => {
    const agentDir = tempDir("pm-pi-agent-")
    const repo = gitRepo()
    const log = join(agentDir, "faux.log")
    const env = {
      PI_CODING_AGENT_DIR: agentDir,
      HOME: agentDir,
      PM_FAUX_LOG: log,
      PM_FAUX_BARRIER: join(agentDir, "barrier"),
      PM_FAUX_SESSIONS: String(SESSIONS)
    }
    const facts = Array.from({ length: SESSIONS }, (_, i) => `fact${i}-${Math.random().toString(36).slice(2, 8)}`)
    const results = await Promise.all(facts.map((f) => runPi(`Please remember this for later. The fact is ${f}.`, repo, env)))
    for (const r of results) expect(r.code, r.stderr).toBe(0)
    const deferred = results.filter((r) => r.stderr.includes("was deferred; the next interactive session of this project or `pm extract` completes it"))
    // The first extraction holds the lock until every session has answered: at least the last to end found it held.
    expect(deferred.length).toBeGreaterThan(0)
    const drained = await runPm(["extract", "--cwd", repo], { agentDir, home: agentDir, env: { ...env, PM_EXTENSIONS: provider } })
    expect(drained.code, `${drained.stdout}\n${drained.stderr}`).toBe(0)
    expect(drained.stdout).toContain(`Ran ${deferred.length} queued extraction`)
    const events = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { event: string; at: number; fact?: string })
    // Contention happened: every session had answered (and so dispatched its extraction) before the first ended.
    const firstEnd = Math.min(...events.filter((e) => e.event === "extract-end").map((e) => e.at))
    expect(events.filter((e) => e.event === "answered" && e.at < firstEnd)).toHaveLength(SESSIONS)
    const project = JSON.parse((await runPm(["project", "--json", "--cwd", repo], { agentDir, home: agentDir })).stdout)
    for (const f of facts) {
      const file = join(project.memoryDir, `fact-${f}.md`)
      expect(existsSync(file), `${f} was not saved`).toBe(true)
      expect(readFileSync(file, "utf8")).toContain(`The fact is ${f}.`)
    }
    expect(events.filter((e) => e.event === "extract-end")).toHaveLength(SESSIONS)
    // Every wait in the scripted model ended on its event, none on its bound.
    expect(events.filter((e) => e.event === "wait-gave-up")).toEqual([])
  })
})
