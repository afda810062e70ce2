/**
 * The memory histories this `pm` process committed to, noted by the journal's commit hook (the core's `onCommitted`),
 * so that a command that changed memory can push once its own task is done (cli/pushAfter.ts). Holds places only:
 * it imports nothing, so a command that never commits loads nothing of the history or the sync.
 */
import * as Effect from "effect/Effect"

export interface CommittedPlace {
  readonly memoryRootDir: string
  readonly memoryDir: string
}

const places = new Map<string, CommittedPlace>()

/** Notes a commit to the history of `place` (once per memory). */
export const noteCommitted = (place: CommittedPlace): Effect.Effect<void> => Effect.sync(() => void places.set(place.memoryRootDir, place))

/** Whether anything was committed since the last `takeCommitted`. */
export const anyCommitted = (): boolean => places.size > 0

/** The places committed to since the last call, each once; forgets them. */
export const takeCommitted = (): ReadonlyArray<CommittedPlace> => {
  const all = [...places.values()]
  places.clear()
  return all
}
