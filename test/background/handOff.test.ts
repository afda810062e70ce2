/**
 * The session's end with the extension's own graph (test/support/extensionGraph.ts) and Effect's TestClock: what the
 * extraction did not cover is handed to the project's queue and the cursor moves past it. An extraction waiting for
 * extract.lock held elsewhere is not waited for (the shutdown ends with the clock never moved); one still running
 * at the 60 s bound is stopped and handed over; the session's own drain is stopped first, so its hold on the lock
 * does not hand the session's own extraction over; a reload, an untrusted project or extraction switched off hand
 * nothing over; a job that cannot be written is told, and the cursor stays.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { BackgroundSession } from "../../layers/background/BackgroundSession.ts"
import { SHUTDOWN_WAIT_MS } from "../../layers/background/lifecycle.ts"
import { Extractor } from "../../layers/background/Extractor.ts"
import type { ExtractorShape } from "../../layers/background/extractorInterface.ts"
import { ProjectLocator } from "../../layers/project/ProjectLocator.ts"
import { FsError } from "../../layers/storage/FsError.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { locksDirOf, queueDirOf } from "../../src/storage/layout.ts"
import { decodeJob, makeJob } from "../../src/background/queue.ts"
import { makeQueueStore } from "../../layers/background/queueStore.ts"
import { Context, extensionGraph, hostLayer } from "../support/extensionGraph.ts"
import { tempDir } from "../support/tmp.ts"

interface Options {
  /** The extractor in place of the real one (default: the real one, over the graph's services). */
  readonly extractor?: ExtractorShape
  readonly trusted?: boolean
  readonly config?: Record<string, unknown>
  /** Publishing into the queue folder fails for want of space. */
  readonly fullQueue?: boolean
}

const real = makeNodeFileSystem()

const setup = (o: Options = {}) => {
  const base = tempDir("pm-handoff-")
  const cwd = join(base, "project")
  mkdirSync(cwd)
  execFileSync("git", ["init", "-q"], { cwd })
  const agentDir = join(base, "agent")
  if (o.config !== undefined) {
    mkdirSync(join(agentDir, "project-memory"), { recursive: true })
    writeFileSync(join(agentDir, "project-memory", "config.json"), JSON.stringify(o.config))
  }
  const branch: Array<any> = [
    { type: "message", id: "u1", message: { role: "user", content: "remember the deploy day is Friday" } },
    { type: "message", id: "a1", message: { role: "assistant", content: [{ type: "text", text: "ok" }] } }
  ]
  const appended: Array<{ customType: string; data: any }> = []
  const told: Array<{ message: string; level: string }> = []
  const host = hostLayer(cwd, {
    isTrusted: Effect.succeed(o.trusted ?? true),
    branch: Effect.sync(() => branch),
    appendEntry: (customType, data) => Effect.sync(() => void appended.push({ customType, data })),
    notify: (message, level) => Effect.sync(() => void told.push({ message, level }))
  })
  const fileSystem = o.fullQueue === true
    ? FileSystem.layerWith({
      link: (from, to) =>
        to.includes("/queue/") ? Effect.fail(new FsError({ op: "link", path: to, reason: "NoSpace", detail: "ENOSPC" })) : real.link(from, to)
    })
    : undefined
  const layer = extensionGraph({
    host,
    env: { agentDir, home: base },
    ...(o.extractor === undefined ? {} : { services: Context.make(Extractor, o.extractor) }),
    ...(fileSystem === undefined ? {} : { core: { fileSystem } })
  })
  const cursors = () => appended.filter((e) => e.customType === "pm-extract-cursor").map((e) => e.data.cursor)
  return { cwd, layer, branch, appended, told, cursors }
}

type Ctx = ReturnType<typeof setup>

const run = <A>(ctx: Ctx, body: Effect.Effect<A, unknown, any>) =>
  Effect.runPromise(body.pipe(Effect.provide(ctx.layer), Effect.scoped, Effect.provide(TestContext.TestContext)) as Effect.Effect<A>)

/** The project's memory root, as the graph's locator has it. */
const rootOf = (cwd: string) => Effect.flatMap(ProjectLocator, (l) => l.locate(cwd)).pipe(Effect.map((l) => l.memoryRootDir))

const queued = (rootDir: string) => {
  const dir = queueDirOf(rootDir)
  return readdirSync(dir).filter((n) => n.endsWith(".json")).map((n) => decodeJob(readFileSync(join(dir, n), "utf8")))
}

/** An extractor that waits (until interrupted) and says when it started. */
const waitingExtractor = (started: Queue.Queue<void>): ExtractorShape => ({
  extract: () => Queue.offer(started, undefined).pipe(Effect.zipRight(Effect.never))
})

describe("the hand-off at a session's end", () => {
  it("an extraction waiting for extract.lock held elsewhere is stopped at once: its messages are queued and the cursor moves past them", async () => {
    const ctx = setup()
    await run(
      ctx,
      Effect.gen(function*() {
        const bg = yield* BackgroundSession
        const rootDir = yield* rootOf(ctx.cwd)
        // Another holder of extract.lock (the graph's own lock service, another token).
        const held = yield* (yield* LockService).acquire(locksDirOf(rootDir), "extract.lock", { kind: "pm forget" })
        expect(held._tag).toBe("Acquired")
        yield* bg.start
        yield* bg.settled(false)
        // The clock never moves: the shutdown does not wait for the lock.
        yield* bg.shutdown("quit")
        const jobs = queued(rootDir)
        expect(jobs).toHaveLength(1)
        expect(jobs[0]).toMatchObject({
          session: "s1",
          cwd: ctx.cwd,
          cursor: null,
          messages: 2,
          omitted: 0,
          model: "faux/faux-1",
          reason: expect.stringMatching(/^extract\.lock was held by pm forget, pid \d+ on .*, for \d+ s when the session ended$/)
        })
        expect((jobs[0] as any).branch.map((e: any) => e.id)).toEqual(["u1", "a1"])
        expect(ctx.cursors()).toEqual(["a1"])
        expect(ctx.told).toEqual([{
          level: "info",
          message: "Project memory: the extraction of this session's last 2 messages was deferred; the next interactive session of this project or `pm extract` completes it (1 extraction queued now)."
        }])
        const history = (yield* bg.status).history
        expect(history.map((r) => [r.trigger, r.outcome])).toEqual([["exit", "queued"]])
        expect(history[0]!.detail).toMatch(/^2 messages queued for the next interactive session of this project or `pm extract`: extract\.lock was held by pm forget/)
      })
    )
  })

  it("an extraction still running at the 60 s bound is stopped and handed over; before the bound, nothing is", async () => {
    const started = Effect.runSync(Queue.unbounded<void>())
    const ctx = setup({ extractor: waitingExtractor(started) })
    await run(
      ctx,
      Effect.gen(function*() {
        const bg = yield* BackgroundSession
        const rootDir = yield* rootOf(ctx.cwd)
        yield* bg.start
        yield* bg.settled(false)
        yield* Queue.take(started)
        const shutdown = yield* Effect.fork(bg.shutdown("quit"))
        yield* TestClock.adjust("59999 millis")
        expect(shutdown.unsafePoll()).toBeNull()
        expect(existsSync(queueDirOf(rootDir))).toBe(false)
        yield* TestClock.adjust("1 millis")
        yield* Fiber.join(shutdown)
        expect(queued(rootDir)).toEqual([expect.objectContaining({ reason: "the session ended before its extraction finished (exit waits at most 60 s)" })])
        expect(ctx.cursors()).toEqual(["a1"])
      })
    )
  })

  it("a reload, an untrusted project and extraction switched off hand nothing over, and the cursor stays", async () => {
    for (const [o, reason] of [[{}, "reload"], [{ trusted: false }, "quit"], [{ config: { extractor: { enabled: false } } }, "quit"]] as const) {
      const started = Effect.runSync(Queue.unbounded<void>())
      const ctx = setup({ ...o, extractor: waitingExtractor(started) })
      await run(
        ctx,
        Effect.gen(function*() {
          const bg = yield* BackgroundSession
          const rootDir = yield* rootOf(ctx.cwd)
          yield* bg.start
          yield* bg.settled(false)
          yield* TestClock.adjust("60 seconds")
          yield* bg.shutdown(reason)
          expect(existsSync(queueDirOf(rootDir)), JSON.stringify(o)).toBe(false)
          expect(ctx.cursors()).toEqual([])
          expect(ctx.told.filter((t) => t.message.includes("deferred"))).toEqual([])
        })
      )
    }
  })

  it("the session's own drain holding extract.lock is stopped first: the session's waiting extraction then runs and nothing is queued", async () => {
    const started = Effect.runSync(Queue.unbounded<string>())
    const gate = Effect.runSync(Deferred.make<void>())
    let ownInterrupted = false
    const extractor: ExtractorShape = {
      extract: (request) =>
        request.sessionId !== "s1"
          // The drain's job: holds extract.lock until it is stopped.
          ? Queue.offer(started, "drain").pipe(Effect.zipRight(Effect.never))
          // The session's own: finds the lock held by its own drain, then gets it once the drain stops.
          : Effect.gen(function*() {
            yield* request.onLockWait!("a pi session's run of the queue")
            yield* Queue.offer(started, "own")
            yield* Deferred.await(gate).pipe(Effect.onInterrupt(() => Effect.sync(() => void (ownInterrupted = true))))
            return { status: "ran", stop: "done", turns: 1, mode: "fork", filesChanged: [], finalText: "", errorMessage: undefined, advanceTo: request.branch.at(-1)!.id } as const
          })
    }
    const ctx = setup({ extractor })
    await run(
      ctx,
      Effect.gen(function*() {
        const bg = yield* BackgroundSession
        const rootDir = yield* rootOf(ctx.cwd)
        const made = makeJob({ session: "ended", cwd: ctx.cwd, queuedAt: 1, reason: "r", model: null, cursor: undefined, branch: ctx.branch })
        if (made._tag !== "Job") throw new Error("no job")
        yield* makeQueueStore(real).enqueue(rootDir, made.job, made.text)
        yield* bg.start
        yield* bg.drainQueued
        expect(yield* Queue.take(started)).toBe("drain")
        yield* bg.settled(false)
        expect(yield* Queue.take(started)).toBe("own")
        const shutdown = yield* Effect.fork(bg.shutdown("quit"))
        // Until the shutdown waits for the session's work (its 60 s bound is on the clock), or has ended.
        for (;;) {
          const deadlines = [...(yield* TestClock.sleeps())]
          if (deadlines.includes((yield* Clock.currentTimeMillis) + SHUTDOWN_WAIT_MS) || shutdown.unsafePoll() !== null) break
          yield* Effect.async<void>((resume) => void setImmediate(() => resume(Effect.void)))
        }
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.join(shutdown)
        expect(ownInterrupted).toBe(false)
        expect(ctx.cursors()).toEqual(["a1"])
        // Only the drained job is there: the session's own messages were extracted, not queued.
        expect(queued(rootDir).map((j: any) => j.session)).toEqual(["ended"])
      })
    )
  })

  it("a job that cannot be written is told as a warning, recorded as failed, and the cursor stays", async () => {
    const started = Effect.runSync(Queue.unbounded<void>())
    const ctx = setup({ fullQueue: true, extractor: waitingExtractor(started) })
    await run(
      ctx,
      Effect.gen(function*() {
        const bg = yield* BackgroundSession
        yield* bg.start
        yield* bg.settled(false)
        yield* Queue.take(started)
        const shutdown = yield* Effect.fork(bg.shutdown("new"))
        yield* TestClock.adjust("60 seconds")
        yield* Fiber.join(shutdown)
        expect(ctx.cursors()).toEqual([])
        expect(ctx.told).toEqual([{
          level: "warning",
          message: expect.stringMatching(
            /^Project memory: this session's last 2 messages were not extracted and could not be queued for later: cannot write the job .*: no space left on the device \(ENOSPC\)\. Resuming this session \(pi --continue\) extracts them\.$/
          )
        }])
        const last = (yield* bg.status).history.at(-1)!
        expect([last.trigger, last.outcome]).toEqual(["exit", "failed"])
      })
    )
  })
})

