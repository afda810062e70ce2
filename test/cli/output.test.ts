import { describe, expect, it } from "vitest"
import { age, ago, daysAgo, table } from "../../cli/output.ts"

describe("table", () => {
  it("aligns columns and leaves the last one unpadded", () => {
    expect(table(["A", "BB"], [["xxx", "y"], ["z", "wwww"]], 80).split("\n")).toEqual(["A    BB", "xxx  y", "z    wwww"])
  })

  it("cuts a line wider than the terminal with an ellipsis, never inside an emoji", () => {
    for (const width of [20, 21, 22, 23]) {
      const lines = table(["AGE", "DESCRIPTION"], [["3d", "😀".repeat(40)]], width).split("\n")
      const cut = lines[1]!
      expect(cut.endsWith("…")).toBe(true)
      expect(cut.length).toBeLessThanOrEqual(width)
      expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(cut), `width ${width}`).toBe(false)
    }
  })
})

describe("age", () => {
  const now = 1_000_000_000_000
  it("reads at a glance", () => {
    expect(age(now - 5_000, now)).toBe("now")
    expect(age(now - 5 * 60_000, now)).toBe("5m")
    expect(age(now - 3 * 3_600_000, now)).toBe("3h")
    expect(age(now - 49 * 3_600_000, now)).toBe("2d")
    expect(age(now + 60_000, now)).toBe("now")
  })

  it("says how long ago in words: just now below a minute, days as today, 1 day, 2 days", () => {
    expect(ago(now - 59_999, now)).toBe("just now")
    expect(ago(now - 60_000, now)).toBe("1m ago")
    expect(ago(now - 49 * 3_600_000, now)).toBe("2d ago")
    expect([0, 1, 2].map(daysAgo)).toEqual(["today", "1 day ago", "2 days ago"])
  })
})

describe("a reader that stops early", () => {
  it("pm scan | head ends quietly, without an EPIPE trace", async () => {
    const { spawn } = await import("node:child_process")
    const { pmPath } = await import("../support/pm.ts")
    const { tempAgent, tempDir, writeTopics } = await import("../support/tmp.ts")
    const dir = tempDir()
    // Enough output (200 topics and 2,800 skipped lines) to overflow the pipe after the reader is gone.
    writeTopics(dir, 3000)
    const agent = tempAgent()
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [pmPath, "scan", "--memory-dir", dir], {
        env: { ...process.env, PI_CODING_AGENT_DIR: agent.agentDir, HOME: agent.home }
      })
      let stderr = ""
      child.stderr.on("data", (d) => (stderr += d))
      // Read one chunk, then close our end, as `head -1` does.
      child.stdout.once("data", () => child.stdout.destroy())
      child.on("close", (code) => resolve({ code, stderr }))
    })
    expect(result.stderr).not.toContain("EPIPE")
    expect(result.stderr).not.toContain("Unhandled")
    expect(result.code).toBe(0)
  })
})
