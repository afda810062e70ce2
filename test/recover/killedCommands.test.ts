/**
 * Real `pm remember` and `pm forget` processes (dist/pm.js) SIGKILLed at varied points of their changes, each point
 * an event: the Nth change the kernel reports in the memory folder (a temp file staged, a topic linked or moved
 * away, the index replaced...). Then the command is run again, as a person would, and `pm log`: the folder is
 * consistent, the fact is saved exactly once (or forgotten), no temp file and no open-task marker is left, and an
 * interrupted change that was rolled back says so; before that, `pm status` and `pm doctor` name it.
 */
import { spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync, watch } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { indexLinkedFiles } from "../../src/memory/topicNames.ts"
import { taskOfMarkerFile } from "../../src/writes/openTask.ts"
import { ensureBuilt, pmPath, runPm } from "../support/pm.ts"
import { tempDir } from "../support/tmp.ts"
import { type Project, project } from "../faults/support.ts"

beforeAll(() => ensureBuilt())

/** `pm ...args` SIGKILLed at the `nth` change reported in the memory folder (or when it ends, if sooner). */
const killedAt = (p: Project, args: ReadonlyArray<string>, nth: number) =>
  new Promise<{ readonly signal: string | null; readonly events: number }>((resolve) => {
    let events = 0
    const watcher = watch(p.memoryDir, () => {
      events++
      if (events === nth) child.kill("SIGKILL")
    })
    const child = spawn(process.execPath, [pmPath, ...args, "--cwd", p.repo], {
      env: { ...process.env, PI_CODING_AGENT_DIR: p.agentDir, HOME: p.home, NO_COLOR: "1" },
      stdio: "ignore"
    })
    child.on("exit", (_code, signal) => {
      watcher.close()
      resolve({ signal, events })
    })
  })

const temps = (p: Project): Array<string> =>
  [p.memoryDir, join(p.rootDir, "journal"), join(p.rootDir, "open")].flatMap((dir) =>
    existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((n) => n.endsWith(".tmp")) : []
  )

/** Every index line links a topic that exists, every topic is indexed, nothing is left half done. */
const expectWhole = (p: Project, at: string) => {
  const topics = readdirSync(p.memoryDir).filter((n) => n.endsWith(".md") && n !== "MEMORY.md")
  const links = indexLinkedFiles(readFileSync(join(p.memoryDir, "MEMORY.md"), "utf8"))
  for (const link of links) expect(topics, `${at}: the index links ${link}`).toContain(link)
  for (const t of topics) expect(links.has(t), `${at}: ${t} is not indexed`).toBe(true)
  expect(temps(p), at).toEqual([])
  expect(existsSync(join(p.rootDir, "open")) ? readdirSync(join(p.rootDir, "open")) : [], `${at}: markers`).toEqual([])
}

/** The open-task markers in the memory root (a marker's temp file, left by a kill before its rename, is not one). */
const markers = (p: Project): Array<string> =>
  existsSync(join(p.rootDir, "open")) ? readdirSync(join(p.rootDir, "open")).filter((n) => taskOfMarkerFile(n) !== undefined) : []

const NAMES = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]

describe("pm remember and pm forget killed part way, then run again", () => {
  it("remember: the fact is saved once, whatever the point; forget: the topic and its line go together", async () => {
    const p = await project(join(tempDir("pm-agent-"), "agent"), NAMES)
    const rolledBack: Array<string> = []
    const killed: Array<number> = []
    let doctorSaw = false
    for (let nth = 1; nth <= 8; nth++) {
      const fact = `the release train number ${nth} leaves on Tuesdays`
      const at = `remember killed at change ${nth}`
      const run = await killedAt(p, ["remember", fact], nth)
      if (run.signal === "SIGKILL") killed.push(nth)
      // Kept (its marker removed: the commit) before the kill, or not killed at all: a retry is a second save.
      const indexed = indexLinkedFiles(readFileSync(join(p.memoryDir, "MEMORY.md"), "utf8"))
      const committed = [...indexed].some((n) => existsSync(join(p.memoryDir, n)) && readFileSync(join(p.memoryDir, n), "utf8").includes(fact)) &&
        markers(p).length === 0
      if (!doctorSaw && !committed && markers(p).length > 0) {
        // Before anything changes memory again, status and doctor name the interrupted change (and change nothing).
        const status = await runPm(["status", "--cwd", p.repo], p)
        expect(status.stdout).toMatch(/^Changing: +remember remember-\S+ was interrupted \(its process, pid \d+, is gone\); the next change of memory rolls it back$/m)
        const doctor = await runPm(["doctor", "--cwd", p.repo], p)
        expect(doctor.stdout).toMatch(/^change-interrupted: remember remember-\S+ was interrupted/m)
        expect(markers(p)).toHaveLength(1)
        doctorSaw = true
      }
      const again = await runPm(["remember", fact, "--cwd", p.repo], p)
      expect(again.code, `${at}: ${again.stderr}`).toBe(0)
      if (/was interrupted earlier; it was rolled back/.test(again.stderr)) rolledBack.push(at)
      const holding = readdirSync(p.memoryDir).filter((n) => n.endsWith(".md") && n !== "MEMORY.md" && readFileSync(join(p.memoryDir, n), "utf8").includes(fact))
      // Once when the first run was rolled back or had changed nothing; twice only when it had been kept.
      expect(holding.length, `${at}: ${holding.join(", ")}`).toBe(committed ? 2 : 1)
      expectWhole(p, at)
    }
    for (let nth = 1; nth <= NAMES.length; nth++) {
      const name = NAMES[nth - 1]!
      const at = `forget ${name} killed at change ${nth}`
      await killedAt(p, ["forget", name], nth)
      const again = await runPm(["forget", name, "--cwd", p.repo], p)
      if (/was interrupted earlier; it was rolled back/.test(again.stderr)) rolledBack.push(at)
      // Either it had finished (the topic is unknown now) or it was rolled back and this forget did it.
      expect(again.code === 0 || /no topic|unknown|not found/i.test(again.stderr), `${at}: ${again.stderr}`).toBe(true)
      expect(existsSync(join(p.memoryDir, `${name}.md`)), at).toBe(false)
      expectWhole(p, at)
    }
    // Some kills landed in the middle of a change and were rolled back by the next command, which said so.
    expect(killed.length).toBeGreaterThan(0)
    expect(rolledBack.length, rolledBack.join("; ")).toBeGreaterThan(0)
    expect(doctorSaw).toBe(true)
    const log = await runPm(["log", "--cwd", p.repo], p)
    expect(log.stdout).toContain("interrupted, and rolled back when found")
    console.log(`killed at: ${killed.join(",")}; rolled back: ${rolledBack.length}`)
  })
})
