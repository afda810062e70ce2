/**
 * A selector conversation keeps its first message byte for byte (its prefix stays cached) and says in the new
 * request's message what changed in the list since, and the topics near the request; it gives the list anew when the
 * way the memory is shown changed, the history is not the one sent, or the changes outgrow SELECTOR_CHANGES_MAX_SHARE.
 * The Selector keeps what SELECTOR_SENT_MAX_SESSIONS conversations were sent. selectorParts: the newest in the list,
 * the near others beside it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Selector, type SelectorTopic } from "../../layers/recall/Selector.ts"
import { catalogLine, catalogOf } from "../../src/memory/catalog.ts"
import { SELECTOR_CHANGES_MAX_SHARE, SELECTOR_NEWEST_MAX_TOPICS, SELECTOR_SENT_MAX_SESSIONS, RECALL_NEAR_MIN_SCORE } from "../../src/limits.ts"
import { selectorParts } from "../../src/recall/candidates.ts"
import { emptyRecallState, withRecall } from "../../src/recall/recallState.ts"
import { CHANGES_HEADING, NEAR_HEADING, type SentCatalog, stableSelectorMessages } from "../../src/recall/stableCatalog.ts"
import { conversationOf, makeFaux, toolReply } from "../selector/faux.ts"

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const topic = (name: string, age: number, description = `About ${name}`): SelectorTopic =>
  ({ filename: `${name}.md`, type: "project", description, mtimeMs: T0 - age * 86_400_000, fileMtimeMs: T0 - age * 1000 })
const TOPICS = Array.from({ length: 10 }, (_, i) => topic(`t${i}`, i))
const turn = (query: string) => ({ query, selected: ["t1.md"] })
const users = (m: ReadonlyArray<{ role: string; text: string }>) => m.filter((x) => x.role === "user").map((x) => x.text)

const firstTwo = (listed: ReadonlyArray<SelectorTopic>, next: ReadonlyArray<SelectorTopic>, whole = true) => {
  const one = stableSelectorMessages(undefined, { listed, near: [] }, whole, [], "q one")
  return { one, two: stableSelectorMessages(one.sent, { listed: next, near: [] }, whole, [turn("q one")], "q two") }
}

describe("a selector conversation's first message", () => {
  it("stays byte for byte when a topic is saved, changed or removed; the new message says what changed", () => {
    const changed = { ...TOPICS[3]!, description: "About t3, now longer" }
    const next = [topic("new", -1), ...TOPICS.slice(0, 3), changed, ...TOPICS.slice(4, 9)]
    const { one, two } = firstTwo(TOPICS, next)
    expect(users(two.messages)[0]).toBe(users(one.messages)[0])
    const last = users(two.messages).at(-1)!
    expect(last).toBe(`${CHANGES_HEADING}\n${catalogLine(next[0]!)}\n${catalogLine(changed)}\nNo longer listed: t9.md\n\nUser message:\nq two`)
  })

  it("with nothing changed, the new message is the query alone", () => {
    const { two } = firstTwo(TOPICS, TOPICS)
    expect(users(two.messages).at(-1)).toBe("User message:\nq two")
  })

  it("is given anew when the history is not the one that was sent, or the way of showing changed", () => {
    const one = stableSelectorMessages(undefined, { listed: TOPICS, near: [] }, true, [], "q one")
    const next = [topic("new", -1), ...TOPICS]
    const other = stableSelectorMessages(one.sent, { listed: next, near: [] }, true, [turn("another query")], "q two")
    expect(users(other.messages)[0]).toBe(`Available memories:\n${catalogOf(next)}\n\nUser message:\nanother query`)
    const flipped = stableSelectorMessages(one.sent, { listed: next, near: [] }, false, [turn("q one")], "q two")
    expect(users(flipped.messages)[0]).toBe(`Available memories:\n${catalogOf(next)}\n\nUser message:\nq one`)
  })

  it(`keeps the list while the changes are at most ${SELECTOR_CHANGES_MAX_SHARE} of it; past that it is given anew`, () => {
    // A list of an even length, so that the share of it is a whole number of characters: changes of one character
    // under it, exactly it, and one over.
    const odd = catalogOf(TOPICS).length % 2 === 1
    const listed = odd ? [{ ...TOPICS[9]!, description: `${TOPICS[9]!.description}!` }, ...TOPICS.slice(0, 9)].sort((a, b) => b.fileMtimeMs - a.fileMtimeMs) : TOPICS
    const one = stableSelectorMessages(undefined, { listed, near: [] }, true, [], "q one")
    const sent: SentCatalog = one.sent
    expect(catalogOf(listed).length % 2).toBe(0)
    const edge = catalogOf(listed).length * SELECTOR_CHANGES_MAX_SHARE
    const noteFor = (description: string) => `${CHANGES_HEADING}\n${catalogLine({ ...listed[0]!, description })}`
    const room = edge - noteFor("").length
    for (const [extra, kept] of [[room - 1, true], [room, true], [room + 1, false]] as const) {
      const description = "x".repeat(extra)
      expect(noteFor(description).length - edge).toBe(extra - room)
      const next = stableSelectorMessages(sent, { listed: [{ ...listed[0]!, description }, ...listed.slice(1)], near: [] }, true, [turn("q one")], "q two")
      expect(users(next.messages)[0] === users(one.messages)[0], `${extra}`).toBe(kept)
    }
  })

  it("the topics near a request go in its own message, after what changed, never in the list", () => {
    const near = [topic("far-away", 400)]
    const one = stableSelectorMessages(undefined, { listed: TOPICS, near }, false, [], "q one")
    expect(users(one.messages)[0]).toBe(`Available memories:\n${catalogOf(TOPICS)}\n\n${NEAR_HEADING}\n${catalogLine(near[0]!)}\n\nUser message:\nq one`)
    const two = stableSelectorMessages(one.sent, { listed: TOPICS, near: [topic("other", 500)] }, false, [turn("q one")], "q two")
    expect(users(two.messages)[0]).toBe(users(one.messages)[0])
    expect(users(two.messages).at(-1)).toBe(`${NEAR_HEADING}\n${catalogLine(topic("other", 500))}\n\nUser message:\nq two`)
  })
})

describe("the Selector's conversations", () => {
  const ask = (sessionId: string, state = emptyRecallState) =>
    Effect.flatMap(Selector, (s) => s.select({ query: "how do we release", topics: TOPICS, whole: true, state, modelRef: "faux/faux-1", sessionId }))

  it.effect(`keeps what the ${SELECTOR_SENT_MAX_SESSIONS} newest were sent; the one before them is given its list anew`, () => {
    const faux = makeFaux()
    const count = SELECTOR_SENT_MAX_SESSIONS + 1
    faux.script(...Array.from({ length: count + 2 }, () => toolReply(["t1.md"])))
    const later = withRecall(emptyRecallState, { query: "how do we release", selected: ["t1.md"], budgetUsed: 0 })
    return Effect.gen(function* () {
      for (let i = 0; i < count; i++) yield* ask(`s${i}`)
      // The session asked first has been dropped (one too many since); the second is still kept.
      yield* Effect.flatMap(Selector, (s) =>
        s.select({ query: "again", topics: [topic("new", -1), ...TOPICS], whole: true, state: later, modelRef: "faux/faux-1", sessionId: "s1" }))
      yield* Effect.flatMap(Selector, (s) =>
        s.select({ query: "again", topics: [topic("new", -1), ...TOPICS], whole: true, state: later, modelRef: "faux/faux-1", sessionId: "s0" }))
      const [kept, dropped] = faux.requests.slice(-2).map((r) => conversationOf(r).filter((m) => m.role === "user").map((m) => m.text))
      expect(kept![0]).toBe(`Available memories:\n${catalogOf(TOPICS)}\n\nUser message:\nhow do we release`)
      expect(kept!.at(-1)).toContain(CHANGES_HEADING)
      expect(dropped![0]).toBe(`Available memories:\n${catalogOf([topic("new", -1), ...TOPICS])}\n\nUser message:\nhow do we release`)
    }).pipe(Effect.provide(faux.selector))
  })
})

describe("the candidates of a memory too large to show whole", () => {
  const all = Array.from({ length: 300 }, (_, i) => topic(`m${i}`, i))
  it("list the newest, and put only the near topics that are not among them beside the list", () => {
    const nearNewest = all[2]!
    const nearOld = all[250]!
    const parts = selectorParts([nearNewest, nearOld], [RECALL_NEAR_MIN_SCORE, RECALL_NEAR_MIN_SCORE], all)
    expect(parts.whole).toBe(false)
    expect([...parts.near]).toEqual([nearOld.filename])
    expect(parts.topics.filter((t) => !parts.near.has(t.filename))).toEqual(all.slice(0, SELECTOR_NEWEST_MAX_TOPICS))
    expect(parts.topics).toHaveLength(SELECTOR_NEWEST_MAX_TOPICS + 1)
  })
  it("a memory shown whole has no near part", () => {
    const parts = selectorParts([], [], all.slice(0, 20))
    expect(parts.whole).toBe(true)
    expect(parts.near.size).toBe(0)
  })
})
