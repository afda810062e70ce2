/**
 * Change notices across a restart, in real `pi` processes: a `pi -p` whose extraction writes a topic is killed
 * (SIGKILL) right after the write, while its task still waits on the model; `pi --continue -p` then resumes the
 * session from its file, and its request to the main model carries the notice of that write exactly once. A third
 * run resumes again (after a normal quit) and still sees it once: a record is neither lost nor repeated.
 *
 * The model is the strict HTTP provider (test/support/strictProvider.ts), declared in the agent directory's
 * models.json, as a user declares an OpenAI-compatible endpoint.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, repoRoot, runPm } from "../support/pm.ts"
import { type Reply, type Fault, type StrictProvider, type StrictRequest, startStrictProvider } from "../support/strictProvider.ts"
import { gitRepo, tempDir } from "../support/tmp.ts"
import { SELECTOR_MARK, TOOLS_HEADING, topic } from "./harness.ts"

beforeAll(() => ensureBuilt())

const PI = join(repoRoot, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js")
const NOTICE = "Memory files changed by the background extraction"

let strict: StrictProvider | undefined
afterEach(async () => {
  await strict?.close()
  strict = undefined
})

const textOf = (m: any): string =>
  typeof m.content === "string" ? m.content : (m.content ?? []).filter((b: any) => b.type === "text").map((b: any) => b.text).join("")

const startPi = (args: ReadonlyArray<string>, cwd: string, agentDir: string) => {
  const child: ChildProcess = spawn(process.execPath, [PI, "-e", join(repoRoot, "dist", "extension.ts"), "--model", "strict/strict-1", ...args], {
    cwd,
    env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, HOME: agentDir, PI_OFFLINE: "1", NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr!.setEncoding("utf8").on("data", (c: string) => void (stderr += c))
  child.stdout!.resume()
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, stderr }))
  )
  return { child, exited }
}

const kindOf = (r: StrictRequest): "selector" | "background" | "main" =>
  r.system.includes(SELECTOR_MARK)
    ? "selector"
    : r.system.includes(TOOLS_HEADING) || r.messages.some((m: any) => m.role === "user" && textOf(m).includes(TOOLS_HEADING))
    ? "background"
    : "main"

describe("change notices across a restart of pi", () => {
  it("killed right after the write: the resumed session's next request holds the notice once, and again after a quit", async () => {
    const agentDir = tempDir("pm-restart-agent-")
    const repo = gitRepo()
    strict = await startStrictProvider({ models: [{ id: "strict-1", contextWindow: 128_000, maxTokens: 16_384 }] })
    writeFileSync(join(agentDir, "models.json"), JSON.stringify(strict.modelsJson(), null, 2))
    const project = JSON.parse((await runPm(["project", "--json", "--cwd", repo], { agentDir, home: agentDir })).stdout)
    const memoryDir: string = project.memoryDir

    let firstRun = true
    let written!: () => void
    const writeDone = new Promise<void>((r) => (written = r))
    strict.handler = (r): Reply | Fault => {
      const kind = kindOf(r)
      if (kind === "selector") return { toolCalls: [{ name: "select_memories", arguments: { selected_memories: [] } }] }
      if (kind === "main") return { text: "ok" }
      if (!firstRun) return { text: "Nothing to save." }
      const results = r.messages.filter((m: any) => m.role === "toolResult")
      if (results.length === 0) {
        return { toolCalls: [{ name: "write", arguments: { path: join(memoryDir, "deploys.md"), content: topic("Deploys", "deploys happen on Fridays only") } }] }
      }
      // The write is done and its result is back: the task now waits on the model, and pi is killed here.
      written()
      return { fault: "hang" }
    }

    const first = startPi(["-p", "please remember that deploys happen on Fridays"], repo, agentDir)
    await writeDone
    first.child.kill("SIGKILL")
    expect((await first.exited).signal).toBe("SIGKILL")
    expect(existsSync(join(memoryDir, "deploys.md"))).toBe(true)

    const sessionsDir = join(agentDir, "sessions")
    const files = readdirSync(sessionsDir, { recursive: true }).map(String).filter((f) => f.endsWith(".jsonl"))
    expect(files).toHaveLength(1)
    const records = readFileSync(join(sessionsDir, files[0]!), "utf8").split("\n").filter((l) => l.includes('"customType":"pm-memory-notice"'))
    expect(records).toHaveLength(1)

    firstRun = false
    const mainRequests = () => strict!.requests.filter((r) => kindOf(r) === "main")
    const noticesIn = (r: StrictRequest) => r.messages.filter((m: any) => textOf(m).includes(NOTICE)).map(textOf)

    const second = startPi(["--continue", "-p", "what should we do next then"], repo, agentDir)
    const secondExit = await second.exited
    expect(secondExit.code, secondExit.stderr).toBe(0)
    const resumed = mainRequests().at(-1)!
    expect(resumed.messages.map(textOf)).toContain("please remember that deploys happen on Fridays")
    expect(noticesIn(resumed)).toEqual([expect.stringContaining("deploys.md (written)")])

    const third = startPi(["--continue", "-p", "and one more thing please"], repo, agentDir)
    const thirdExit = await third.exited
    expect(thirdExit.code, thirdExit.stderr).toBe(0)
    const again = mainRequests().at(-1)!
    expect(again.messages.map(textOf)).toContain("what should we do next then")
    expect(noticesIn(again)).toHaveLength(1)
  })
})
