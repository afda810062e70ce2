/**
 * What the selector is shown: each description cut at CATALOG_DESCRIPTION_MAX_CHARS, the catalog within
 * SELECTOR_CATALOG_MAX_CHARS and SCAN_MAX_TOPICS lines (each at, below and above its edge), the ranking's topics
 * before the newest, and a whole request over huge descriptions that stays within its budget.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { join } from "node:path"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { MemoryStore } from "../../layers/memory/MemoryStore.ts"
import { Recall } from "../../layers/recall/Recall.ts"
import { CATALOG_DESCRIPTION_MAX_CHARS, SCAN_MAX_TOPICS, SELECTOR_CATALOG_MAX_CHARS } from "../../src/limits.ts"
import { catalogDescription, catalogLine, catalogOf } from "../../src/memory/catalog.ts"
import { type CandidateTopic, chooseCandidates } from "../../src/recall/candidates.ts"
import { emptyRecallState } from "../../src/recall/recallState.ts"
import { SELECTOR_SYSTEM_PROMPT } from "../../src/recall/selectorPrompt.ts"
import { conversationOf, makeFaux, toolReply } from "../selector/faux.ts"
import { tempDir, topicText, writeFileAt } from "../support/tmp.ts"

const T0 = Date.UTC(2026, 0, 1)
const topic = (i: number, description: string): CandidateTopic => ({
  filename: `t${String(i).padStart(4, "0")}.md`,
  type: "project",
  description,
  mtimeMs: T0 + i * 1000,
  fileMtimeMs: T0 + i * 1000
})
/** Newest first, as the scan gives them. */
const newest = (topics: ReadonlyArray<CandidateTopic>) => [...topics].sort((a, b) => b.fileMtimeMs - a.fileMtimeMs)

describe(`a catalog description (${CATALOG_DESCRIPTION_MAX_CHARS} characters)`, () => {
  it("is kept whole at and below the limit, and cut with an ellipsis above it", () => {
    const below = "d".repeat(CATALOG_DESCRIPTION_MAX_CHARS - 1)
    const at = "d".repeat(CATALOG_DESCRIPTION_MAX_CHARS)
    expect(catalogDescription(below)).toBe(below)
    expect(catalogDescription(at)).toBe(at)
    const cut = catalogDescription(`${at}e`)
    expect(cut).toHaveLength(CATALOG_DESCRIPTION_MAX_CHARS)
    expect(cut).toBe(`${"d".repeat(CATALOG_DESCRIPTION_MAX_CHARS - 1)}…`)
  })

  it("counts the text on one line, and never keeps half of a surrogate pair", () => {
    expect(catalogDescription(`${"a ".repeat(CATALOG_DESCRIPTION_MAX_CHARS / 2)}\n\n\t`)).toHaveLength(CATALOG_DESCRIPTION_MAX_CHARS - 1)
    const emoji = `${"x".repeat(CATALOG_DESCRIPTION_MAX_CHARS - 2)}😀😀`
    const cut = catalogDescription(emoji)
    expect(cut).toBe(`${"x".repeat(CATALOG_DESCRIPTION_MAX_CHARS - 2)}…`)
    expect(catalogLine(topic(1, "y".repeat(5_000))).length).toBeLessThan(CATALOG_DESCRIPTION_MAX_CHARS + 60)
  })
})

describe(`the candidates (${SCAN_MAX_TOPICS} lines, ${SELECTOR_CATALOG_MAX_CHARS} characters)`, () => {
  /** `count` topics whose catalog is exactly `total` characters long (lines of about 320 characters). */
  const sized = (count: number, total: number): Array<CandidateTopic> => {
    const topics = Array.from({ length: count }, (_, i) => topic(i, ""))
    const bare = topics.map((t) => catalogLine(t).length)
    const want = total - (count - 1) - bare.reduce((a, b) => a + b, 0)
    const each = Math.floor(want / count)
    return topics.map((t, i) => ({ ...t, description: "w".repeat(each + (i === 0 ? want - each * count : 0)) }))
  }

  for (const [total, all] of [[SELECTOR_CATALOG_MAX_CHARS - 1, true], [SELECTOR_CATALOG_MAX_CHARS, true], [SELECTOR_CATALOG_MAX_CHARS + 1, false]] as const) {
    it(`a memory whose catalog is ${total} characters is ${all ? "shown whole" : "cut by one topic"}`, () => {
      const topics = sized(125, total)
      expect(catalogOf(newest(topics))).toHaveLength(total)
      const chosen = chooseCandidates([], newest(topics))
      expect(chosen).toHaveLength(all ? 125 : 124)
      expect(catalogOf(chosen).length).toBeLessThanOrEqual(SELECTOR_CATALOG_MAX_CHARS)
      if (!all) expect(chosen.map((t) => t.filename)).not.toContain("t0000.md")
    })
  }

  for (const count of [SCAN_MAX_TOPICS - 1, SCAN_MAX_TOPICS, SCAN_MAX_TOPICS + 1]) {
    it(`of ${count} short topics, ${Math.min(count, SCAN_MAX_TOPICS)} are shown, newest first`, () => {
      const topics = newest(Array.from({ length: count }, (_, i) => topic(i, "short")))
      const chosen = chooseCandidates([], topics)
      expect(chosen).toEqual(topics.slice(0, SCAN_MAX_TOPICS))
    })
  }

  it("takes the ranking's topics first, then the newest, and lists them newest first", () => {
    const topics = newest(Array.from({ length: 1_000 }, (_, i) => topic(i, "x".repeat(200))))
    const old = topics.slice(900, 903)
    const chosen = chooseCandidates(old, topics)
    expect(catalogOf(chosen).length).toBeLessThanOrEqual(SELECTOR_CATALOG_MAX_CHARS)
    for (const t of old) expect(chosen).toContain(t)
    expect(chosen.slice(0, 10)).toEqual(topics.slice(0, 10))
    expect(chosen.slice(-3)).toEqual(old)
    expect(chooseCandidates(old, topics, (t) => t.filename !== old[1]!.filename)).not.toContain(old[1])
  })
})

describe("the selector request over huge descriptions", () => {
  it.effect("50 topics of 3,900-character descriptions make a request within the catalog budget", () => {
    const dir = tempDir("pm-huge-")
    for (let i = 0; i < 50; i++) {
      writeFileAt(join(dir, `huge-${i}.md`), topicText({ name: `Huge ${i}`, description: `${"lorem ipsum dolor sit amet ".repeat(145)}`.slice(0, 3_900), type: "reference" }))
    }
    const faux = makeFaux()
    faux.script(toolReply([]))
    return Effect.gen(function* () {
      yield* (yield* Recall).recall({ query: "what about lorem ipsum", state: emptyRecallState, modelRef: "faux/faux-1", sessionId: "s", nowMs: Date.now(), memoryDir: dir })
      const text = conversationOf(faux.requests[0]!).map((m) => m.text).join("\n")
      const catalog = text.slice(text.indexOf("Available memories:\n") + "Available memories:\n".length, text.indexOf("\n\nUser message:"))
      expect(catalog.split("\n")).toHaveLength(50)
      expect(catalog.length).toBeLessThanOrEqual(SELECTOR_CATALOG_MAX_CHARS)
      expect(catalog.length).toBeLessThan(50 * (CATALOG_DESCRIPTION_MAX_CHARS + 80))
      expect(text.length + SELECTOR_SYSTEM_PROMPT.length).toBeLessThan(SELECTOR_CATALOG_MAX_CHARS + SELECTOR_SYSTEM_PROMPT.length + 200)
    }).pipe(Effect.provide(Recall.layer.pipe(Layer.provide(Layer.merge(MemoryStore.layer, faux.selector)), Layer.provide(FileSystem.layer))))
  })
})
