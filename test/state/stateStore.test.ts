/** StateStore in one process: migration from the legacy file, version checks, dream attempt and rollback. */
import { Effect, Layer } from "effect"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { StateStore, type StatePaths } from "../../layers/storage/StateStore.ts"
import { parseLegacy, parseShared, rollbackAttempt } from "../../src/storage/state.ts"
import { tempDir } from "../locks/processes.ts"

const layer = StateStore.layer.pipe(
  Layer.provideMerge(LockService.layerWith({ timeouts: { "last-dream-at.lock": 2_000 } })),
  Layer.provide(FileSystem.layer)
)
const run = <A, E>(f: (store: StateStore["Type"]) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(StateStore, f).pipe(Effect.provide(layer)))

const setup = () => {
  const dir = tempDir("state")
  const legacyFile = join(dir.path, "projects", "key", "state.json")
  mkdirSync(join(dir.path, "projects", "key"), { recursive: true })
  const paths: StatePaths = { rootDir: join(dir.path, "memory-roots", "hash"), legacyFile }
  return { dir, paths, legacyFile, shared: join(paths.rootDir, "state.json") }
}

describe("state parsing (pure)", () => {
  it("keeps unknown fields, reports corrupt files, reads ISO or epoch legacy values", () => {
    expect(parseShared("{\"version\":3,\"lastDreamAt\":5,\"future\":[1]}")).toEqual({
      source: "shared",
      state: { version: 3, lastDreamAt: 5, future: [1] }
    })
    expect(parseShared("{\"version\":").source).toBe("corrupt")
    expect(parseShared("{\"version\":-1,\"lastDreamAt\":null}").source).toBe("corrupt")
    expect(parseLegacy("{\"lastDreamAt\":\"2026-01-02T03:04:05.000Z\"}").state.lastDreamAt)
      .toBe(Date.parse("2026-01-02T03:04:05.000Z"))
    expect(parseLegacy("{\"lastDreamAt\":7}")).toEqual({ source: "legacy", state: { version: 0, lastDreamAt: 7 } })
    expect(parseLegacy("nope").source).toBe("empty")
  })
  it("rollback only undoes its own attempt", () => {
    const ticket = { previous: 1, at: 2, attempt: "a" }
    expect(rollbackAttempt({ version: 4, lastDreamAt: 2, dreamAttempt: "a" }, ticket)).toEqual({ version: 4, lastDreamAt: 1 })
    expect(rollbackAttempt({ version: 4, lastDreamAt: 2, dreamAttempt: "b" }, ticket)).toBeUndefined()
    expect(rollbackAttempt({ version: 4, lastDreamAt: 3, dreamAttempt: "a" }, ticket)).toBeUndefined()
  })
})

describe("StateStore", () => {
  it("starts empty, migrates from the legacy file, and never writes the legacy file", async () => {
    const { dir, legacyFile, paths, shared } = setup()
    using _ = dir
    expect(await run((s) => s.read(paths))).toEqual({ source: "empty", state: { version: 0, lastDreamAt: null } })
    writeFileSync(legacyFile, "{\"lastDreamAt\":1000,\"other\":true}")
    expect(await run((s) => s.read(paths))).toEqual({ source: "legacy", state: { version: 0, lastDreamAt: 1000 } })
    const ticket = await run((s) => s.recordDreamAttempt(paths, 5000))
    expect(ticket.previous).toBe(1000)
    expect(JSON.parse(readFileSync(shared, "utf8"))).toMatchObject({ version: 1, lastDreamAt: 5000 })
    expect(readFileSync(legacyFile, "utf8")).toBe("{\"lastDreamAt\":1000,\"other\":true}")
    // From now on the shared file wins.
    writeFileSync(legacyFile, "{\"lastDreamAt\":1}")
    expect((await run((s) => s.read(paths))).state.lastDreamAt).toBe(5000)
  })

  it("compareAndSet: the expected version writes version + 1; a stale one fails with StateConflict", async () => {
    const { dir, paths } = setup()
    using _ = dir
    const written = await run((s) => s.compareAndSet(paths, 0, { version: 0, lastDreamAt: 10 }))
    expect(written).toEqual({ version: 1, lastDreamAt: 10 })
    const conflict = await run((s) => Effect.flip(s.compareAndSet(paths, 0, { version: 0, lastDreamAt: 20 })))
    expect(conflict).toMatchObject({ _tag: "StateConflict", expected: 0, actual: 1 })
    expect((await run((s) => s.read(paths))).state).toEqual({ version: 1, lastDreamAt: 10 })
  })

  it("recordDreamAttempt with an expected version loses to a writer that came first", async () => {
    const { dir, paths } = setup()
    using _ = dir
    const seen = await run((s) => s.read(paths))
    await run((s) => s.recordDreamAttempt(paths, 100))
    const lost = await run((s) => Effect.flip(s.recordDreamAttempt(paths, 200, { expectedVersion: seen.state.version })))
    expect(lost).toMatchObject({ _tag: "StateConflict" })
    expect((await run((s) => s.read(paths))).state.lastDreamAt).toBe(100)
  })

  it("rollback restores the previous value only while the current one is still ours", async () => {
    const { dir, paths } = setup()
    using _ = dir
    await run((s) => s.update(paths, (st) => ({ ...st, lastDreamAt: 1 })))
    const ours = await run((s) => s.recordDreamAttempt(paths, 2))
    expect(await run((s) => s.rollbackDreamAttempt(paths, ours))).toBe(true)
    expect((await run((s) => s.read(paths))).state.lastDreamAt).toBe(1)

    const mine = await run((s) => s.recordDreamAttempt(paths, 3))
    const theirs = await run((s) => s.recordDreamAttempt(paths, 4))
    expect(theirs.previous).toBe(3)
    expect(await run((s) => s.rollbackDreamAttempt(paths, mine))).toBe(false)
    expect((await run((s) => s.read(paths))).state.lastDreamAt).toBe(4)
    // Same timestamp, other attempt: still not ours.
    const a = await run((s) => s.recordDreamAttempt(paths, 9))
    await run((s) => s.recordDreamAttempt(paths, 9))
    expect(await run((s) => s.rollbackDreamAttempt(paths, a))).toBe(false)
  })

  it("update: no change writes nothing; a corrupt file is replaced by the next write", async () => {
    const { dir, paths, shared } = setup()
    using _ = dir
    const unchanged = await run((s) => s.update(paths, () => undefined))
    expect(unchanged.version).toBe(0)
    mkdirSync(paths.rootDir, { recursive: true })
    writeFileSync(shared, "{ half")
    expect((await run((s) => s.read(paths))).source).toBe("corrupt")
    await run((s) => s.update(paths, (st) => ({ ...st, lastDreamAt: 42 })))
    expect(JSON.parse(readFileSync(shared, "utf8"))).toEqual({ version: 1, lastDreamAt: 42 })
  })

  it("concurrent updates in one process are all kept", async () => {
    const { dir, paths } = setup()
    using _ = dir
    // 40 writers queue on one lock: a generous timeout, so a loaded machine makes them slower, never StateBusy.
    const patient = StateStore.layer.pipe(
      Layer.provideMerge(LockService.layerWith({ timeouts: { "last-dream-at.lock": 30_000 } })),
      Layer.provide(FileSystem.layer)
    )
    const run = <A, E>(f: (store: StateStore["Type"]) => Effect.Effect<A, E>) =>
      Effect.runPromise(Effect.flatMap(StateStore, f).pipe(Effect.provide(patient)))
    await run((s) =>
      Effect.all(
        Array.from({ length: 40 }, () => s.update(paths, (st) => ({ ...st, n: Number(st["n"] ?? 0) + 1 }))),
        { concurrency: "unbounded" }
      ))
    expect((await run((s) => s.read(paths))).state).toMatchObject({ version: 40, n: 40 })
  })
})
