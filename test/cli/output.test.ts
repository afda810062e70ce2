import { describe, expect, it } from "vitest"
import { age, table } from "../../cli/output.ts"

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
})
