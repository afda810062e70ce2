/** Leftover temp files: which ones the sweep removes, and that opening a task sweeps the old ones. */
import { Effect } from "effect"
import { existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { isTempName, newTempName, TEMP_STALE_MS, tempOwnerGone } from "../../layers/storage/AtomicPublish.ts"
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
  it("one pattern: .pm-<pid>-<table>-<uuid>.tmp, and only that", () => {
    const name = newTempName()
    expect(name).toMatch(new RegExp(`^\\.pm-${process.pid}-[0-9a-f]{8}-[0-9a-f-]{36}\\.tmp$`))
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

/** A temp file name as process `pid` of this process table (or of another table: `table`) would make it. */
const tempOf = (pid: number, table?: string) => {
  const [, , ours, ...rest] = newTempName().split("-")
  return [".pm", String(pid), table ?? ours, ...rest].join("-")
}
/** Above Linux's largest pid (2^22): no process has it. */
const DEAD_PID = 2 ** 22 + 12_345

describe("temp files of a writer that is gone", () => {
  it("go at any age once their writer is provably gone; a live writer's, ours, another table's and unnamed ones wait for their age", async () => {
    using s = sandbox()
    const gone = aged(join(s.memory, tempOf(DEAD_PID)), 0)
    const deep = (mkdirSync(join(s.memory, "a"), { recursive: true }), aged(join(s.memory, "a", tempOf(DEAD_PID)), 0))
    const kept = [
      aged(join(s.memory, tempOf(process.ppid)), 0), // a live process
      aged(join(s.memory, newTempName()), 0), // ours: a write of this very process may be under way
      aged(join(s.memory, tempOf(DEAD_PID, "0badf00d")), 0), // another process table: its pid means nothing here
      aged(join(s.memory, `.pm-${"1".repeat(8)}-1111-1111-1111-111111111111.tmp`), 0) // an older name, no pid
    ]
    const swept = await Effect.runPromise(
      Effect.flatMap(MemoryWriter, (w) => w.sweepTemps(s.memory, TEMP_STALE_MS)).pipe(Effect.provide(writerLayer()))
    )
    expect(swept).toBe(2)
    for (const p of [gone, deep]) expect(existsSync(p), p).toBe(false)
    for (const p of kept) expect(existsSync(p), p).toBe(true)
  })

  it("tempOwnerGone judges the name alone, with the liveness it is given", () => {
    expect(tempOwnerGone(tempOf(4242), () => false)).toBe(true)
    expect(tempOwnerGone(tempOf(4242), () => true)).toBe(false)
    expect(tempOwnerGone(tempOf(process.pid), () => false)).toBe(false)
    expect(tempOwnerGone(tempOf(4242, "0badf00d"), () => false)).toBe(false)
    expect(tempOwnerGone(".pm-4242.tmp", () => false)).toBe(false)
  })
})
