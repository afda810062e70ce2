/**
 * Recall reaches every topic: in a folder of 5,000 generated topics (the recall eval set), a prompt about an old topic
 * (older than the newest 200, which is all the scan used to show) finds it among the candidates the selector is shown,
 * and the catalog stays within its budget. The share over the whole eval set is in bench/recallEval.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { join } from "node:path"
import { MemoryStore } from "../../layers/memory/MemoryStore.ts"
import { Recall } from "../../layers/recall/Recall.ts"
import { Selector, type SelectRequest } from "../../layers/recall/Selector.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { SCAN_MAX_TOPICS, SELECTOR_CATALOG_MAX_CHARS } from "../../src/limits.ts"
import { catalogOf } from "../../src/memory/catalog.ts"
import { emptyRecallState } from "../../src/recall/recallState.ts"
import { generateMemory, writeMemory } from "../support/recallEval.ts"
import { tempDir } from "../support/tmp.ts"

describe("recall over 5,000 topics", () => {
  it.effect("shows the selector an old topic that matches the prompt, within the catalog's budget", () => {
    const memory = generateMemory(37, 5_000)
    const dir = join(tempDir("pm-eval-"), "memory")
    const seen: Array<SelectRequest> = []
    const recording = Layer.succeed(Selector, {
      select: (request) => Effect.sync(() => (seen.push(request), { selected: [], warning: undefined, requests: 1 }))
    })
    const newest = new Set([...memory.topics].sort((a, b) => b.mtimeMs - a.mtimeMs).slice(0, SCAN_MAX_TOPICS).map((t) => t.filename))
    const old = memory.prompts.filter((p) => p.kind === "old")
    return Effect.gen(function* () {
      yield* Effect.promise(() => writeMemory(dir, memory))
      expect(old.length).toBeGreaterThan(5)
      for (const prompt of old) {
        seen.length = 0
        yield* (yield* Recall).recall({ query: prompt.text, state: emptyRecallState, modelRef: undefined, sessionId: "s", nowMs: Date.now(), memoryDir: dir })
        const shown = seen[0]!.topics.map((t) => t.filename)
        for (const gold of prompt.gold) {
          expect(newest.has(gold), gold).toBe(false)
          expect(shown, prompt.text).toContain(gold)
        }
        expect(shown.length).toBeLessThanOrEqual(SCAN_MAX_TOPICS)
        expect(catalogOf(seen[0]!.topics).length).toBeLessThanOrEqual(SELECTOR_CATALOG_MAX_CHARS)
      }
    }).pipe(Effect.provide(Recall.layer.pipe(Layer.provide(Layer.merge(MemoryStore.layer, recording)), Layer.provide(FileSystem.layer))))
  }, 120_000)
})
