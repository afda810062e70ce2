/** Leftover temp files: which ones the sweep removes, and that opening a task sweeps the old ones. */
import { Effect } from "effect"
import { existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { isTempName, newTempName, TEMP_STALE_MS } from "../../layers/storage/AtomicPublish.ts"
import { MemoryWriter } from "../../layers/writes/MemoryWriter.ts"
import { LOCK_TIMEOUTS_MS } from "../../src/limits.ts"
import { sandbox, temps, withTask, writerLayer } from "./support.ts"

/** A file whose mtime is `ageMs` in the past. */
const aged = (path: string, ageMs: number, content = "x") => {
  writeFileSync(path, content)
  const t = (Date.now() - ageMs) / 1000
  utimesSync(path, t, t)
  return path
}

describe("temp file names", () => {
  it("one pattern: .pm-<uuid>.tmp, and only that", () => {
    const name = newTempName()
    expect(name).toMatch(/^\.pm-[0-9a-f-]{36}\.tmp$/)
    expect(isTempName(name)).toBe(true)
    for (const other of ["a.md", ".pm-x.md", "pm-x.tmp", "state.json.tmp", ".MEMORY.md.1.tmp"]) {
      expect(isTempName(other), other).toBe(false)
    }
  })
  it("stale after the longest lock timeout (the dream's 60 minutes)", () => {
    expect(TEMP_STALE_MS).toBe(LOCK_TIMEOUTS_MS["dream.lock"])
    expect(TEMP_STALE_MS).toBe(60 * 60 * 1000)
  })
})

describe("sweepTemps", () => {
  it("removes old temp files at any depth; keeps young ones, other files, dot-directories and link targets", async () => {
    using s = sandbox()
    const hour = 60 * 60 * 1000
    mkdirSync(join(s.memory, "a", "b"), { recursive: true })
    mkdirSync(join(s.memory, ".git"))
    const old = [
      aged(join(s.memory, newTempName()), 2 * hour),
      aged(join(s.memory, "a", newTempName()), 2 * hour),
      aged(join(s.memory, "a", "b", newTempName()), 2 * hour)
    ]
    const young = aged(join(s.memory, newTempName()), 10 * 60 * 1000)
    const kept = [
      aged(join(s.memory, "topic.md"), 2 * hour),
      aged(join(s.memory, "other.tmp"), 2 * hour),
      aged(join(s.memory, ".git", newTempName()), 2 * hour),
      aged(join(s.outside, newTempName()), 2 * hour)
    ]
    // A link into another directory is not followed.
    symlinkSync(s.outside, join(s.memory, "linked"))
    const swept = await Effect.runPromise(
      Effect.flatMap(MemoryWriter, (w) => w.sweepTemps(s.memory, hour)).pipe(Effect.provide(writerLayer()))
    )
    expect(swept).toBe(3)
    for (const p of old) expect(existsSync(p), p).toBe(false)
    for (const p of [young, ...kept]) expect(existsSync(p), p).toBe(true)
  })

  it("at the age edge: older than the limit goes, at or younger than it stays", async () => {
    using s = sandbox()
    const limit = 10 * 60 * 1000
    const over = aged(join(s.memory, newTempName()), limit + 5_000)
    const under = aged(join(s.memory, newTempName()), limit - 5_000)
    const swept = await Effect.runPromise(
      Effect.flatMap(MemoryWriter, (w) => w.sweepTemps(s.memory, limit)).pipe(Effect.provide(writerLayer()))
    )
    expect(swept).toBe(1)
    expect(existsSync(over)).toBe(false)
    expect(existsSync(under)).toBe(true)
  })

  it("opening a task sweeps temp files older than TEMP_STALE_MS, and leaves younger ones to their writers", async () => {
    using s = sandbox()
    const stale = aged(join(s.memory, newTempName()), TEMP_STALE_MS + 60_000)
    const live = aged(join(s.memory, newTempName()), TEMP_STALE_MS - 60_000)
    await withTask({ memoryDir: s.memory, cwd: s.memory }, () => Effect.void)
    expect(existsSync(stale)).toBe(false)
    expect(existsSync(live)).toBe(true)
    expect(temps(s.memory)).toHaveLength(1)
  })
})
