import { describe, expect, it } from "vitest"
import { backoffMs, decodeLockRecord, describeHolder, encodeLockRecord, heldForMs, type HolderState, judgeLock, lockAgeMs, sameLock, startTimeOfStat } from "../../src/storage/lockFile.ts"

const record = { pid: 4242, token: "t-1", acquiredAt: 1_000 }

describe("lock records", () => {
  it("round-trips and refuses half-written or foreign content", () => {
    expect(decodeLockRecord(encodeLockRecord(record))).toEqual(record)
    const text = encodeLockRecord(record)
    expect(decodeLockRecord(text.slice(0, text.length - 3))).toBeUndefined()
    expect(decodeLockRecord("")).toBeUndefined()
    expect(decodeLockRecord("{\"pid\":0,\"token\":\"x\",\"acquiredAt\":1}")).toBeUndefined()
    expect(decodeLockRecord("{\"pid\":-1,\"token\":\"x\",\"acquiredAt\":1}")).toBeUndefined()
    expect(decodeLockRecord("{\"pid\":1.5,\"token\":\"x\",\"acquiredAt\":1}")).toBeUndefined()
    expect(decodeLockRecord("{\"pid\":7,\"token\":\"\",\"acquiredAt\":1}")).toBeUndefined()
  })
})

describe("judgeLock: the holder first, then the age", () => {
  const timeoutMs = 1_000
  const unreadableGraceMs = 5_000
  const at = (ageMs: number, state: HolderState, r: typeof record | null = record) =>
    judgeLock({ existing: { record: r ?? undefined, mtimeMs: 10_000 }, now: 10_000 + ageMs, timeoutMs, unreadableGraceMs, holder: () => state })

  it("a holder proven gone frees the lock at any age, even a future one", () => {
    expect(at(0, "gone")).toBe("stale")
    expect(at(-60_000, "gone")).toBe("stale")
    expect(at(999, "gone")).toBe("stale")
  })
  it("a holder proven alive keeps it: fresh up to the timeout, then overdue but never taken", () => {
    expect(at(1_000, "alive")).toBe("fresh")
    expect(at(1_001, "alive")).toBe("holder-alive")
    expect(at(3_600_000, "alive")).toBe("holder-alive")
  })
  it("an unverified holder is judged by age first, then by its pid", () => {
    expect(at(999, "gone-unverified")).toBe("fresh")
    expect(at(1_000, "gone-unverified")).toBe("fresh")
    expect(at(1_001, "gone-unverified")).toBe("stale")
    expect(at(1_001, "alive-unverified")).toBe("holder-alive")
  })
  it("an unreadable file is stale once older than the grace, whatever the timeout", () => {
    expect(at(4_999, "alive", null)).toBe("fresh")
    expect(at(5_000, "alive", null)).toBe("fresh")
    expect(at(5_001, "alive", null)).toBe("stale")
  })
  it("a time in the future counts as now (age 0)", () => {
    expect(lockAgeMs({ record, mtimeMs: 20_000 }, 10_000)).toBe(0)
    expect(heldForMs({ record: { ...record, acquiredAt: 50_000 }, mtimeMs: 0 }, 10_000)).toBe(0)
    expect(at(-5_000, "gone-unverified")).toBe("fresh")
  })
})

describe("startTimeOfStat", () => {
  it("reads field 22 even when the command name holds spaces and parentheses", () => {
    const rest = Array.from({ length: 30 }, (_, i) => String(i + 3)).join(" ")
    expect(startTimeOfStat(`4242 (pm) ${rest.split(" ").slice(0, 10).join(" ")}`)).toBeUndefined() // cut short
    expect(startTimeOfStat(`4242 (a) b) c) ${rest}`)).toBe("22")
    expect(startTimeOfStat("garbage")).toBeUndefined()
  })
})

describe("describeHolder", () => {
  it("names the kind, pid, host and how long it has been held", () => {
    const r = { ...record, kind: "pm forget", host: "box", acquiredAt: 0 }
    expect(describeHolder({ record: r, mtimeMs: 0 }, 12_400)).toBe("pm forget, pid 4242 on box, for 12 s")
    expect(describeHolder({ record: undefined, mtimeMs: 0 }, 3_000)).toBe("an unreadable lock file (last touched 3 s ago)")
  })
})

describe("sameLock", () => {
  it("compares tokens, or mtimes for unreadable files", () => {
    expect(sameLock({ record, mtimeMs: 1 }, { record, mtimeMs: 2 })).toBe(true)
    expect(sameLock({ record, mtimeMs: 1 }, { record: { ...record, token: "t-2" }, mtimeMs: 1 })).toBe(false)
    expect(sameLock({ record: undefined, mtimeMs: 1 }, { record: undefined, mtimeMs: 1 })).toBe(true)
    expect(sameLock({ record: undefined, mtimeMs: 1 }, { record: undefined, mtimeMs: 2 })).toBe(false)
    expect(sameLock({ record: undefined, mtimeMs: 1 }, { record, mtimeMs: 1 })).toBe(false)
  })
})

describe("backoffMs", () => {
  it("grows, stays under the cap, and is never 0", () => {
    expect(backoffMs(0, 2, 50, 1)).toBe(2)
    expect(backoffMs(3, 2, 50, 1)).toBe(16)
    expect(backoffMs(30, 2, 50, 1)).toBe(50)
    expect(backoffMs(5, 2, 50, 0)).toBe(1)
  })
})
