/**
 * Differential test of the guard against bash itself.
 *
 * Every command the guard classes read-only is run under real bash in a sandbox whose PATH holds only logging stubs
 * (and the real programs where their behaviour matters), without network, as an unprivileged user; the programs bash
 * ran must be exactly the guard's reading of the command, each of them must be allowed when written out literally,
 * nothing may start a forbidden program, and nothing under the sandbox root may change (test/bash/differential/).
 *
 * The seed corpus (test/fixtures/bash-bypass-seeds.jsonl) holds the bypasses found so far: each must be rejected, and
 * the ones marked `demo` are run under bash here to show that they really execute what the guard's reading hides.
 *
 * Bounded: DIFF_EXECUTIONS commands run under bash (default 120) from seed DIFF_SEED. Longer runs:
 * `node scripts/fuzz-guard.mjs --seed N --count M`.
 */
import { spawnSync } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadSeeds, runCampaign, seedCommand } from "./differential/campaign.ts"
import { Harness } from "./differential/harness.ts"

const SEED = Number(process.env.DIFF_SEED ?? 0x9d1ff)
const EXECUTIONS = Number(process.env.DIFF_EXECUTIONS ?? 120)

const seeds = loadSeeds()
const installed = (program: string): boolean =>
  spawnSync("/bin/sh", ["-c", `command -v ${program}`], { stdio: "ignore", env: { PATH: "/usr/local/bin:/usr/bin:/bin" } }).status === 0

let h: Harness

beforeAll(async () => {
  h = await Harness.make()
})

afterAll(async () => {
  await h?.dispose()
})

describe("the sandbox and the oracle", () => {
  it("runs without network as an unprivileged user when root (else says how it runs)", () => {
    const isRoot = process.getuid?.() === 0
    if (isRoot) expect(h.sandbox.isolation).toBe("unshare-root")
    else expect(["unshare-user", "none"]).toContain(h.sandbox.isolation)
    const run = h.runAnyway("echo x > /dev/tcp/127.0.0.1/9 || true")
    // No interface but a down loopback in the new namespace: the connection cannot even be attempted.
    expect(run.stderr).toMatch(/Network is unreachable|Connection refused|Cannot assign/)
  })

  it("logs what bash runs, word for word, and flags a write, a forbidden program and a hidden command", () => {
    const r = h.judgeAnyway("echo a 'b c'; touch PWNED; echo x > made.txt")
    expect(r.run.log.filter((e) => e.depth === 0).map((e) => e.argv)).toEqual([
      ["echo", "a", "b c"],
      ["touch", "PWNED"],
      ["echo", "x"]
    ])
    expect(r.run.changes).toEqual(["new file sandbox/project/made.txt"])
    expect(r.mismatch?.problems).toContain('ran a forbidden program: ["touch","PWNED"]')
  })

  it("lays the sandbox anew after a command that changed it", () => {
    h.runAnyway("echo x > again.txt")
    expect(h.runAnyway("true").changes).toEqual([])
  })

  it("accepts a plain allowed pipeline whose globs and statuses it must follow", () => {
    const c = h.check("cd ../memory && ls -- * | sort -r || cat missing.txt")
    expect(c.verdict).toEqual({ verdict: "read-only" })
    expect(c.mismatch).toBeUndefined()
    expect(c.run?.log.map((e) => e.argv[0])).toEqual(expect.arrayContaining(["cd", "ls", "sort"]))
  })
})

describe("seed corpus: every known bypass is rejected", () => {
  it.each(seeds.filter((s) => s.class !== 6).map((s) => [s.class, JSON.stringify(s.command), s] as const))(
    "class %i: %s",
    (_cls, _shown, seed) => {
      const verdict = h.classify(seedCommand(seed))
      expect(verdict.verdict, `${seed.note}`).toBe("rejected")
    }
  )

  // Class 6 (cost: a 300 KB brace input) is a figure, not a verdict: `node scripts/fuzz-guard.mjs --seeds` times each
  // seed. It is not classified here because a quadratic guard would block this worker for minutes.
})

describe("seed corpus: the demonstrated seeds really run what the guard's reading hides", () => {
  for (const seed of seeds.filter((s) => s.demo === true)) {
    const needs = seed.needs ?? []
    const missing = needs.filter((p) => !installed(p))
    it.skipIf(missing.length > 0)(`class ${seed.class}: ${JSON.stringify(seed.command)}${missing.length > 0 ? ` (needs ${missing.join(", ")})` : ""}`, () => {
      const r = h.judgeAnyway(seedCommand(seed))
      expect(r.mismatch, `bash ran: ${JSON.stringify(r.run.log.map((e) => e.argv))}`).toBeDefined()
    })
  }
})

describe("generated commands", () => {
  it(
    `${EXECUTIONS} allowed commands from seed ${SEED} run exactly as the guard read them`,
    async () => {
      const result = await runCampaign(h, { seed: SEED, count: EXECUTIONS * 20, maxExecutions: EXECUTIONS })
      expect(result.executed).toBe(EXECUTIONS)
      const shown = result.mismatches.map((m) => `#${m.index} ${JSON.stringify(m.command)}\n    ${m.problems.join("\n    ")}`)
      expect(shown, `seed ${SEED}: ${result.mismatches.length} of ${result.executed} commands ran differently from the guard's reading`).toEqual([])
    },
    300_000
  )
})
