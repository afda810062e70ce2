/**
 * Damaged, empty and future-stamped lock files never block a person's command, and a live holder is named and never
 * robbed (real `pm` processes; see killedForget.test.ts for the killed ones). "Without waiting" is observed, not
 * timed: a forget or undo that waits prints a progress line on stderr after 2 s, and these must print none.
 */
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { startWorker } from "../locks/processes.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { tempDir } from "../support/tmp.ts"
import { DEAD_PID, holderRecord, plantLock, project } from "./support.ts"

beforeAll(() => ensureBuilt())

describe("damaged, empty and future-stamped locks", () => {
  it("doctor reports every one with its holder; forget and undo go through without waiting", async () => {
    const p = await project(join(tempDir("pm-agent-"), "agent"), ["a", "b"])
    // As a full disk or a crash between create and write leaves them, and a dead holder whose clock ran an hour ahead.
    plantLock(p.locksDir, "extract.lock", "", 10_000)
    plantLock(p.locksDir, "dream.lock", holderRecord(DEAD_PID, "pm forget", { acquiredAt: Date.now() + 3_600_000 }), -3_600_000)
    plantLock(p.locksDir, "journal.lock", "{\"pid\":12", 10_000)
    plantLock(p.locksDir, "journal.lock.recover", "", 10_000)
    const doctor = await runPm(["doctor", "--json", "--cwd", p.repo], p)
    const problems = JSON.parse(doctor.stdout).problems.filter((x: { code: string }) => x.code.startsWith("lock-"))
    expect(problems.map((x: { code: string; message: string }) => `${x.code} ${x.message.split(":")[0]}`).sort()).toEqual([
      "lock-stale dream.lock",
      "lock-stale extract.lock",
      "lock-stale journal.lock",
      "lock-stale journal.lock.recover"
    ])
    const status = JSON.parse((await runPm(["status", "--json", "--cwd", p.repo], p)).stdout)
    const dream = status.locks.find((l: { name: string }) => l.name === "dream.lock")
    // A time in the future counts as now: held for 0 s, heartbeat 0 s ago, and stale because its pid is gone.
    expect(dream).toMatchObject({ pid: DEAD_PID, kind: "pm forget", heldForMs: 0, ageMs: 0, judgement: "stale" })
    const r = await runPm(["forget", "a", "--cwd", p.repo], p)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).not.toContain("waiting for")
    plantLock(p.locksDir, "extract.lock", "garbage", 6_000)
    const u = await runPm(["undo", "--cwd", p.repo], p)
    expect(u.code, u.stderr).toBe(0)
    expect(u.stderr).not.toContain("waiting for")
    expect(existsSync(join(p.memoryDir, "a.md"))).toBe(true)
    expect(readdirSync(p.locksDir)).toEqual([])
  })

  it("a live holder is named in the wait and in the error, and never robbed", async () => {
    const p = await project(join(tempDir("pm-agent-"), "agent"), ["a"])
    const holder = startWorker("hold", { locksDir: p.locksDir, name: "extract.lock", timeoutMs: 1_000 })
    await holder.waitFor((l) => l["acquired"] === true)
    try {
      const r = await runPm(["forget", "a", "--wait", "3", "--cwd", p.repo], p)
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(new RegExp(`^pm: waiting for extract\\.lock: held by a pm process, pid ${holder.pid} on .*, for \\d+ s \\(waited \\d+ s\\)$`, "m"))
      expect(r.stderr).toMatch(/^pm: forget failed: memory is busy: extract\.lock is held by a pm process, pid \d+ .*gave up after waiting 3 s\. .*pm status/m)
      expect(existsSync(join(p.memoryDir, "a.md"))).toBe(true)
    } finally {
      holder.child.kill("SIGKILL")
      await holder.exited
    }
  })
})
