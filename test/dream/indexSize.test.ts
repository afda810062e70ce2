/** The dream's target for MEMORY.md (160 lines / 20,000 characters), checked at, below and above each edge. */
import { describe, expect, it } from "vitest"
import { indexSize } from "../../layers/background/dreamInterface.ts"

const lines = (n: number): string => Array.from({ length: n }, (_, i) => `- [T${i}](t${i}.md) - topic`).join("\n") + "\n"

describe("indexSize", () => {
  it("is over the target above 160 lines, not at or below; a final newline opens no line", () => {
    expect(indexSize(lines(159))).toMatchObject({ lines: 159, overTarget: false })
    expect(indexSize(lines(160))).toMatchObject({ lines: 160, overTarget: false })
    expect(indexSize(lines(161))).toMatchObject({ lines: 161, overTarget: true })
  })

  it("is over the target above 20,000 characters, not at or below", () => {
    expect(indexSize("x".repeat(19_999))).toMatchObject({ chars: 19_999, overTarget: false })
    expect(indexSize("x".repeat(20_000))).toMatchObject({ chars: 20_000, overTarget: false })
    expect(indexSize("x".repeat(20_001))).toMatchObject({ chars: 20_001, overTarget: true })
  })

  it("a missing index is not over the target", () => {
    expect(indexSize(undefined)).toEqual({ exists: false, lines: 0, chars: 0, overTarget: false })
    expect(indexSize("")).toEqual({ exists: true, lines: 0, chars: 0, overTarget: false })
  })
})
