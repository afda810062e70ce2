/** Which runtime messages mean "a tool was not found" (and may mend on a second try), and which do not. */
import { describe, expect, it } from "vitest"
import { lookupMisses } from "../../src/safety/sandbox.ts"

describe("lookupMisses", () => {
  it("names the tool of each lookup message the runtime writes", () => {
    expect(lookupMisses(["Shell 'bash' not found in PATH"])).toEqual(["bash"])
    expect(lookupMisses(["bubblewrap (bwrap) not installed", "socat not installed", "ripgrep (rg) not found"])).toEqual(["bwrap", "socat", "rg"])
  })

  it("is undefined when there is no failure, or one failure is of another kind", () => {
    expect(lookupMisses([])).toBeUndefined()
    expect(lookupMisses(["socat not installed", "bubblewrap (bwrap) not executable at /opt/bwrap"])).toBeUndefined()
    expect(lookupMisses(["Shell 'bash' not found in PATH; and more"])).toBeUndefined()
  })
})
