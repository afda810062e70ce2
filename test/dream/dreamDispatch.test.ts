/**
 * The dream's dispatch from BackgroundSession after settled turns, on the TestClock: the cheap time check before the
 * scan, the session count, the scan throttle, a busy `dream.lock`, independence from a running extraction, thresholds
 * from config.json, and what status shows. The real DreamAttempt, SessionScanner, StateStore and LockService work on
 * real files; the consolidation task and the extractor are scripted.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { BackgroundHost, BackgroundSession } from "../../layers/background/BackgroundSession.ts"
import { Dream } from "../../layers/background/Dream.ts"
import type { DreamTaskRequest, DreamTaskResult } from "../../layers/background/dreamInterface.ts"
import { Extractor } from "../../layers/background/Extractor.ts"
import type { ExtractionOutcome } from "../../layers/background/extractorInterface.ts"
import { SessionScanner } from "../../layers/background/SessionScanner.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { extensionGraph, hostLayer } from "../support/extensionGraph.ts"
import { ProjectLocator } from "../../layers/project/ProjectLocator.ts"
import { StateStore } from "../../layers/storage/StateStore.ts"
import { locksDirOf } from "../../src/storage/layout.ts"

const HOUR = 3_600_000
/** Where the TestClock starts: a fixed, realistic time, so file mtimes and the clock can be compared. */
const T0 = Date.parse("2026-06-01T12:00:00Z")

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const setup = (options: { config?: Record<string, unknown> } = {}) =>
  Effect.gen(function*() {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-dream-dispatch-")))
    dirs.push(base)
    const cwd = join(base, "project")
    mkdirSync(cwd)
    execFileSync("git", ["init", "-q"], { cwd })
    const agentDir = join(base, "agent")
    mkdirSync(join(agentDir, "project-memory"), { recursive: true })
    if (options.config !== undefined) writeFileSync(join(agentDir, "project-memory", "config.json"), JSON.stringify(options.config))
    const sessionDir = join(base, "sessions")
    mkdirSync(sessionDir)
    /** A session file of this project, last updated at `mtimeMs`. */
    const addSession = (mtimeMs: number, id: string = randomUUID()) => {
      const file = join(sessionDir, `${new Date(mtimeMs).toISOString().replace(/[:.]/g, "-")}_${id}.jsonl`)
      writeFileSync(file, `${JSON.stringify({ type: "session", version: 3, id, timestamp: new Date(mtimeMs).toISOString(), cwd })}\n`)
      utimesSync(file, mtimeMs / 1000, mtimeMs / 1000)
      return id
    }
    const host = hostLayer(cwd, { sessionId: Effect.succeed("current") })
    const bgHost = Layer.succeed(BackgroundHost, {
      setStatus: () => Effect.void,
      codemode: Effect.succeed(undefined),
      sessionDir: Effect.succeed({ dir: sessionDir, shared: false })
    })
    /** The extractor's calls wait for `extractGate` when it is set (a long extraction), else skip at once. */
    const extraction = { gate: undefined as Deferred.Deferred<void> | undefined, started: yield* Queue.unbounded<void>(), calls: 0 }
    const extractor = Context.make(Extractor, {
      extract: () =>
        Effect.gen(function*() {
          extraction.calls++
          yield* Queue.offer(extraction.started, undefined)
          if (extraction.gate !== undefined) yield* Deferred.await(extraction.gate)
          return { status: "skipped", reason: "nothing-new", advanceTo: undefined } satisfies ExtractionOutcome
        })
    })
    const dreams: Array<DreamTaskRequest> = []
    const dreamStarted = yield* Queue.unbounded<void>()
    const dream = Context.make(Dream, {
      consolidate: (request) =>
        Effect.gen(function*() {
          dreams.push(request)
          yield* Queue.offer(dreamStarted, undefined)
          return {
            stop: "done",
            turns: 4,
            filesChanged: [join(request.location.memoryDir, "merged.md")],
            finalText: "Merged.",
            errorMessage: undefined,
            index: { exists: true, lines: 3, chars: 120, overTarget: false },
            deletesRefused: []
          } satisfies DreamTaskResult
        })
    })
    const scans = { calls: 0, scanned: 0 }
    const real = yield* SessionScanner.make.pipe(Effect.provide(FileSystem.layer))
    const countingScanner = Context.make(SessionScanner, {
      scan: (request: Parameters<typeof real.scan>[0]) =>
        Effect.sync(() => void scans.calls++).pipe(
          Effect.zipRight(real.scan(request)),
          Effect.tap((r) => Effect.sync(() => void (r._tag === "Scanned" && scans.scanned++)))
        )
    })
    // The extension's own graph, the extractor, the consolidation task and the scanner (counting) replaced.
    const layer = extensionGraph({
      host,
      background: bgHost,
      env: { agentDir, home: base },
      services: extractor.pipe(Context.merge(dream), Context.merge(countingScanner))
    })
    return { layer, addSession, dreams, dreamStarted, scans, extraction, cwd }
  })

type Ctx = Effect.Effect.Success<ReturnType<typeof setup>>

const run = <A>(body: (ctx: Ctx) => Effect.Effect<A, unknown, BackgroundSession | StateStore | LockService | ProjectLocator>, options?: { config?: Record<string, unknown> }) =>
  Effect.runPromise(
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const ctx = yield* setup(options)
      return yield* body(ctx).pipe(Effect.provide(ctx.layer))
    }).pipe(Effect.scoped, Effect.provide(TestContext.TestContext)) as Effect.Effect<A>
  )

/** One settled turn, and every task it started finished. */
const turn = Effect.gen(function*() {
  const bg = yield* BackgroundSession
  yield* bg.settled(false)
  yield* bg.idle
})

const pathsOf = (cwd: string) =>
  Effect.gen(function*() {
    const location = yield* (yield* ProjectLocator).locate(cwd)
    return { paths: { rootDir: location.memoryRootDir, legacyFile: location.legacyStatePath }, location }
  })

describe("dream dispatch after a settled turn", () => {
  it("time not due (23 h 59 m): no scan at all; at 24 h the scan runs and five other sessions start a dream", () =>
    run(({ addSession, dreams, scans, cwd }) =>
      Effect.gen(function*() {
        const { paths } = yield* pathsOf(cwd)
        yield* (yield* StateStore).recordDreamAttempt(paths, T0)
        for (let i = 1; i <= 5; i++) addSession(T0 + i * 60_000)
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* TestClock.adjust(24 * HOUR - 60_000)
        yield* turn
        expect(scans.calls).toBe(0)
        expect(dreams).toHaveLength(0)
        yield* TestClock.adjust(60_000)
        yield* turn
        expect(scans.scanned).toBe(1)
        expect(dreams).toHaveLength(1)
        expect(dreams[0]!.sessionIds).toHaveLength(5)
        const status = yield* bg.status
        expect(status.runs.dream).toMatchObject({ kind: "dream", trigger: "turn", outcome: "saved", detail: "done", filesChanged: ["merged.md"], turns: 4 })
        // The attempt time is now; the next dream is eligible 24 h later.
        expect(status.dream).toEqual({ lastDreamAt: T0 + 24 * HOUR, eligibleAt: T0 + 48 * HOUR, minSessions: 5 })
      })))

  it("four other sessions (the current one excluded) do not start a dream; the fifth does, after the 10-minute scan throttle", () =>
    run(({ addSession, dreams, scans }) =>
      Effect.gen(function*() {
        for (let i = 1; i <= 4; i++) addSession(T0 - i * HOUR)
        addSession(T0 - 1000, "current")
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* turn
        expect(scans.scanned).toBe(1)
        expect(dreams).toHaveLength(0)
        expect((yield* bg.status).runs.dream).toBeUndefined()
        const fifth = addSession(T0 - 5 * HOUR)
        // Within 10 minutes of the last scan: the directory is not read again.
        yield* TestClock.adjust(10 * 60_000 - 1)
        yield* turn
        expect(scans.calls).toBe(2)
        expect(scans.scanned).toBe(1)
        expect(dreams).toHaveLength(0)
        yield* TestClock.adjust(1)
        yield* turn
        expect(scans.scanned).toBe(2)
        expect(dreams).toHaveLength(1)
        expect(dreams[0]!.sessionIds).toHaveLength(5)
        expect(dreams[0]!.sessionIds).toContain(fifth)
        expect(dreams[0]!.sessionIds).not.toContain("current")
      })))

  it("dream.lock held by another holder: the turn skips, records busy, and leaves the attempt time alone", () =>
    run(({ addSession, dreams, cwd }) =>
      Effect.gen(function*() {
        for (let i = 1; i <= 5; i++) addSession(T0 - i * HOUR)
        const { paths, location } = yield* pathsOf(cwd)
        const release = yield* Deferred.make<void>()
        const held = yield* Deferred.make<void>()
        yield* Effect.fork((yield* LockService).withLock(locksDirOf(location.memoryRootDir), "dream.lock", () =>
          Deferred.succeed(held, undefined).pipe(Effect.zipRight(Deferred.await(release)))))
        yield* Deferred.await(held)
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* turn
        expect(dreams).toHaveLength(0)
        expect((yield* bg.status).runs.dream).toMatchObject({ outcome: "busy", detail: "dream.lock is held" })
        expect((yield* (yield* StateStore).read(paths)).state.lastDreamAt).toBeNull()
        // /memory dream does not wait for the lock either.
        const manual = yield* bg.dreamNow
        expect(manual).toMatchObject({ trigger: "manual", outcome: "busy" })
        yield* Deferred.succeed(release, undefined)
      })))

  it("an extraction in flight does not hold the dream back, and an aborted turn dispatches neither", () =>
    run(({ addSession, dreams, dreamStarted, extraction }) =>
      Effect.gen(function*() {
        for (let i = 1; i <= 5; i++) addSession(T0 - i * HOUR)
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* bg.settled(true)
        yield* bg.idle
        expect(dreams).toHaveLength(0)
        expect(extraction.calls).toBe(0)
        extraction.gate = yield* Deferred.make<void>()
        yield* bg.settled(false)
        yield* Queue.take(extraction.started)
        yield* Queue.take(dreamStarted)
        expect((yield* bg.status).running).toBe(true)
        expect(dreams).toHaveLength(1)
        yield* Deferred.succeed(extraction.gate, undefined)
        yield* bg.idle
      })))

  it("thresholds come from config.json (2 hours, 2 sessions); /memory dream ignores them", () =>
    run(({ addSession, dreams, cwd }) =>
      Effect.gen(function*() {
        const { paths } = yield* pathsOf(cwd)
        yield* (yield* StateStore).recordDreamAttempt(paths, T0)
        addSession(T0 + 60_000)
        const bg = yield* BackgroundSession
        yield* bg.start
        // By hand: one session, no time passed.
        const manual = yield* bg.dreamNow
        expect(manual).toMatchObject({ trigger: "manual", outcome: "saved" })
        expect(dreams).toHaveLength(1)
        addSession(T0 + 2 * 60_000)
        addSession(T0 + 3 * 60_000)
        yield* TestClock.adjust(2 * HOUR - 1)
        yield* turn
        expect(dreams).toHaveLength(1)
        yield* TestClock.adjust(1)
        // The manual dream's attempt (at T0) is the baseline: the three sessions updated after it count.
        yield* turn
        expect(dreams).toHaveLength(2)
        expect(dreams[1]!.sessionIds).toHaveLength(3)
      }), { config: { dream: { minHours: 2, minSessions: 2 } } }))
})
