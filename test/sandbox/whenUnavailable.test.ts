/**
 * When the OS sandbox cannot start: `sandbox.whenUnavailable` ("refuse" by default: the background bash tool is
 * refused with a reason the model can act on, the other tools work; "guard-only": bash runs behind the guard alone),
 * and what `pm status`, `pm doctor` and `pm bash-check` say. Unavailability comes from an injected probe (the task
 * tools) or from a PATH without bubblewrap (`pm`, the real probe). The scrubbed environment's rules are here too.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { makeSandbox } from "../../layers/safety/Sandbox.ts"
import { decodeConfig } from "../../src/project/config.ts"
import { type SandboxAvailability, sandboxModeLine } from "../../src/safety/sandbox.ts"
import { scrubEnvironment } from "../../src/safety/sandboxProcess.ts"
import { githubToken } from "../trust/fakeSecrets.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { sandboxGate } from "../support/sandbox.ts"
import { exec, setupTaskTools, text } from "../support/taskTools.ts"
import { tempAgent, tempDir } from "../support/tmp.ts"

const unavailable: SandboxAvailability = { _tag: "Unavailable", platform: "linux", reason: "bubblewrap (bwrap) not installed" }
const noSandbox = () => makeSandbox({ probe: async () => unavailable })

describe("the mode line", () => {
  it("names the mode in force and how to get the sandbox", () => {
    expect(sandboxModeLine({ _tag: "Available", platform: "linux" }, "refuse")).toMatch(/^sandbox: on \(bubblewrap\)/)
    const refuse = sandboxModeLine(unavailable, "refuse")
    expect(refuse).toContain("the background bash tool is refused")
    expect(refuse).toContain("apt-get install bubblewrap socat")
    expect(sandboxModeLine(unavailable, "guard-only")).toContain("behind the guard alone")
    expect(sandboxModeLine({ _tag: "Unavailable", platform: "win32", reason: "no OS sandbox on win32" }, "refuse")).toContain("guard-only")
  })

  it("config.json: sandbox.whenUnavailable is read, a bad value falls back to refuse with a warning", () => {
    expect(decodeConfig("c.json", "{}", "/h").config.sandbox.whenUnavailable).toBe("refuse")
    expect(decodeConfig("c.json", `{"sandbox":{"whenUnavailable":"guard-only"}}`, "/h").config.sandbox.whenUnavailable).toBe("guard-only")
    const bad = decodeConfig("c.json", `{"sandbox":{"whenUnavailable":"never"}}`, "/h")
    expect(bad.config.sandbox.whenUnavailable).toBe("refuse")
    expect(bad.warnings.map((w) => w.key)).toEqual(["sandbox.whenUnavailable"])
  })
})

describe("the scrubbed environment", () => {
  it("drops every variable whose name or value looks like a credential, keeps the rest", () => {
    const token = githubToken()
    const kept = scrubEnvironment({
      PATH: "/usr/bin:/bin",
      HOME: "/home/u",
      LANG: "C.UTF-8",
      TERM: "xterm",
      PWD: "/home/u/p",
      OPENAI_API_KEY: "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789",
      GITHUB_TOKEN: token,
      AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMIK7MDENGbPxRfiCY1234567890ab",
      DB_PASSWORD: "hunter2hunter2",
      SSH_AUTH_SOCK: "/tmp/ssh-agent.sock",
      HTTPS_PROXY: "http://user:pass@proxy:3128",
      NOTES: `the deploy uses ${token}`,
      SESSION_COOKIE: "abc"
    })
    expect(Object.keys(kept).sort()).toEqual(["HOME", "LANG", "PATH", "PWD", "TERM"])
  })
})

describe("the task tools without a sandbox", () => {
  it('"refuse" (the default): bash is refused with a reason to act on; rm of memory, read, find and grep still work', async () => {
    const { cwd, memoryDir, tools } = await setupTaskTools({ sandbox: noSandbox(), whenUnavailable: "refuse" })
    // What the task's run record says of its bash (pm status reads it).
    expect(tools.sandbox).toBe("refuse")
    writeFileSync(join(cwd, "notes.txt"), "needle here\n")
    const ls = await exec(tools, "bash", { command: "ls" })
    expect(ls.isError).toBe(true)
    expect(text(ls)).toMatch(/^Refused: the background bash tool runs only inside the OS sandbox.*bubblewrap.*Use the read, find and grep tools instead/s)
    const rm = await exec(tools, "bash", { command: `rm ${join(memoryDir, "a.md")}` })
    expect(rm.isError).not.toBe(true)
    expect(existsSync(join(memoryDir, "a.md"))).toBe(false)
    expect(text(await exec(tools, "grep", { pattern: "needle" }))).toContain("notes.txt:1: needle here")
    expect(text(await exec(tools, "read", { path: "notes.txt" }))).toContain("needle here")
    expect(text(await exec(tools, "find", { pattern: "*.txt" }))).toContain("notes.txt")
  })

  it('"guard-only": bash runs behind the guard alone', async () => {
    const { cwd, tools } = await setupTaskTools({ sandbox: noSandbox(), whenUnavailable: "guard-only" })
    expect(tools.sandbox).toBe("guard-only")
    writeFileSync(join(cwd, "notes.txt"), "x\n")
    const ls = await exec(tools, "bash", { command: "ls" })
    expect(ls.isError).not.toBe(true)
    expect(text(ls)).toContain("notes.txt")
  })
})

describe("pm status, pm doctor and pm bash-check say which mode is in force", () => {
  /** A PATH with git, rg and socat but no bubblewrap: the real probe finds no sandbox. */
  let noBwrap = ""
  beforeAll(() => {
    ensureBuilt()
    noBwrap = join(tempDir("pm-nobwrap-"), "bin")
    mkdirSync(noBwrap)
    for (const tool of ["git", "rg", "socat", "bash", "sh"]) {
      const found = execFileSync("sh", ["-c", `command -v ${tool} || true`], { encoding: "utf8" }).trim()
      if (found !== "") symlinkSync(found, join(noBwrap, tool))
    }
  })

  it("without bubblewrap: refuse by default, with the way to get the sandbox; doctor reports sandbox-unavailable", async () => {
    const { agentDir, home } = tempAgent()
    const project = tempDir("pm-proj-")
    const env = { PATH: noBwrap }
    const status = await runPm(["status", "--json", "--cwd", project], { agentDir, home, env })
    const json = JSON.parse(status.stdout) as { sandbox: { mode: string; line: string; reason: string } }
    expect(json.sandbox.mode).toBe("refuse")
    expect(json.sandbox.reason).toContain("bwrap")
    expect(json.sandbox.line).toContain("apt-get install bubblewrap socat")
    const plain = await runPm(["status", "--cwd", project], { agentDir, home, env })
    expect(plain.stdout).toMatch(/^Sandbox: {4}unavailable \(.*bwrap.*\); the background bash tool is refused/m)
    const doctor = await runPm(["doctor", "--cwd", project], { agentDir, home, env })
    expect(doctor.code).toBe(1)
    expect(doctor.stdout).toMatch(/^sandbox-unavailable: The OS sandbox is unavailable .*apt-get install bubblewrap socat/m)
    const check = await runPm(["bash-check", "--cwd", project, "ls"], { agentDir, home, env })
    expect(check.stdout).toMatch(/^read-only\nsandbox: unavailable .*refused/)
    // guard-only, chosen in config.json.
    mkdirSync(join(agentDir, "project-memory"), { recursive: true })
    writeFileSync(join(agentDir, "project-memory", "config.json"), `{"sandbox":{"whenUnavailable":"guard-only"}}`)
    const guardOnly = JSON.parse((await runPm(["status", "--json", "--cwd", project], { agentDir, home, env })).stdout) as { sandbox: { mode: string } }
    expect(guardOnly.sandbox.mode).toBe("guard-only")
  })

  it("with the sandbox: on, and doctor has nothing to say about it", async () => {
    const gate = await sandboxGate()
    if (gate.skip) return
    const { agentDir, home } = tempAgent()
    const project = tempDir("pm-proj-")
    const status = JSON.parse((await runPm(["status", "--json", "--cwd", project], { agentDir, home })).stdout) as { sandbox: { mode: string; line: string } }
    expect(status.sandbox.mode).toBe("sandbox")
    expect(status.sandbox.line).toMatch(/^sandbox: on/)
    const doctor = await runPm(["doctor", "--cwd", project], { agentDir, home })
    expect(doctor.stdout).not.toContain("sandbox-unavailable")
  })
})
