/** `pm eval` on the command line: listed by `pm help` with its two parts, and an unknown part named as such. */
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, runPm } from "../support/pm.ts"

beforeAll(() => ensureBuilt())

describe("pm eval's command line", () => {
  it("pm help lists eval, and pm help eval its recall and extract parts", async () => {
    const all = await runPm(["help"])
    expect(all.stdout).toMatch(/^\s+- eval \[--cwd directory\] \[--json\] \[--model text\]\s+Measure memory quality/m)
    const one = await runPm(["help", "eval"])
    expect(one.stdout).toMatch(/^\s+- recall \[--cwd directory\] \[--json\] \[--model text\] \[--set directory\]\s+Measure recall/m)
    expect(one.stdout).toMatch(/^\s+- extract \[--cwd directory\] \[--json\] \[--model text\]\s+Measure extraction/m)
  })

  it("an unknown part is named, with the parts there are", async () => {
    for (const args of [["eval", "bogus"], ["eval", "--model", "a/b", "bogus"]]) {
      const r = await runPm(args)
      expect(r.code).toBe(2)
      expect(r.stderr).toBe("pm: unknown subcommand 'bogus' of pm eval; use one of recall, extract (pm eval --help)\n")
    }
  })
})
