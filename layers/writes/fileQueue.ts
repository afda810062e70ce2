/**
 * The writer's in-process queues: one per real file path, so the changes this process makes to one file run one at a
 * time, in arrival order. A queue exists only while someone waits on it or runs in it.
 *
 * It orders this process's own changes only: other processes (and the main agent, which takes no lock) are met by the
 * checks of publishing (publishPinned.ts, deleteFile.ts), not by this queue.
 */
import * as Effect from "effect/Effect"

/** Runs `effect` in the queue of `key` (a real file path). */
export type Serialized = <A, E>(key: string, effect: Effect.Effect<A, E>) => Effect.Effect<A, E>

export const makeFileQueues = (): Serialized => {
  const queues = new Map<string, { readonly semaphore: Effect.Semaphore; users: number }>()
  return <A, E>(key: string, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        const entry = queues.get(key) ?? { semaphore: Effect.unsafeMakeSemaphore(1), users: 0 }
        entry.users++
        queues.set(key, entry)
        return entry
      }),
      (entry) => entry.semaphore.withPermits(1)(effect),
      (entry) =>
        Effect.sync(() => {
          if (--entry.users === 0) queues.delete(key)
        })
    )
}
