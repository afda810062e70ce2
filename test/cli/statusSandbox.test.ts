/**
 * `pm status` says what it can of the OS sandbox without starting it: whether its programs are on PATH and how the
 * newest background run that reached its tools ran its bash (that run's record). It loads neither the sandbox's
 * layer nor Pi's package manager in the commonest setup; `pm doctor` still starts the sandbox for a trial.
 */
import * as Exit from "effect/Exit"
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { lastSandboxUse, sandboxPrograms, sandboxStatusLine } from "../../cli/sandboxStatus.ts"
import { extractionRecord } from "../../layers/background/runRecords.ts"
import { serializeRunHistory } from "../../src/background/runHistory.ts"
import { RUNS_FILE, type RunRecord } from "../../src/background/runs.ts"
import { zeroUsage } from "../../src/model/usage.ts"
import { loadedBy, recordLoadsOption, sourcesOf } from "../support/moduleLoads.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { gitRepo, tempAgent, tempDir } from "../support/tmp.ts"

/** A folder holding executables (or, with `plain`, files without the execute bit) of the given names. */
const binWith = (names: ReadonlyArray<string>, plain = false): string => {
  const dir = tempDir("pm-bin-")
  for (const n of names) {
    writeFileSync(join(dir, n), "#!/bin/sh\n")
    chmodSync(join(dir, n), plain ? 0o644 : 0o755)
  }
  return dir
}

const run = (at: number, extra: Partial<RunRecord> = {}): RunRecord => ({
  kind: "extract", at, trigger: "turn", outcome: "nothing", detail: "read this conversation", filesChanged: [], turns: 1, usage: zeroUsage, ...extra
})

describe("the sandbox's programs, looked up on PATH", () => {
  it("Linux: bubblewrap and socat both on PATH; each one missing is named, in the runtime's words", () => {
    expect(sandboxPrograms({ PATH: `${binWith(["bwrap"])}:${binWith(["socat"])}` }, "linux")).toEqual({ _tag: "Available", platform: "linux" })
    expect(sandboxPrograms({ PATH: binWith(["socat"]) }, "linux")).toEqual({ _tag: "Unavailable", platform: "linux", reason: "bubblewrap (bwrap) not installed" })
    expect(sandboxPrograms({ PATH: binWith(["bwrap"]) }, "linux")).toEqual({ _tag: "Unavailable", platform: "linux", reason: "socat not installed" })
    // A file that cannot be run is not the program.
    expect(sandboxPrograms({ PATH: binWith(["bwrap", "socat"], true) }, "linux")._tag).toBe("Unavailable")
    expect(sandboxPrograms({}, "linux")).toMatchObject({ reason: "bubblewrap (bwrap) not installed; socat not installed" })
  })

  it("another platform has none", () => {
    expect(sandboxPrograms({ PATH: binWith(["bwrap", "socat"]) }, "win32")).toEqual({ _tag: "Unavailable", platform: "win32", reason: "no OS sandbox on win32" })
  })
})

describe("the last background run's use of the sandbox", () => {
  it("is the newest record that says how its bash ran; records without a say, or with an unknown one, are passed over", () => {
    expect(lastSandboxUse([])).toBeUndefined()
    const history = [run(1, { sandbox: "sandbox" }), run(3), run(2, { sandbox: "refuse" }), run(4, { sandbox: "bogus" as never })]
    expect(lastSandboxUse(history)?.at).toBe(2)
  })

  it("is written by the task: an extraction's record carries its tools' mode", () => {
    const outcome = { status: "ran", stop: "done", turns: 1, mode: "independent", filesChanged: [], finalText: "", errorMessage: undefined, advanceTo: "x", sandbox: "guard-only" } as const
    const record = extractionRecord(Exit.succeed(outcome as never), { kind: "extract", trigger: "turn", filesChanged: [], turns: 0, usage: zeroUsage }, zeroUsage, "/m")
    expect(record.sandbox).toBe("guard-only")
  })

  it("is said after the programs: installed, what the run did, and that doctor tries it", () => {
    const available = { _tag: "Available", platform: "linux" } as const
    const now = 10 * 60_000
    expect(sandboxStatusLine(available, "refuse", [], now)).toBe(
      "on (bubblewrap installed; pm doctor starts it for a trial): background bash and grep see only their project and memory, read-only, without network, credential stores unreadable; no background run has used it yet"
    )
    expect(sandboxStatusLine(available, "refuse", [run(now - 5 * 60_000, { sandbox: "refuse", kind: "dream" })], now)).toMatch(
      /; the last background run \(a dream, 5m ago\) was refused its bash: the sandbox did not start$/
    )
    expect(sandboxStatusLine(available, "refuse", [run(now - 60_000, { sandbox: "sandbox" })], now)).toMatch(/\(an extraction, .*\) ran its bash in the sandbox$/)
  })
})

describe("pm status and pm doctor", () => {
  let record: string
  beforeAll(() => {
    ensureBuilt()
    record = recordLoadsOption()
  })

  it("status says the last run's use from its record, and starts neither the sandbox nor Pi's package manager; doctor starts the sandbox", async () => {
    const { agentDir, home } = tempAgent()
    const repo = gitRepo()
    const { projectDir } = JSON.parse((await runPm(["project", "--json", "--cwd", repo], { agentDir, home })).stdout) as { projectDir: string }
    mkdirSync(projectDir, { recursive: true })
    writeFileSync(join(projectDir, RUNS_FILE), serializeRunHistory([run(Date.now() - 120_000, { sandbox: "refuse" })]))
    const status = await runPm(["status", "--cwd", repo], { agentDir, home, env: { NODE_OPTIONS: record } })
    expect(status.code, status.stderr).toBe(0)
    expect(status.stdout).toMatch(/^Sandbox: {4}.*; the last background run \(an extraction, 2m ago\) was refused its bash: the sandbox did not start$/m)
    const loaded = loadedBy(status.stderr)
    expect(sourcesOf(loaded).has("layers/safety/Sandbox.ts")).toBe(false)
    expect(loaded.filter((f) => f.includes("package-manager") || f.startsWith("sandbox/"))).toEqual([])
    const json = JSON.parse((await runPm(["status", "--json", "--cwd", repo], { agentDir, home })).stdout) as { sandbox: { checked: string; lastRun: unknown } }
    expect(json.sandbox).toMatchObject({ checked: "installed", lastRun: { kind: "extract", mode: "refuse" } })
    const doctor = await runPm(["doctor", "--cwd", repo], { agentDir, home, env: { NODE_OPTIONS: record } })
    expect(sourcesOf(loadedBy(doctor.stderr)).has("layers/safety/Sandbox.ts")).toBe(true)
  })
})
