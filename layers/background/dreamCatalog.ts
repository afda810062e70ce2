/**
 * The topics the dream's prompt lists: for each of the DREAM_NEIGHBOUR_SEEDS newest topics (what recent sessions
 * wrote, the likeliest to be merged), the DREAM_NEIGHBOURS_EACH other topics nearest to it (ranked against its name,
 * file name and description), then the newest, within the selector's catalog budget; listed newest first, with the
 * number left out.
 */
import * as Effect from "effect/Effect"
import { DREAM_NEIGHBOUR_SEEDS, DREAM_NEIGHBOURS_EACH } from "../../src/limits.ts"
import { chooseCandidates } from "../../src/recall/candidates.ts"
import type { MemoryStoreShape } from "../memory/MemoryStore.ts"
import type { Topic } from "../memory/topicScan.ts"

export interface DreamCatalog {
  readonly listed: ReadonlyArray<Topic>
  readonly unlisted: number
}

/** `topics`: every topic, newest first (the scan's order). */
export const dreamCatalog = (store: MemoryStoreShape, memoryDir: string, topics: ReadonlyArray<Topic>): Effect.Effect<DreamCatalog> =>
  Effect.gen(function* () {
    const near: Array<Topic> = []
    for (const seed of topics.slice(0, DREAM_NEIGHBOUR_SEEDS)) {
      const { ranked } = yield* store.rankTopics(memoryDir, `${seed.filename} ${seed.name ?? ""} ${seed.description ?? ""}`, DREAM_NEIGHBOURS_EACH + 1)
      near.push(...ranked.filter((t) => t.filename !== seed.filename).slice(0, DREAM_NEIGHBOURS_EACH))
    }
    const listed = chooseCandidates(near, topics)
    return { listed, unlisted: topics.length - listed.length }
  })
