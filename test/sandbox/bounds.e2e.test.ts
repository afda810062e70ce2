/**
 * The bounds of a sandboxed command, proved on the real sandbox through Pi's bash tool over our operations: the
 * limits are in force inside, a file stops at exactly COMMAND_FILE_BYTES, /dev/shm is a bounded tmpfs, a process
 * count past COMMAND_PROCESSES (a fork bomb) ends the command quickly with a notice, output past COMMAND_OUTPUT_BYTES
 * ends it with a notice and Pi's full-output file never grows past the cap, and a Pi killed with SIGKILL leaves no
 * socat of the runtime behind.
 */
import * as pi from "@earendil-works/pi-coding-agent"
import { spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { rm } from "node:fs/promises"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSandboxedTools, type SandboxedTools } from "../../layers/background/tools/sandboxed.ts"
import { defaultSandbox } from "../../layers/safety/Sandbox.ts"
import {
  COMMAND_CPU_SECONDS,
  COMMAND_FILE_BYTES,
  COMMAND_MEMORY_BYTES,
  COMMAND_OUTPUT_BYTES,
  COMMAND_PROCESSES,
  commandStoppedNotice,
  SANDBOX_TMPFS_BYTES
} from "../../src/safety/commandLimits.ts"
import { sandboxGate } from "../support/sandbox.ts"
import { tempDir } from "../support/tmp.ts"

const gate = await sandboxGate()
let sandboxed: SandboxedTools
let project: string

const textOf = (r: { content: ReadonlyArray<{ type: string; text?: string }> }) => r.content.map((c) => c.text ?? "").join("")

/** Pi's full-output files the commands left in the host's temp folder (the task's own folder takes them in a task). */
const fullOutputs = new Set<string>()
afterAll(async () => {
  for (const file of fullOutputs) await rm(file, { force: true })
})

/** One command through Pi's bash tool: its text (a failed command's message included) and its full-output file. */
const run = async (command: string): Promise<{ text: string; full: string | undefined }> => {
  const def = pi.createBashToolDefinition(project, { operations: sandboxed.bashOperations! })
  const ran = await def.execute("b", { command, timeout: 60 }, new AbortController().signal, undefined, undefined as never).then(
    (r) => ({ text: textOf(r), full: (r.details as { fullOutputPath?: string } | undefined)?.fullOutputPath }),
    (e: unknown) => {
      const text = e instanceof Error ? e.message : String(e)
      return { text, full: /Full output: (\S+?)\]/.exec(text)?.[1] }
    }
  )
  if (ran.full !== undefined) fullOutputs.add(ran.full)
  return ran
}

describe.skipIf(gate.skip || process.platform !== "linux")("the bounds of a sandboxed command", () => {
  beforeAll(async () => {
    project = tempDir("pm-bounds-")
    sandboxed = await makeSandboxedTools({
      sandbox: defaultSandbox(),
      pi,
      cwd: project,
      memoryDir: join(project, "memory"),
      protection: { home: project, agentDir: join(project, "agent"), exceptions: [], extraProtections: [] },
      whenUnavailable: "refuse"
    })
  })
  afterAll(() => sandboxed?.close())

  it("the limits are in force inside the sandbox, hard and soft", async () => {
    const { text } = await run("for o in v t f u; do echo $o $(ulimit -H$o) $(ulimit -S$o); done; df -B1 --output=size /dev/shm | tail -1")
    expect(text).toContain(`v ${COMMAND_MEMORY_BYTES / 1024} ${COMMAND_MEMORY_BYTES / 1024}`)
    expect(text).toContain(`t ${COMMAND_CPU_SECONDS} ${COMMAND_CPU_SECONDS}`)
    expect(text).toContain(`f ${COMMAND_FILE_BYTES / 1024} ${COMMAND_FILE_BYTES / 1024}`)
    expect(text).toContain(`u ${COMMAND_PROCESSES} ${COMMAND_PROCESSES}`)
    expect(text.trim().split("\n").at(-1)!.trim()).toBe(String(SANDBOX_TMPFS_BYTES))
  })

  it("a file may be COMMAND_FILE_BYTES long, not one byte more", async () => {
    const size = (n: number) => `head -c ${n} /dev/zero > /dev/shm/f; echo rc=$?; stat -c %s /dev/shm/f`
    const below = await run(size(COMMAND_FILE_BYTES - 1))
    expect(below.text).toMatch(new RegExp(`rc=0\\n${COMMAND_FILE_BYTES - 1}`))
    const at = await run(size(COMMAND_FILE_BYTES))
    expect(at.text).toMatch(new RegExp(`rc=0\\n${COMMAND_FILE_BYTES}`))
    const above = await run(size(COMMAND_FILE_BYTES + 1))
    expect(above.text).toMatch(/File size limit exceeded/)
    expect(above.text).toContain(String(COMMAND_FILE_BYTES))
  })

  it("an address space above COMMAND_MEMORY_BYTES cannot be had, one well below can", async () => {
    const mib = COMMAND_MEMORY_BYTES / 1024 ** 2
    const map = (m: number) => `python3 -c 'import mmap; mmap.mmap(-1, ${m} * 1024 * 1024); print("mapped")' 2>&1 | tail -1`
    // python3 maps exact sizes; the machines this runs on have it, and a missing one fails here rather than pass unchecked.
    const { text: has } = await run("command -v python3 || echo none")
    expect(has, "python3 is needed inside the sandbox for this test").not.toContain("none")
    expect((await run(map(mib - 512))).text).toContain("mapped")
    expect((await run(map(mib))).text).toMatch(/MemoryError|Cannot allocate|mmap/)
    expect((await run(map(mib + 1))).text).toMatch(/MemoryError|Cannot allocate|mmap/)
  })

  it("a fork bomb is ended by the process bound, with a notice; the host's process table is back to where it was", async () => {
    const count = () => readdirSync("/proc").filter((p) => /^\d+$/.test(p)).length
    const before = count()
    const { text } = await run(":(){ :|:& };:; sleep 30; echo slept")
    expect(text).toContain(commandStoppedNotice("processes").trim())
    // Ended by the bound, not by running out its sleep: what follows the sleep never ran.
    expect(text).not.toContain("slept")
    // The kernel tears the killed namespace down after the tool has returned: waited for, the bound only ends a broken run.
    for (let i = 0; i < 2000 && count() > before + 20; i++) await new Promise((r) => setTimeout(r, 5))
    expect(count()).toBeLessThanOrEqual(before + 20)
  })

  it("many processes under the bound run to the end", async () => {
    const { text } = await run(`for i in $(seq ${COMMAND_PROCESSES - 10}); do sleep 0.5 & done; wait; echo all-done`)
    expect(text).toContain("all-done")
    expect(text).not.toContain("The command was stopped")
  })

  it("output up to the cap is kept whole; past it the command ends, and Pi's full-output file stays within the cap", async () => {
    const room = COMMAND_OUTPUT_BYTES - Buffer.byteLength(commandStoppedNotice("output"))
    const at = await run(`head -c ${room} /dev/zero | tr '\\0' a`)
    expect(at.text).not.toContain("The command was stopped")
    expect(statSync(at.full!).size).toBe(room)
    const above = await run(`head -c ${room + 1} /dev/zero | tr '\\0' a`)
    expect(above.text).toContain(commandStoppedNotice("output").trim())
    expect(statSync(above.full!).size).toBe(COMMAND_OUTPUT_BYTES)
    const endless = await run("cat /dev/zero")
    expect(endless.text).toContain(commandStoppedNotice("output").trim())
    expect(statSync(endless.full!).size).toBeLessThanOrEqual(COMMAND_OUTPUT_BYTES)
  })
})

/** The pids of every socat whose parent is `parent`. */
const socatsOf = (parent: number): Array<number> =>
  readdirSync("/proc").filter((p) => /^\d+$/.test(p)).flatMap((p) => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      return Number(fields[1]) === parent && stat.includes("(socat)") ? [Number(p)] : []
    } catch {
      return []
    }
  })

/** Alive: present and not a zombie (a zombie waits for a reaper, but runs nothing). */
const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
  } catch {
    return false
  }
}

describe.skipIf(gate.skip || process.platform !== "linux")("nothing the sandbox starts outlives Pi", () => {
  it("a process that opened the sandbox and is killed with SIGKILL leaves no socat behind", async () => {
    const script = join(import.meta.dirname, "openSandbox.child.ts")
    expect(existsSync(script)).toBe(true)
    const child = spawn(process.execPath, ["--experimental-strip-types", "--no-warnings", script], { stdio: ["ignore", "pipe", "inherit"] })
    const lines = createInterface({ input: child.stdout! })
    const first = await new Promise<string>((resolve) => lines.once("line", resolve))
    expect(first).toMatch(/^open Available ok$/)
    const socats = socatsOf(child.pid!)
    expect(socats.length).toBeGreaterThan(0)
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGKILL")
    await exited
    for (let i = 0; i < 2000 && socats.some(alive); i++) await new Promise((r) => setTimeout(r, 5))
    expect(socats.filter(alive)).toEqual([])
  })
})

