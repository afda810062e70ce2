import { describe, expect, it } from "vitest"
import { backoffMs, decodeLockRecord, encodeLockRecord, judgeLock, sameLock } from "../../src/lockFile.ts"

const record = { pid: 4242, token: "t-1", acquiredAt: 1_000 }
const alive = () => true
const dead = () => false

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

describe("judgeLock at the timeout edge", () => {
  const timeoutMs = 1_000
  const at = (ageMs: number, isAlive: typeof alive, r: typeof record | null = record) =>
    judgeLock({ existing: { record: r ?? undefined, mtimeMs: 10_000 }, now: 10_000 + ageMs, timeoutMs, isAlive })

  it("is fresh below and at the timeout, whoever the holder", () => {
    expect(at(999, dead)).toBe("fresh")
    expect(at(1_000, dead)).toBe("fresh")
    expect(at(1_000, dead, null)).toBe("fresh")
  })
  it("is stale above the timeout only when the holder is gone", () => {
    expect(at(1_001, dead)).toBe("stale")
    expect(at(1_001, alive)).toBe("holder-alive")
    expect(at(60_000, alive)).toBe("holder-alive")
  })
  it("judges an unreadable file by its age alone", () => {
    expect(at(1_001, alive, null)).toBe("stale")
  })
  it("a clock behind the file's mtime counts as age 0", () => {
    expect(at(-5_000, dead)).toBe("fresh")
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
