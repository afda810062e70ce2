/** A count written with en-US digit groups, by plain string work: the same text toLocaleString("en-US") gives. */
import { describe, expect, it } from "vitest"
import { grouped } from "../../src/memory/counts.ts"

describe("grouped", () => {
  it("writes whole numbers as en-US does, at every group edge", () => {
    const samples = [0, 1, 12, 999, 1_000, 1_001, 9_999, 10_000, 99_999, 100_000, 999_999, 1_000_000, 1_048_576, 8_388_608, 2 ** 53 - 1]
    for (const n of [...samples, ...samples.map((x) => -x)]) expect(grouped(n)).toBe(n.toLocaleString("en-US"))
  })
  it("leaves what is not a safe whole number as JavaScript writes it", () => {
    expect(grouped(1.5)).toBe("1.5")
    expect(grouped(Number.NaN)).toBe("NaN")
  })
})
