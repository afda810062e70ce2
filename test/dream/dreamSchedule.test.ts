/**
 * The dream trigger and its attempt time: the arithmetic at its edges (pure), the session-directory scan on real
 * files with the 10-minute throttle on Effect's TestClock, and every `lastDreamAt` outcome through the real
 * StateStore and LockService on disk.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, TestClock } from "effect"
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { DreamAttempt, DreamTaskFailed } from "../../layers/background/DreamAttempt.ts"
import { SessionScanner } from "../../layers/background/SessionScanner.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { StateStore, type StatePaths } from "../../layers/storage/StateStore.ts"
import {
  DEFAULT_DREAM_THRESHOLDS,
  parseSessionHeader,
  recentSessions,
  rollsBackAttemptTime,
  timeIsDue
} from "../../src/background/dreamSchedule.ts"
import { tempDir } from "../support/tmp.ts"

const HOUR = 3_600_000
const MINUTE = 60_000
const NOW = Date.parse("2026-11-30T12:00:00.000Z")

describe("dream schedule (pure)", () => {
  it("is due at exactly 24 hours after the last attempt, not a minute before; a project that never dreamed is due", () => {
    expect(timeIsDue(NOW - 24 * HOUR, NOW)).toBe(true)
    expect(timeIsDue(NOW - 24 * HOUR + MINUTE, NOW)).toBe(false)
    expect(timeIsDue(NOW - 24 * HOUR - 1, NOW)).toBe(true)
    expect(timeIsDue(null, NOW)).toBe(true)
    expect(timeIsDue(NOW - 2 * HOUR, NOW, { ...DEFAULT_DREAM_THRESHOLDS, minHours: 2 })).toBe(true)
  })

  it("counts other sessions updated after the last attempt, once each, the current one left out", () => {
    const files = [
      { id: "a", mtimeMs: NOW - 1 },
      { id: "b", mtimeMs: NOW - 2 },
      { id: "a", mtimeMs: NOW - 5 },
      { id: "current", mtimeMs: NOW },
      { id: "old", mtimeMs: NOW - 30 * HOUR },
      { id: "edge", mtimeMs: NOW - 25 * HOUR }
    ]
    expect(recentSessions(files, { lastDreamAt: NOW - 25 * HOUR, currentSessionId: "current" })).toEqual(["a", "b"])
    expect(recentSessions(files, { lastDreamAt: null, currentSessionId: "current" })).toEqual(["a", "b", "edge", "old"])
  })

  it("reads only Pi session headers with a valid id", () => {
    expect(parseSessionHeader(JSON.stringify({ type: "session", version: 3, id: "0198-ab.c_d", cwd: "/p" }))).toEqual({ id: "0198-ab.c_d", cwd: "/p" })
    expect(parseSessionHeader(JSON.stringify({ type: "session", id: "-bad" }))).toBeUndefined()
    expect(parseSessionHeader(JSON.stringify({ type: "session", id: "bad." }))).toBeUndefined()
    expect(parseSessionHeader(JSON.stringify({ type: "session", id: "a/b" }))).toBeUndefined()
    expect(parseSessionHeader(JSON.stringify({ type: "message", id: "abc" }))).toBeUndefined()
    expect(parseSessionHeader("{\"type\":\"session\",\"id\":")).toBeUndefined()
    expect(parseSessionHeader("[1]")).toBeUndefined()
  })

  it("rolls the attempt time back only for a failure during the fork step", () => {
    expect(rollsBackAttemptTime("failed-in-fork")).toBe(true)
    expect(rollsBackAttemptTime("returned")).toBe(false)
    expect(rollsBackAttemptTime("aborted")).toBe(false)
    expect(rollsBackAttemptTime("failed-after-completion")).toBe(false)
  })
})

/** A session directory with real Pi-format header lines and chosen mtimes. */
const sessionDir = (sessions: ReadonlyArray<{ readonly id: string; readonly mtimeMs: number }>) => {
  const dir = join(tempDir("pm-sessions-"), "sessions")
  mkdirSync(dir, { recursive: true })
  for (const s of sessions) {
    const file = join(dir, `2026-11-30T00-00-00-000Z_${s.id}.jsonl`)
    writeFileSync(file, JSON.stringify({ type: "session", version: 3, id: s.id, timestamp: "2026-11-30T00:00:00.000Z", cwd: "/p" }) + "\n{\"type\":\"message\"}\n")
    utimesSync(file, s.mtimeMs / 1000, s.mtimeMs / 1000)
  }
  return dir
}

const world = () => {
  const root = tempDir("pm-dream-")
  const paths: StatePaths = { rootDir: join(root, "memory-roots", "hash") }
  return { paths, stateFile: join(paths.rootDir, "state.json") }
}

const services = () => {
  const base = Layer.mergeAll(LockService.layer, SessionScanner.layer).pipe(Layer.provideMerge(FileSystem.layer))
  return DreamAttempt.layer.pipe(Layer.provideMerge(StateStore.layer), Layer.provideMerge(base))
}

const lastDreamAtOf = (stateFile: string): number | null => (JSON.parse(readFileSync(stateFile, "utf8")) as { lastDreamAt: number | null }).lastDreamAt

describe("session scan", () => {
  it.effect("skips corrupt, foreign, unreadable and non-file entries, and scans a directory at most once per 10 minutes", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const dir = sessionDir([{ id: "s1", mtimeMs: NOW - HOUR }, { id: "s2", mtimeMs: NOW - 2 * HOUR }])
      writeFileSync(join(dir, "corrupt.jsonl"), "{not json\n")
      writeFileSync(join(dir, "other.jsonl"), JSON.stringify({ type: "message", id: "x" }) + "\n")
      writeFileSync(join(dir, "notes.txt"), JSON.stringify({ type: "session", id: "txt" }) + "\n")
      mkdirSync(join(dir, "folder.jsonl"))
      execFileSync("mkfifo", [join(dir, "pipe.jsonl")])
      const scanner = yield* SessionScanner
      const first = yield* scanner.scan({ sessionDir: dir, intervalMs: 10 * MINUTE })
      expect(first._tag).toBe("Scanned")
      if (first._tag !== "Scanned") return
      expect(first.files.map((f) => f.id).sort()).toEqual(["s1", "s2"])
      expect(first.skipped).toBe(4)

      yield* TestClock.adjust(10 * MINUTE - 1)
      expect(yield* scanner.scan({ sessionDir: dir, intervalMs: 10 * MINUTE })).toEqual({ _tag: "Throttled", nextScanAt: NOW + 10 * MINUTE })
      yield* TestClock.adjust(1)
      expect((yield* scanner.scan({ sessionDir: dir, intervalMs: 10 * MINUTE }))._tag).toBe("Scanned")
    }).pipe(Effect.provide(SessionScanner.layer.pipe(Layer.provide(FileSystem.layer)))))

  it.effect("in a shared session directory keeps only this project's sessions", () =>
    Effect.gen(function*() {
      const dir = sessionDir([])
      for (const [id, cwd] of [["mine", "/work/p/sub"], ["theirs", "/work/q"]] as const) {
        writeFileSync(join(dir, `${id}.jsonl`), JSON.stringify({ type: "session", id, cwd }) + "\n")
      }
      const scanner = yield* SessionScanner
      const scan = yield* scanner.scan({
        sessionDir: dir,
        intervalMs: 0,
        belongsToProject: (cwd) => Effect.succeed(cwd !== undefined && (cwd === "/work/p" || cwd.startsWith("/work/p/")))
      })
      expect(scan._tag === "Scanned" ? scan.files.map((f) => f.id) : []).toEqual(["mine"])
    }).pipe(Effect.provide(SessionScanner.layer.pipe(Layer.provide(FileSystem.layer)))))
})

describe("dream check", () => {
  const fiveOthers = (current: string) =>
    sessionDir([1, 2, 3, 4, 5].map((i) => ({ id: `s${i}`, mtimeMs: NOW - i * MINUTE })).concat([{ id: current, mtimeMs: NOW }]))

  it.effect("is due with 5 other sessions, not with 4; the current session never counts", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const { paths } = world()
      const dream = yield* DreamAttempt
      const dir = fiveOthers("me")
      const due = yield* dream.check({ paths, sessionDir: dir, currentSessionId: "me" })
      expect(due).toMatchObject({ _tag: "Due", sessions: ["s1", "s2", "s3", "s4", "s5"], lastDreamAt: null })
      const fewer = yield* dream.check({ paths, sessionDir: fiveOthers("s5"), currentSessionId: "s5" })
      expect(fewer).toMatchObject({ _tag: "TooFewSessions", found: 4, needed: 5 })
    }).pipe(Effect.provide(services())))

  it.effect("checks the time first: 23 h 59 m after the last attempt it does not scan at all", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const { paths } = world()
      const state = yield* StateStore
      yield* state.recordDreamAttempt(paths, NOW - 24 * HOUR + MINUTE)
      const dream = yield* DreamAttempt
      const dir = fiveOthers("me")
      expect(yield* dream.check({ paths, sessionDir: dir, currentSessionId: "me" })).toMatchObject({
        _tag: "NotYet",
        eligibleAt: NOW + MINUTE
      })
      // Had the first check scanned, this one (a minute later, inside the 10-minute throttle) would be throttled.
      yield* TestClock.adjust(MINUTE)
      expect(yield* dream.check({ paths, sessionDir: dir, currentSessionId: "me" })).toMatchObject({ _tag: "Due" })
      yield* TestClock.adjust(MINUTE)
      expect(yield* dream.check({ paths, sessionDir: dir, currentSessionId: "me" })).toMatchObject({
        _tag: "ScanThrottled",
        nextScanAt: NOW + 11 * MINUTE
      })
    }).pipe(Effect.provide(services())))

  it.effect("only counts sessions updated after the last attempt", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const { paths } = world()
      const state = yield* StateStore
      yield* state.recordDreamAttempt(paths, NOW - 30 * HOUR)
      const dir = sessionDir([1, 2, 3, 4, 5, 6].map((i) => ({ id: `s${i}`, mtimeMs: NOW - 30 * HOUR + (i - 2) * HOUR })))
      const dream = yield* DreamAttempt
      expect(yield* dream.check({ paths, sessionDir: dir, currentSessionId: undefined })).toMatchObject({
        _tag: "TooFewSessions",
        found: 4
      })
    }).pipe(Effect.provide(services())))

  it.effect("a session directory that does not exist yet means no other sessions", () =>
    Effect.gen(function*() {
      const { paths } = world()
      const dream = yield* DreamAttempt
      expect(yield* dream.check({ paths, sessionDir: "/nonexistent/sessions", currentSessionId: undefined })).toMatchObject({
        _tag: "TooFewSessions",
        found: 0
      })
    }).pipe(Effect.provide(services())))
})

describe("dream attempt time", () => {
  const PREVIOUS = NOW - 48 * HOUR
  const prepared = Effect.gen(function*() {
    yield* TestClock.setTime(NOW)
    const w = world()
    const state = yield* StateStore
    yield* state.recordDreamAttempt(w.paths, PREVIOUS)
    const version = (yield* state.read(w.paths)).state.version
    return { ...w, version }
  })

  it.effect("is recorded at once and kept when the task returns, with or without changes", () =>
    Effect.gen(function*() {
      const { paths, stateFile, version } = yield* prepared
      const dream = yield* DreamAttempt
      const seenDuringTask: Array<number | null> = []
      const outcome = yield* dream.run({
        paths,
        sessions: ["s1"],
        expectedVersion: version,
        task: () => Effect.sync(() => seenDuringTask.push(lastDreamAtOf(stateFile))).pipe(Effect.as("no changes"))
      })
      expect(outcome).toEqual({ _tag: "Ran", value: "no changes", attemptAt: NOW })
      expect(seenDuringTask).toEqual([NOW])
      expect(lastDreamAtOf(stateFile)).toBe(NOW)
    }).pipe(Effect.provide(services())))

  // The attempt rules see only how the task ended. The real consolidation task answering an API error (kept after an
  // answer, rolled back on the first request) and failing to set up: test/background/taskLifecycle.test.ts.
  it.effect("is kept when the task returns an API error after the model answered (a return, not a throw)", () =>
    Effect.gen(function*() {
      const { paths, stateFile } = yield* prepared
      const dream = yield* DreamAttempt
      const outcome = yield* dream.run({ paths, sessions: [], task: () => Effect.succeed({ stop: "api-error", turns: 2, errorMessage: "529 overloaded" }) })
      expect(outcome).toMatchObject({ _tag: "Ran", value: { stop: "api-error" } })
      expect(lastDreamAtOf(stateFile)).toBe(NOW)
    }).pipe(Effect.provide(services())))

  it.effect("is rolled back when the task throws during the fork step", () =>
    Effect.gen(function*() {
      const { paths, stateFile } = yield* prepared
      const dream = yield* DreamAttempt
      const outcome = yield* dream.run({
        paths,
        sessions: [],
        task: () => Effect.fail(new DreamTaskFailed({ phase: "fork", reason: "tool loop crashed" }))
      })
      expect(outcome).toMatchObject({ _tag: "Failed", end: "failed-in-fork", rolledBack: true })
      expect(lastDreamAtOf(stateFile)).toBe(PREVIOUS)
    }).pipe(Effect.provide(services())))

  it.effect("is kept when the error comes after completion", () =>
    Effect.gen(function*() {
      const { paths, stateFile } = yield* prepared
      const dream = yield* DreamAttempt
      const outcome = yield* dream.run({
        paths,
        sessions: [],
        task: () => Effect.fail(new DreamTaskFailed({ phase: "completion", reason: "status write failed" }))
      })
      expect(outcome).toMatchObject({ _tag: "Failed", end: "failed-after-completion", rolledBack: false })
      expect(lastDreamAtOf(stateFile)).toBe(NOW)
    }).pipe(Effect.provide(services())))

  it.effect("is kept when the task is aborted, and the lock is released", () =>
    Effect.gen(function*() {
      const { paths, stateFile } = yield* prepared
      const dream = yield* DreamAttempt
      const started = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(dream.run({ paths, sessions: [], task: () => Effect.zipRight(Deferred.succeed(started, undefined), Effect.never) }))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      expect(lastDreamAtOf(stateFile)).toBe(NOW)
      const again = yield* dream.run({ paths, sessions: [], task: () => Effect.succeed("second") })
      expect(again._tag).toBe("Ran")
    }).pipe(Effect.provide(services())))

  it.effect("a second dreamer (its own lock service, as another process has) sees the lock and skips", () =>
    Effect.gen(function*() {
      const { paths, stateFile } = yield* prepared
      const dream = yield* DreamAttempt
      const other = yield* DreamAttempt.pipe(Effect.provide(services()))
      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const first = yield* Effect.fork(dream.run({
        paths,
        sessions: [],
        task: () => Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(release)).pipe(Effect.as("first"))
      }))
      yield* Deferred.await(started)
      let secondRan = false
      const second = yield* other.run({ paths, sessions: [], task: () => Effect.sync(() => (secondRan = true)) })
      expect(second).toEqual({ _tag: "Busy" })
      expect(secondRan).toBe(false)
      yield* Deferred.succeed(release, undefined)
      expect((yield* Fiber.join(first))._tag).toBe("Ran")
      expect(lastDreamAtOf(stateFile)).toBe(NOW)
    }).pipe(Effect.provide(services())))

  it.effect("is superseded, running nothing, when another process recorded an attempt after the check", () =>
    Effect.gen(function*() {
      const { paths, version } = yield* prepared
      const state = yield* StateStore
      yield* state.recordDreamAttempt(paths, NOW - HOUR)
      const dream = yield* DreamAttempt
      let ran = false
      const outcome = yield* dream.run({ paths, sessions: [], expectedVersion: version, task: () => Effect.sync(() => (ran = true)) })
      expect(outcome).toEqual({ _tag: "Superseded" })
      expect(ran).toBe(false)
    }).pipe(Effect.provide(services())))
})
