/**
 * A `pi -p` ends however its background work was caught: the sandbox's runtime (and the socat bridge it starts, which
 * keeps the process alive) is stopped with the session even when the session ends while a task is still making its
 * tools. The real Pi host runs a session whose start drains a queued extraction; the drain's task starts the sandbox
 * (socat running) and its trial command is held by a `bwrap` stand-in on PATH until the test lets it go. The session
 * answers and ends meanwhile; only once its end has been handled (a second extension marks it) is the trial let go.
 * The process then exits, and no socat of its agent directory survives. Before the fix, the tools made after the
 * session's end were never closed: the runtime stayed up and `pi -p` printed its answer and never exited.
 */
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, readFileSync, watch, writeFileSync } from "node:fs"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { jobFileName, makeJob } from "../../src/background/queue.ts"
import { ensureBuilt, repoRoot, runPm } from "../support/pm.ts"
import { sandboxGate } from "../support/sandbox.ts"
import { type StrictProvider, startStrictProvider } from "../support/strictProvider.ts"
import { gitRepo, tempDir } from "../support/tmp.ts"
import { exitWithin, kindOf, socatsOf, startPi } from "./pi.ts"

const gate = await sandboxGate()
beforeAll(() => ensureBuilt())

let strict: StrictProvider | undefined
afterEach(async () => {
  await strict?.close()
  strict = undefined
})

/** Resolves once `path` exists (watching its folder: no polling). */
const appears = (path: string): Promise<void> =>
  new Promise((resolve) => {
    const dir = join(path, "..")
    const watcher = watch(dir, () => check())
    const check = () => {
      if (!existsSync(path)) return
      watcher.close()
      resolve()
    }
    check()
  })

/**
 * A `bwrap` that runs the real one, except the first sandboxed command (the runtime's trial: the only kind of call
 * with --unshare-net, which every command line of ours carries), which first says it is held and waits on a FIFO.
 */
const heldBwrap = (dir: string, gateDir: string): string => {
  const real = execFileSync("sh", ["-c", "command -v bwrap"], { encoding: "utf8" }).trim()
  mkdirSync(dir, { recursive: true })
  const script = [
    "#!/bin/sh",
    `case " $* " in *" --unshare-net "*) if mkdir '${gateDir}/held' 2>/dev/null; then read _ < '${gateDir}/fifo'; fi ;; esac`,
    `exec '${real}' "$@"`,
    ""
  ].join("\n")
  writeFileSync(join(dir, "bwrap"), script)
  chmodSync(join(dir, "bwrap"), 0o755)
  return dir
}

describe.skipIf(gate.skip)("the end of a pi -p session", () => {
  it("ended while a drained task was still making its tools: pi -p exits once they are made, and no socat survives", async () => {
    const agentDir = tempDir("pm-exit-agent-")
    const repo = gitRepo()
    const gateDir = tempDir("pm-exit-gate-")
    execFileSync("mkfifo", [join(gateDir, "fifo")])
    const bin = heldBwrap(join(gateDir, "bin"), gateDir)
    strict = await startStrictProvider({ models: [{ id: "strict-1", contextWindow: 128_000, maxTokens: 16_384 }] })
    writeFileSync(join(agentDir, "models.json"), JSON.stringify(strict.modelsJson(), null, 2))
    const project = JSON.parse((await runPm(["project", "--json", "--cwd", repo], { agentDir, home: agentDir })).stdout)
    const rootDir = join(project.storageRoot, "memory-roots", project.memoryRootHash)

    // A job an earlier session handed over.
    const made = makeJob({
      session: "earlier-session",
      cwd: repo,
      queuedAt: Date.now(),
      reason: "the session ended before these messages were extracted",
      model: "strict/strict-1",
      cursor: undefined,
      branch: [
        { type: "message", id: "u1", message: { role: "user", content: "Please remember this for later. The fact is deploys-on-friday." } },
        { type: "message", id: "a1", message: { role: "assistant", content: [{ type: "text", text: "Noted." }] } }
      ]
    })
    if (made._tag !== "Job") throw new Error("the job does not fit")
    mkdirSync(join(rootDir, "queue"), { recursive: true })
    const jobPath = join(rootDir, "queue", jobFileName(made.job, "abc123"))
    writeFileSync(jobPath, made.text)

    const held = appears(join(gateDir, "held"))
    strict.handler = async (r) => {
      const kind = kindOf(r)
      if (kind === "selector") return { toolCalls: [{ name: "select_memories", arguments: { selected_memories: [] } }] }
      if (kind === "background") return { text: "Nothing to save." }
      // The answer (and with it the session's end) comes once the drain's task holds the sandbox's trial.
      await held
      return { text: "ok" }
    }
    const mark = join(gateDir, "shutdown-handled")
    const run = startPi(["-p", "hi"], repo, agentDir, {
      env: { PATH: `${bin}:${process.env["PATH"]}`, PM_TEST_SHUTDOWN_MARK: mark },
      extensions: [join(repoRoot, "test", "fixtures", "extensions", "shutdownMark.mjs")]
    })
    await held
    await appears(mark)
    // The session's end is handled; the sandbox's bridge runs, and the trial is still held.
    expect(socatsOf(agentDir).length).toBeGreaterThan(0)
    await writeFile(join(gateDir, "fifo"), "go\n")
    const exit = await exitWithin(run, 120_000)
    expect(exit.signal, exit.stderr).toBeNull()
    expect(exit.code, exit.stderr).toBe(0)
    expect(exit.stdout.trim()).toBe("ok")
    expect(socatsOf(agentDir)).toEqual([])
    // The drained job was stopped before it ran: it stays queued, and its stop is on record.
    expect(existsSync(jobPath)).toBe(true)
    const runs = JSON.parse(readFileSync(join(project.projectDir, "background-runs.json"), "utf8")).runs
    expect(runs).toContainEqual(expect.objectContaining({ trigger: "queue", outcome: "stopped", detail: expect.stringContaining("the job stays queued") }))
  })
})
