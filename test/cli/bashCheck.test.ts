/** `pm bash-check` in a child process, over the bundle in dist/ (which must find its wasm files beside itself). */
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, pmPath, repoRoot } from "../support/pm.ts"
import { tempAgent, tempDir } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

const run = (args: ReadonlyArray<string>, input?: string): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const agent = tempAgent()
    const child = spawn(process.execPath, [pmPath, ...args], {
      cwd: tempDir(),
      env: { ...process.env, PI_CODING_AGENT_DIR: agent.agentDir, HOME: agent.home, NO_COLOR: "1" },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }))
    child.stdin.end(input ?? "")
  })

describe("pm bash-check", () => {
  it("a read-only command: exit 0 and the D9 object", async () => {
    const r = await run(["bash-check", "--json", "grep -rn TODO src | head -5"])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ command: "grep -rn TODO src | head -5", verdict: "read-only" })
  })

  it("a rejected command: exit 1 with a reason naming the rule", async () => {
    const r = await run(["bash-check", "--json", "find . -name x -exec rm {} ;"])
    expect(r.code).toBe(1)
    const out = JSON.parse(r.stdout)
    expect(out.verdict).toBe("rejected")
    expect(out.reason).toContain("-exec")
  })

  it("a delete of a memory file: verdict delete with the absolute target", async () => {
    const mem = tempDir()
    const r = await run(["bash-check", "--json", "--memory-dir", mem, `rm -f ${join(mem, "old-topic.md")}`])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ verdict: "delete", targets: [join(mem, "old-topic.md")] })
  })

  it("JSON Lines on stdin: the whole corpus in one process, one object per line, every verdict as expected", async () => {
    const corpus = readFileSync(join(repoRoot, "test/fixtures/bash-corpus.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as { command: string; verdict: string; memoryDir?: string })
      .filter((c) => c.memoryDir === undefined)
    const r = await run(["bash-check"], corpus.map((c) => JSON.stringify(c.command)).join("\n") + "\n")
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { command: string; verdict: string; reason: string })
    expect(lines).toHaveLength(corpus.length)
    lines.forEach((line, i) => {
      expect(line.command).toBe(corpus[i]!.command)
      // A read-only command that would open a protected path (or names it cannot see) is reported as refused.
      const verdict = line.verdict === "rejected" && line.reason.startsWith("reads a protected path") && corpus[i]!.verdict === "read-only" ? "read-only" : line.verdict
      expect(verdict, corpus[i]!.command).toBe(corpus[i]!.verdict === "delete" ? "rejected" : corpus[i]!.verdict)
    })
    expect(r.code).toBe(lines.some((l) => l.verdict === "rejected") ? 1 : 0)
  })

  it("a malformed stdin line gets an error object and does not stop the rest", async () => {
    const r = await run(["bash-check"], '"ls"\nnot json\n"pwd"\n')
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l))
    expect(lines).toHaveLength(3)
    expect(lines[0].verdict).toBe("read-only")
    expect(lines[2].verdict).toBe("read-only")
    expect(JSON.stringify(lines[1])).toMatch(/error|invalid|JSON/i)
  })
})
