/**
 * LockService under Effect's TestClock, over the real FileSystem wrapped so that reads of `extract.lock` fail on
 * demand and each read and mtime refresh of it is reported as an event: tests move the clock, then wait for the
 * I/O that the move set off, instead of sleeping.
 */
import { expect } from "@effect/vitest"
import { Chunk, Effect, Layer, Queue, TestClock } from "effect"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { FsError, type FsReason } from "../../layers/storage/FsError.ts"
import { LockService } from "../../layers/storage/LockService.ts"

export const T0 = Date.parse("2026-01-01T00:00:00.000Z")

export type Event = "read" | "read-failed" | "touched"

export interface Faults {
  /** Reads of the lock file still to fail. */
  failReads: number
  reason: FsReason
}

/** The real FileSystem, with reads of `extract.lock` failing while `faults.failReads` > 0. */
export const faultyFileSystem = (faults: Faults, events: Queue.Queue<Event>) =>
  Layer.effect(
    FileSystem,
    Effect.map(FileSystem, (real) => ({
      ...real,
      readRegularFile: (path: string, maxBytes?: number) => {
        if (!path.endsWith("extract.lock")) return real.readRegularFile(path, maxBytes)
        if (faults.failReads > 0) {
          faults.failReads--
          const error = new FsError({ op: "open", path, reason: faults.reason, detail: "EMFILE: too many open files" })
          return Queue.offer(events, "read-failed").pipe(Effect.zipRight(Effect.fail(error)))
        }
        return real.readRegularFile(path, maxBytes).pipe(Effect.tap(() => Queue.offer(events, "read")))
      },
      setTimes: (path: string, atimeMs: number, mtimeMs: number) =>
        real.setTimes(path, atimeMs, mtimeMs).pipe(Effect.tap(() => Queue.offer(events, "touched")))
    }))
  ).pipe(Layer.provide(FileSystem.layer))

/** A LockService over the faulty file system, with the TestClock set to T0 (so the lock's times start there). */
export const clockedLocks = (faults: Faults, options: { readonly timeoutMs: number; readonly heartbeatMs: number }) =>
  Effect.gen(function*() {
    const events = yield* Queue.unbounded<Event>()
    const layer = LockService.layerWith({
      timeouts: { "extract.lock": options.timeoutMs },
      heartbeatMs: options.heartbeatMs
    }).pipe(Layer.provide(faultyFileSystem(faults, events)))
    const locks = yield* Effect.provide(LockService, layer)
    yield* TestClock.setTime(T0)
    return { events, locks }
  })

export const pendingSleeps = Effect.map(TestClock.sleeps(), (c) => Chunk.toReadonlyArray(c).map(Number).sort((a, b) => a - b))

/** Lets the heartbeat fiber, which runs no I/O between a failed read and its next sleep, reach that sleep. */
export const untilSleeping = Effect.gen(function*() {
  for (let i = 0; i < 1_000 && (yield* pendingSleeps).length === 0; i++) yield* Effect.yieldNow()
  expect((yield* pendingSleeps).length).toBeGreaterThan(0)
})

export const expectEvent = (events: Queue.Queue<Event>, expected: Event) =>
  Effect.map(Queue.take(events), (event) => expect(event).toBe(expected))

