/** Usage lines show what may be left out in brackets, repeated arguments and options included. */
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { tempAgent } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

const usageOf = async (command: string): Promise<string> => {
  const r = await runPm([command, "--help"], tempAgent())
  return r.stdout.split("\n").find((line) => line.startsWith("$ pm")) ?? ""
}

describe("pm usage lines", () => {
  it("bracket optional repeated arguments and options, and leave required ones bare", async () => {
    expect(await usageOf("lint")).toMatch(/ \[<FILE>\.\.\.\]$/)
    expect(await usageOf("recall")).toContain(" [--select text...] <QUERY>")
    expect(await usageOf("forget")).toMatch(/ <NAME>\.\.\.$/)
    expect(await usageOf("undo")).toMatch(/ \[<task>\]$/)
  })
})
