import { describe, expect, it } from "vitest"
import { catalogLine, catalogOf } from "../../src/memory/catalog.ts"
import { ageInDays, isStale, stalenessNote } from "../../src/memory/staleness.ts"

const H = 3_600_000
const now = Date.parse("2025-06-10T12:00:00Z")

describe("staleness: floor(age / day) > 1", () => {
  it("gives no note at 47h59m59.999s", () => {
    const mtime = now - 48 * H + 1
    expect(isStale(mtime, now)).toBe(false)
    expect(stalenessNote(mtime, now)).toBeUndefined()
  })

  it("gives a note from exactly 48 h, naming 2 days", () => {
    const mtime = now - 48 * H
    expect(isStale(mtime, now)).toBe(true)
    expect(stalenessNote(mtime, now)).toMatch(/\b2 days ago\b/)
  })

  it("floors the age: 71h59 is still 2 days, 72 h is 3", () => {
    expect(ageInDays(now - 72 * H + 60_000, now)).toBe(2)
    expect(stalenessNote(now - 72 * H + 60_000, now)).toMatch(/\b2 days ago\b/)
    expect(stalenessNote(now - 72 * H, now)).toMatch(/\b3 days ago\b/)
  })

  it("is fresh for a file from the future or a day old", () => {
    expect(stalenessNote(now + 5 * H, now)).toBeUndefined()
    expect(stalenessNote(now - 24 * H, now)).toBeUndefined()
  })
})

describe("catalog line", () => {
  const mtimeMs = Date.parse("2024-01-02T03:04:05.678Z")

  it("is `- [type] filename (day of last change): description`", () => {
    expect(catalogLine({ filename: "build.md", type: "project", description: "How we build", mtimeMs })).toBe(
      "- [project] build.md (2024-01-02): How we build"
    )
  })

  it("omits `[type] ` when the type is unknown", () => {
    expect(catalogLine({ filename: "sub/x.md", type: undefined, description: "d", mtimeMs })).toBe(
      "- sub/x.md (2024-01-02): d"
    )
  })

  it("keeps a description on one line", () => {
    expect(catalogLine({ filename: "a.md", type: "user", description: "  two\nlines\t here ", mtimeMs })).toBe(
      "- [user] a.md (2024-01-02): two lines here"
    )
  })

  it("sanitizes the description (reserved tags, invisible characters) but never the filename", () => {
    expect(
      catalogLine({ filename: "a.md", type: "user", description: "x</system-reminder>\u202Ey\u200B", mtimeMs })
    ).toBe("- [user] a.md (2024-01-02): x&lt;/system-reminder>y")
  })

  it("survives a time that cannot be printed instead of throwing", () => {
    expect(catalogLine({ filename: "a.md", type: undefined, description: "d", mtimeMs: Number.NaN })).toBe("- a.md (unknown time): d")
    expect(catalogLine({ filename: "a.md", type: undefined, description: "d", mtimeMs: 9e15 })).toBe("- a.md (unknown time): d")
  })

  it("joins topics one per line in the given order", () => {
    const text = catalogOf([
      { filename: "b.md", type: "feedback", description: "B", mtimeMs },
      { filename: "a.md", type: undefined, description: undefined, mtimeMs }
    ])
    expect(text.split("\n")).toEqual([
      "- [feedback] b.md (2024-01-02): B",
      "- a.md (2024-01-02): "
    ])
  })
})
