/**
 * A `pi -p` ends however its background work was caught: the sandbox's runtime (and the socat bridge it starts, which
 * keeps the process alive) is stopped with the session even when a task is stopped while it is still making its
 * tools. A real `pi -p` states a fact; its extraction starts the sandbox (socat running), whose trial command is held
 * by a `bwrap` stand-in on PATH. Meanwhile the run's next messages wait for that moment (a test extension's command)
 * and turn memory off, which stops the task at once; the session ends; only once its end has been handled (the test
 * extension marks it) is the trial let go. The process then exits, and no socat of its agent directory survives.
 * Before the fix, tools made after their task had stopped were never closed: the runtime stayed up, and `pi -p`
 * printed its answer and never exited.
 */
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, readFileSync, watch, writeFileSync } from "node:fs"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
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
  it("a task stopped while it makes its tools: pi -p exits once they are made, and no socat survives", async () => {
    const agentDir = tempDir("pm-exit-agent-")
    const repo = gitRepo()
    const gateDir = tempDir("pm-exit-gate-")
    execFileSync("mkfifo", [join(gateDir, "fifo")])
    const bin = heldBwrap(join(gateDir, "bin"), gateDir)
    strict = await startStrictProvider({ models: [{ id: "strict-1", contextWindow: 128_000, maxTokens: 16_384 }] })
    writeFileSync(join(agentDir, "models.json"), JSON.stringify(strict.modelsJson(), null, 2))
    const project = JSON.parse((await runPm(["project", "--json", "--cwd", repo], { agentDir, home: agentDir })).stdout)
    const held = appears(join(gateDir, "held"))
    strict.handler = (r) => {
      const kind = kindOf(r)
      if (kind === "selector") return { toolCalls: [{ name: "select_memories", arguments: { selected_memories: [] } }] }
      return { text: kind === "background" ? "Nothing to save." : "Noted." }
    }
    const mark = join(gateDir, "shutdown-handled")
    const run = startPi(
      ["-p", "Please remember this for later. The fact is deploys-on-friday.", `/pm-test-wait ${join(gateDir, "held")}`, "/memory off"],
      repo,
      agentDir,
      {
        env: { PATH: `${bin}:${process.env["PATH"]}`, PM_TEST_SHUTDOWN_MARK: mark },
        extensions: [join(repoRoot, "test", "fixtures", "extensions", "exitProbe.mjs")]
      }
    )
    await held
    await appears(mark)
    // The session's end is handled; the sandbox's bridge runs, and the trial is still held.
    expect(socatsOf(agentDir).length).toBeGreaterThan(0)
    await writeFile(join(gateDir, "fifo"), "go\n")
    const exit = await exitWithin(run, 120_000)
    expect(exit.signal, exit.stderr).toBeNull()
    expect(exit.code, exit.stderr).toBe(0)
    expect(exit.stdout).toContain("Noted.")
    expect(exit.stdout).toContain("Project memory is off")
    expect(socatsOf(agentDir)).toEqual([])
    // The task was stopped before it ran: no request reached the model, and its stop is on record.
    expect(strict.requests.filter((r) => kindOf(r) === "background")).toEqual([])
    const runs = JSON.parse(readFileSync(join(project.projectDir, "background-runs.json"), "utf8")).runs
    expect(runs).toEqual([expect.objectContaining({ trigger: "turn", outcome: "stopped", detail: "interrupted" })])
  })
})
