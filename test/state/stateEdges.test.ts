/** StateStore edges: compare-and-swap conflicts, damaged files, version monotonicity, legacy migration. */
import { Effect, Layer } from "effect"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { StateStore, type StatePaths } from "../../layers/storage/StateStore.ts"
import { tempDir } from "../locks/processes.ts"

const layer = StateStore.layer.pipe(
  Layer.provideMerge(LockService.layerWith({ timeouts: { "last-dream-at.lock": 2_000 } })),
  Layer.provide(FileSystem.layer)
)
const run = <A, E>(f: (store: StateStore["Type"]) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(StateStore, f).pipe(Effect.provide(layer)))

const setup = () => {
  const dir = tempDir("state-edges")
  const legacyFile = join(dir.path, "projects", "key", "state.json")
  mkdirSync(join(dir.path, "projects", "key"), { recursive: true })
  const paths: StatePaths = { rootDir: join(dir.path, "memory-roots", "hash"), legacyFile }
  mkdirSync(paths.rootDir, { recursive: true })
  return { dir, paths, legacyFile, shared: join(paths.rootDir, "state.json") }
}

/** Nothing but state.json (and the empty locks folder) in the root: no temp file, no lock left behind. */
const clean = (rootDir: string) => {
  expect(readdirSync(rootDir).filter((n) => n !== "locks" && n !== "state.json")).toEqual([])
  expect(existsSync(join(rootDir, "locks", "last-dream-at.lock"))).toBe(false)
}

describe("compare-and-swap conflicts", () => {
  it("an expected version behind or ahead of the file conflicts, names both versions and writes nothing", async () => {
    const { dir, paths, shared } = setup()
    using _ = dir
    await run((s) => s.compareAndSet(paths, 0, { version: 0, lastDreamAt: 1 }))
    await run((s) => s.compareAndSet(paths, 1, { version: 1, lastDreamAt: 2 }))
    const before = readFileSync(shared, "utf8")
    for (const expected of [0, 1, 3, 100]) {
      const conflict = await run((s) => Effect.flip(s.compareAndSet(paths, expected, { version: expected, lastDreamAt: 9 })))
      expect(conflict).toMatchObject({ _tag: "StateConflict", expected, actual: 2 })
      expect(conflict.message).toContain("read it again")
    }
    expect(readFileSync(shared, "utf8")).toBe(before)
    clean(paths.rootDir)
    // Re-read, then retry at the version found: it goes through.
    const current = await run((s) => s.read(paths))
    expect(await run((s) => s.compareAndSet(paths, current.state.version, { ...current.state, lastDreamAt: 9 })))
      .toEqual({ version: 3, lastDreamAt: 9 })
  })

  it("ten writers from the same version at once: exactly one wins, the others conflict with the winner's version", async () => {
    const { dir, paths } = setup()
    using _ = dir
    const results = await run((s) =>
      Effect.all(
        Array.from({ length: 10 }, (_, i) => Effect.either(s.compareAndSet(paths, 0, { version: 0, lastDreamAt: i }))),
        { concurrency: "unbounded" }
      ))
    const won = results.filter((r) => r._tag === "Right")
    expect(won).toHaveLength(1)
    for (const r of results.filter((r) => r._tag === "Left")) expect(r.left).toMatchObject({ _tag: "StateConflict", actual: 1 })
    const state = (await run((s) => s.read(paths))).state
    expect(state.version).toBe(1)
    expect(won[0]!._tag === "Right" && won[0]!.right.lastDreamAt).toBe(state.lastDreamAt)
    clean(paths.rootDir)
  })

  it("recordDreamAttempt at a stale expected version conflicts and leaves lastDreamAt as it was", async () => {
    const { dir, paths } = setup()
    using _ = dir
    await run((s) => s.recordDreamAttempt(paths, 100))
    const lost = await run((s) => Effect.flip(s.recordDreamAttempt(paths, 200, { expectedVersion: 0 })))
    expect(lost).toMatchObject({ _tag: "StateConflict", expected: 0, actual: 1 })
    const ok = await run((s) => s.recordDreamAttempt(paths, 300, { expectedVersion: 1 }))
    expect(ok.previous).toBe(100)
    expect((await run((s) => s.read(paths))).state).toMatchObject({ version: 2, lastDreamAt: 300 })
  })
})

describe("damaged state.json", () => {
  const corrupt: ReadonlyArray<readonly [string, string]> = [
    ["empty", ""],
    ["truncated", "{\"version\":3,\"lastDre"],
    ["an array", "[1,2]"],
    ["null", "null"],
    ["a negative version", "{\"version\":-1,\"lastDreamAt\":null}"],
    ["a fractional version", "{\"version\":1.5,\"lastDreamAt\":null}"],
    ["a string version", "{\"version\":\"3\",\"lastDreamAt\":null}"],
    ["no version", "{\"lastDreamAt\":5}"],
    ["a string lastDreamAt", "{\"version\":3,\"lastDreamAt\":\"yesterday\"}"],
    ["binary", "\u0000\u00ff\u0001garbage"]
  ]
  for (const [label, text] of corrupt) {
    it(`${label}: read reports corrupt (not the legacy file); the next write replaces it at version 1`, async () => {
      const { dir, paths, shared, legacyFile } = setup()
      using _ = dir
      writeFileSync(legacyFile, "{\"lastDreamAt\":777}")
      writeFileSync(shared, text)
      expect(await run((s) => s.read(paths))).toEqual({ source: "corrupt", state: { version: 0, lastDreamAt: null } })
      // A writer that read version 3 before the damage conflicts; one that saw the damage goes through.
      expect(await run((s) => Effect.flip(s.compareAndSet(paths, 3, { version: 3, lastDreamAt: 1 }))))
        .toMatchObject({ _tag: "StateConflict", actual: 0 })
      await run((s) => s.compareAndSet(paths, 0, { version: 0, lastDreamAt: 42 }))
      expect(JSON.parse(readFileSync(shared, "utf8"))).toEqual({ version: 1, lastDreamAt: 42 })
      clean(paths.rootDir)
    })
  }

  it("at the 1 MiB read limit a file is read whole; one byte more is cut and reads as corrupt", async () => {
    const { dir, paths, shared } = setup()
    using _ = dir
    const head = "{\"version\":4,\"lastDreamAt\":null,\"pad\":\""
    const tail = "\"}"
    const at = head + "a".repeat(1_048_576 - head.length - tail.length) + tail
    expect(Buffer.byteLength(at)).toBe(1_048_576)
    writeFileSync(shared, at)
    expect((await run((s) => s.read(paths))).source).toBe("shared")
    writeFileSync(shared, head + "a".repeat(1_048_577 - head.length - tail.length) + tail)
    expect((await run((s) => s.read(paths))).source).toBe("corrupt")
  })

  it("a state.json that is a directory fails reads and writes with StateFailed, and releases the lock", async () => {
    const { dir, paths, shared } = setup()
    using _ = dir
    mkdirSync(shared)
    expect(await run((s) => Effect.flip(s.read(paths)))).toMatchObject({ _tag: "StateFailed", op: "read" })
    expect(await run((s) => Effect.flip(s.update(paths, (st) => ({ ...st, lastDreamAt: 1 })))))
      .toMatchObject({ _tag: "StateFailed" })
    expect(existsSync(join(paths.rootDir, "locks", "last-dream-at.lock"))).toBe(false)
  })
})

describe("version monotonicity", () => {
  it("every write is exactly the previous version + 1, whatever version the caller's state carries", async () => {
    const { dir, paths } = setup()
    using _ = dir
    const versions: Array<number> = []
    versions.push((await run((s) => s.compareAndSet(paths, 0, { version: 99, lastDreamAt: 1 }))).version)
    versions.push((await run((s) => s.update(paths, (st) => ({ ...st, version: -5, lastDreamAt: 2 })))).version)
    versions.push((await run((s) => s.compareAndSet(paths, 2, { version: 0, lastDreamAt: 3 }))).version)
    const ticket = await run((s) => s.recordDreamAttempt(paths, 4))
    versions.push((await run((s) => s.read(paths))).state.version)
    expect(await run((s) => s.rollbackDreamAttempt(paths, ticket))).toBe(true)
    versions.push((await run((s) => s.read(paths))).state.version)
    expect(versions).toEqual([1, 2, 3, 4, 5])
  })

  it("no change writes nothing and keeps the version; a rollback that is not ours keeps it too", async () => {
    const { dir, paths, shared } = setup()
    using _ = dir
    await run((s) => s.update(paths, (st) => ({ ...st, lastDreamAt: 1 })))
    const before = readFileSync(shared, "utf8")
    expect((await run((s) => s.update(paths, () => undefined))).version).toBe(1)
    expect(await run((s) => s.rollbackDreamAttempt(paths, { previous: null, at: 1, attempt: "someone else" }))).toBe(false)
    expect(readFileSync(shared, "utf8")).toBe(before)
  })
})

describe("legacy migration", () => {
  const cases: ReadonlyArray<readonly [string, string | undefined, { source: string; lastDreamAt: number | null }]> = [
    ["epoch milliseconds", "{\"lastDreamAt\":1700000000000}", { source: "legacy", lastDreamAt: 1700000000000 }],
    ["an ISO string", "{\"lastDreamAt\":\"2026-01-02T03:04:05.000Z\"}", { source: "legacy", lastDreamAt: Date.parse("2026-01-02T03:04:05.000Z") }],
    ["null", "{\"lastDreamAt\":null}", { source: "legacy", lastDreamAt: null }],
    ["no lastDreamAt", "{\"other\":1}", { source: "legacy", lastDreamAt: null }],
    ["an unparsable date", "{\"lastDreamAt\":\"yesterday\"}", { source: "empty", lastDreamAt: null }],
    ["not JSON", "{nope", { source: "empty", lastDreamAt: null }],
    ["an array", "[]", { source: "empty", lastDreamAt: null }],
    ["absent", undefined, { source: "empty", lastDreamAt: null }]
  ]
  for (const [label, text, want] of cases) {
    it(`a legacy file holding ${label} seeds version 0 with lastDreamAt ${want.lastDreamAt}; the first write migrates it`, async () => {
      const { dir, paths, legacyFile, shared } = setup()
      using _ = dir
      if (text !== undefined) writeFileSync(legacyFile, text)
      expect(await run((s) => s.read(paths))).toEqual({ source: want.source, state: { version: 0, lastDreamAt: want.lastDreamAt } })
      const ticket = await run((s) => s.recordDreamAttempt(paths, 5, { expectedVersion: 0 }))
      expect(ticket.previous).toBe(want.lastDreamAt)
      expect(JSON.parse(readFileSync(shared, "utf8"))).toMatchObject({ version: 1, lastDreamAt: 5 })
      // Rolled back, the shared file keeps the migrated value; the legacy file is never written.
      expect(await run((s) => s.rollbackDreamAttempt(paths, ticket))).toBe(true)
      expect((await run((s) => s.read(paths))).state).toMatchObject({ version: 2, lastDreamAt: want.lastDreamAt })
      if (text !== undefined) expect(readFileSync(legacyFile, "utf8")).toBe(text)
      else expect(existsSync(legacyFile)).toBe(false)
    })
  }

  it("an unreadable legacy file (a directory) counts as absent and never blocks creating the shared file", async () => {
    const { dir, paths, legacyFile } = setup()
    using _ = dir
    mkdirSync(legacyFile)
    expect(await run((s) => s.read(paths))).toEqual({ source: "empty", state: { version: 0, lastDreamAt: null } })
    expect((await run((s) => s.update(paths, (st) => ({ ...st, lastDreamAt: 1 })))).version).toBe(1)
  })

  it("without a legacy path the state starts empty", async () => {
    const { dir, paths } = setup()
    using _ = dir
    expect(await run((s) => s.read({ rootDir: paths.rootDir }))).toEqual({ source: "empty", state: { version: 0, lastDreamAt: null } })
  })

  it("once the shared file exists, the legacy file is ignored, even a newer one", async () => {
    const { dir, paths, legacyFile } = setup()
    using _ = dir
    writeFileSync(legacyFile, "{\"lastDreamAt\":10}")
    await run((s) => s.update(paths, (st) => st.lastDreamAt === 10 ? { ...st, lastDreamAt: 11 } : undefined))
    writeFileSync(legacyFile, "{\"lastDreamAt\":99999}")
    expect((await run((s) => s.read(paths)))).toEqual({ source: "shared", state: { version: 1, lastDreamAt: 11 } })
  })
})

describe("leftover temp files in the state folder", () => {
  it("are swept under the lock once they are older than the lock's timeout; young ones are left", async () => {
    const { dir, paths } = setup()
    using _ = dir
    const old = join(paths.rootDir, ".pm-00000000-0000-4000-8000-000000000000.tmp")
    const young = join(paths.rootDir, ".pm-11111111-1111-4111-8111-111111111111.tmp")
    writeFileSync(old, "x")
    writeFileSync(young, "x")
    const { utimesSync } = await import("node:fs")
    const t = (Date.now() - 10_000) / 1000 // the test lock's timeout is 2 s
    utimesSync(old, t, t)
    await run((s) => s.update(paths, (st) => ({ ...st, lastDreamAt: 1 })))
    expect(existsSync(old)).toBe(false)
    expect(existsSync(young)).toBe(true)
  })
})
