/**
 * Print mode (`pi -p`) in a project Pi does not trust: memory is off for the run, and one line on stderr says so,
 * why (no decision saved for a project that needs one, or a saved "not trusted") and how to trust it (`/trust`,
 * `pi --approve`). A trusted run, an approved one and a project where memory is switched off say nothing of trust.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { run } from "../support/install.ts"
import { ensureBuilt, repoRoot } from "../support/pm.ts"
import { gitRepo, tempDir } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

const PROVIDER = join(repoRoot, "test", "fixtures", "providers", "faux.mjs")
const piBin = join(repoRoot, "node_modules", ".bin", "pi")

const runPi = (cwd: string, agentDir: string, extra: ReadonlyArray<string> = []) =>
  run(
    piBin,
    ["-e", join(repoRoot, "dist", "extension.ts"), "-e", PROVIDER, "--provider", "faux", "--model", "faux-1", "--no-session", ...extra, "-p", "what is the plan for today"],
    {
      cwd,
      env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, HOME: agentDir, NO_COLOR: "1", PM_FAUX_SCRIPT: JSON.stringify([{ text: "ok" }, { text: "Nothing to save." }]) },
      timeoutMs: 120_000
    }
  )
const ours = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("Project memory"))

/** A repository whose `.pi/settings.json` makes Pi ask for trust. */
const needsTrust = () => {
  const repo = gitRepo()
  mkdirSync(join(repo, ".pi"))
  writeFileSync(join(repo, ".pi", "settings.json"), "{}\n")
  return repo
}

describe("print mode in a project Pi does not trust", () => {
  it("no decision saved: one stderr line naming the file that needs trust, /trust and pi --approve", async () => {
    const agentDir = tempDir("pm-print-agent-")
    const repo = needsTrust()
    const r = await runPi(repo, agentDir)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trim()).toBe("ok")
    expect(ours(r.stderr)).toEqual([
      `Project memory is off for this run: Pi has not been told whether to trust this project (${join(repo, ".pi", "settings.json")} needs trust and no decision is saved: ` +
      "Pi asks at start-up, and print mode (pi -p) runs untrusted). To trust it: start pi in the project and choose Trust (or type /trust, then restart pi); for one run, pi --approve."
    ])
  })

  it("marked not trusted: the line names trust.json", async () => {
    const agentDir = tempDir("pm-print-agent-")
    const repo = needsTrust()
    writeFileSync(join(agentDir, "trust.json"), JSON.stringify({ [repo]: false }))
    const r = await runPi(repo, agentDir)
    expect(r.code, r.stderr).toBe(0)
    const lines = ours(r.stderr)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^Project memory is off for this run: Pi does not trust this project \(marked not trusted in .*trust\.json \(.*\)\)\. To trust it: .*\/trust.*pi --approve\.$/)
  })

  it("says nothing of trust when the run is approved, the project trusted, or memory switched off", async () => {
    const approved = await runPi(needsTrust(), tempDir("pm-print-agent-"), ["--approve"])
    expect(approved.code, approved.stderr).toBe(0)
    expect(ours(approved.stderr)).toEqual([])
    const trusted = await runPi(gitRepo(), tempDir("pm-print-agent-"))
    expect(trusted.code, trusted.stderr).toBe(0)
    expect(ours(trusted.stderr)).toEqual([])
    const agentDir = tempDir("pm-print-agent-")
    mkdirSync(join(agentDir, "project-memory"), { recursive: true })
    writeFileSync(join(agentDir, "project-memory", "config.json"), JSON.stringify({ enabled: false }))
    const off = await runPi(needsTrust(), agentDir)
    expect(off.code, off.stderr).toBe(0)
    expect(ours(off.stderr)).toEqual([])
  })
})
