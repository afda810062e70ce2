/**
 * Locks left by dead processes never block a person's command: real `pm forget` processes SIGKILLed at random
 * points, and a holder killed while it holds the background locks. Damaged, empty and future-stamped lock files, and
 * a live holder: damagedLocks.test.ts (split so neither file runs a minute on a loaded machine).
 * "Proceeds within seconds" is observed, not timed: a forget that waits prints a progress line on stderr after 2 s,
 * and these must print none.
 */
import { spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { startWorker } from "../locks/processes.ts"
import { ensureBuilt, pmPath, runPm } from "../support/pm.ts"
import { tempDir } from "../support/tmp.ts"
import { project } from "./support.ts"

beforeAll(() => ensureBuilt())

const NAMES = Array.from({ length: 10 }, (_, i) => `fact-${i}`)

/** `pm forget` started and SIGKILLed after `delayMs`, or earlier if it finished first. */
const killedForget = (p: { agentDir: string; home: string; repo: string }, name: string, delayMs: number) =>
  new Promise<string>((resolve) => {
    const child = spawn(process.execPath, [pmPath, "forget", name, "--cwd", p.repo], {
      env: { ...process.env, PI_CODING_AGENT_DIR: p.agentDir, HOME: p.home, NO_COLOR: "1" },
      stdio: "ignore"
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), delayMs)
    child.on("exit", (code, signal) => {
      clearTimeout(timer)
      resolve(signal ?? String(code))
    })
  })

describe("a killed pm forget never blocks the next one", () => {
  it("SIGKILL at random points: the next forget proceeds without waiting, and what was forgotten can be undone", async () => {
    const p = await project(join(tempDir("pm-agent-"), "agent"), NAMES)
    const original = Object.fromEntries(NAMES.map((n) => [n, readFileSync(join(p.memoryDir, `${n}.md`), "utf8")]))
    const outcomes: Array<string> = []
    for (let i = 0; i < NAMES.length; i += 2) {
      // Node starts in ~100-400 ms here, then the forget takes its locks: delays spread over that whole life, one
      // slot of it each, the first before any forget can have finished (so at least one is always killed; on an idle
      // machine a forget can end in under 200 ms, and five draws from all of 0-700 ms could all come after it).
      const slot = i / 2
      outcomes.push(await killedForget(p, NAMES[i]!, slot === 0 ? Math.floor(Math.random() * 30) : Math.floor((slot - 1 + Math.random()) * 175)))
      const next = await runPm(["forget", NAMES[i + 1]!, "--cwd", p.repo], p)
      expect(next.code, next.stderr).toBe(0)
      expect(next.stderr).not.toContain("waiting for")
    }
    expect(outcomes.some((o) => o === "SIGKILL"), outcomes.join(",")).toBe(true)
    // Nothing lost: every topic is either still there or brought back, byte for byte, by undo.
    for (let undone = 0; undone < NAMES.length; undone++) {
      const r = await runPm(["undo", "--cwd", p.repo], p)
      if (r.code !== 0) break
      expect(r.stderr).not.toContain("waiting for")
    }
    for (const n of NAMES) expect(readFileSync(join(p.memoryDir, `${n}.md`), "utf8")).toBe(original[n])
    const status = JSON.parse((await runPm(["status", "--json", "--cwd", p.repo], p)).stdout)
    expect(status.locks).toEqual([])
  })

  it("a holder killed while it holds the background locks: status names it stale, the next forget takes over at once", async () => {
    const p = await project(join(tempDir("pm-agent-"), "agent"), ["kept", "gone"])
    const holder = startWorker("hold", { locksDir: p.locksDir, name: "dream.lock", timeoutMs: 3_600_000 })
    await holder.waitFor((l) => l["acquired"] === true)
    holder.child.kill("SIGKILL")
    expect(await holder.exited).toBe("SIGKILL")
    const status = await runPm(["status", "--cwd", p.repo], p)
    expect(status.stdout).toMatch(new RegExp(`dream\\.lock: a pm process, pid ${holder.pid} on .*\\(stale: its holder is gone`))
    expect(status.stdout).toContain("To clear a lock:")
    const doctor = await runPm(["doctor", "--cwd", p.repo], p)
    expect(doctor.stdout).toMatch(/^lock-stale: dream\.lock: held by a pm process, pid \d+ .*which is gone; the next task takes it over at once, or remove /m)
    const r = await runPm(["forget", "gone", "--cwd", p.repo], p)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).not.toContain("waiting for")
    expect(existsSync(join(p.memoryDir, "gone.md"))).toBe(false)
    expect(readdirSync(p.locksDir)).toEqual([])
  })
})
