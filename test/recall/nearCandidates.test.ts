/**
 * What the selector is shown of a memory too large to show whole: the topics near the request (a ranking score of at
 * least RECALL_NEAR_MIN_SCORE, at, below and above it) and at most SELECTOR_NEWEST_MAX_TOPICS of the newest (at,
 * below and above); and no request at all when no topic is near. A memory that fits is still shown whole, whatever
 * the request shares with it, so the selector can match by meaning alone (real files, the real Recall step, the
 * fake provider).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { join } from "node:path"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { MemoryStore } from "../../layers/memory/MemoryStore.ts"
import { Recall } from "../../layers/recall/Recall.ts"
import { RECALL_NEAR_MIN_SCORE, SCAN_MAX_TOPICS, SELECTOR_NEWEST_MAX_TOPICS } from "../../src/limits.ts"
import { type CandidateTopic, nearCount, selectorParts } from "../../src/recall/candidates.ts"
import { emptyRecallState } from "../../src/recall/recallState.ts"
import { conversationOf, makeFaux, toolReply } from "../selector/faux.ts"
import { tempDir, topicText, writeFileAt } from "../support/tmp.ts"

const T0 = Date.UTC(2026, 0, 1)
const topic = (i: number): CandidateTopic => ({ filename: `t${String(i).padStart(4, "0")}.md`, type: "project", description: "short", mtimeMs: T0 + i, fileMtimeMs: T0 + i })
/** `count` topics, newest first, as the scan gives them. */
const topics = (count: number) => Array.from({ length: count }, (_, i) => topic(count - 1 - i))

describe(`a topic near the request (score ${RECALL_NEAR_MIN_SCORE})`, () => {
  it("counts at the score and above it, not below it", () => {
    const below = RECALL_NEAR_MIN_SCORE - 1e-9
    expect(nearCount([RECALL_NEAR_MIN_SCORE + 1, RECALL_NEAR_MIN_SCORE, below])).toBe(2)
    expect(nearCount([below])).toBe(0)
    expect(nearCount([RECALL_NEAR_MIN_SCORE + 1e-9])).toBe(1)
  })
})

describe(`the selector's candidates (${SELECTOR_NEWEST_MAX_TOPICS} of the newest past the whole memory)`, () => {
  it(`a memory of ${SCAN_MAX_TOPICS} topics is shown whole, with no topic near the request`, () => {
    const all = topics(SCAN_MAX_TOPICS)
    expect(selectorParts([], [], all).topics).toEqual(all)
  })

  it(`a memory of ${SCAN_MAX_TOPICS + 1} topics with no topic near: none (a hit below the score does not count)`, () => {
    const all = topics(SCAN_MAX_TOPICS + 1)
    expect(selectorParts([], [], all).topics).toEqual([])
    expect(selectorParts([all[150]!], [RECALL_NEAR_MIN_SCORE - 1e-9], all).topics).toEqual([])
  })

  for (const count of [SELECTOR_NEWEST_MAX_TOPICS - 1, SELECTOR_NEWEST_MAX_TOPICS, SELECTOR_NEWEST_MAX_TOPICS + 1]) {
    it(`a memory of 1,000 topics, ${count} of them near: those, then the ${SELECTOR_NEWEST_MAX_TOPICS} newest others`, () => {
      const all = topics(1_000)
      const near = all.slice(500, 500 + count)
      const chosen = selectorParts(near, near.map(() => RECALL_NEAR_MIN_SCORE), all).topics
      expect(chosen).toHaveLength(count + SELECTOR_NEWEST_MAX_TOPICS)
      expect(chosen.slice(0, SELECTOR_NEWEST_MAX_TOPICS)).toEqual(all.slice(0, SELECTOR_NEWEST_MAX_TOPICS))
      expect(chosen.slice(SELECTOR_NEWEST_MAX_TOPICS)).toEqual(near)
    })
  }
})

/** `count` topics about numbered cargo holds, and one about zeppelin hangars; each a second older than the last. */
const memory = (count: number): string => {
  const dir = tempDir("pm-near-")
  const now = Date.now()
  for (let i = 0; i < count - 1; i++) {
    writeFileAt(join(dir, `hold-${i}.md`), topicText({ name: `hold-${i}`, description: `Cargo hold ${i} loading order`, body: `Hold ${i} loads last.` }), now - i * 1_000)
  }
  writeFileAt(join(dir, "zeppelin.md"), topicText({ name: "zeppelin", description: "Zeppelin hangar doors close at dusk" }), now - count * 1_000)
  return dir
}

const ask = (dir: string, query: string) => {
  const faux = makeFaux()
  faux.script(toolReply([]))
  return Effect.flatMap(Recall, (r) => r.recall({ query, state: emptyRecallState, modelRef: "faux/faux-1", sessionId: "s", nowMs: Date.now(), memoryDir: dir })).pipe(
    Effect.provide(Recall.layer.pipe(Layer.provide(Layer.merge(MemoryStore.layer, faux.selector)), Layer.provide(FileSystem.layer))),
    Effect.map((outcome) => ({ outcome, requests: faux.requests }))
  )
}

describe("the selector request", () => {
  it.effect("is sent for a memory shown whole when the request shares no word with it", () =>
    Effect.gen(function* () {
      const { outcome, requests } = yield* ask(memory(20), "what time do the airship sheds shut")
      expect(outcome.called).toBe(true)
      expect(requests).toHaveLength(1)
    }))

  it.effect(`is not sent for a memory of ${SCAN_MAX_TOPICS + 1} topics when no topic is near the request`, () =>
    Effect.gen(function* () {
      const { outcome, requests } = yield* ask(memory(SCAN_MAX_TOPICS + 1), "what time do the airship sheds shut")
      expect(outcome.called).toBe(false)
      expect(requests).toHaveLength(0)
    }))

  it.effect(`is sent for a memory of ${SCAN_MAX_TOPICS + 1} topics with the near topic and ${SELECTOR_NEWEST_MAX_TOPICS} of the newest`, () =>
    Effect.gen(function* () {
      const { outcome, requests } = yield* ask(memory(SCAN_MAX_TOPICS + 1), "when do the zeppelin hangar doors close")
      expect(outcome.called).toBe(true)
      const catalog = conversationOf(requests[0]!)[0]!.text.split("\n").filter((l) => l.startsWith("- "))
      expect(catalog).toHaveLength(1 + SELECTOR_NEWEST_MAX_TOPICS)
      expect(catalog.some((l) => l.includes("zeppelin.md"))).toBe(true)
      expect(catalog.some((l) => l.includes(`hold-${SELECTOR_NEWEST_MAX_TOPICS}.md`))).toBe(false)
    }))
})
