/**
 * What the background tasks are shown of a large memory: the extractor, the topics nearest to the conversation and
 * the newest, at most EXTRACT_CATALOG_MAX_TOPICS in a fork (end to end in the real Pi host, and the conversation's
 * text bounded at RANK_CONVERSATION_MAX_CHARS);
 * the dream, the DREAM_NEIGHBOURS_EACH topics nearest to each of the DREAM_NEIGHBOUR_SEEDS newest, and the newest;
 * both within the selector's catalog budget, saying how many topics they leave out.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { utimesSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { dreamCatalog } from "../../layers/background/dreamCatalog.ts"
import { MemoryStore } from "../../layers/memory/MemoryStore.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { conversationText } from "../../src/background/conversationText.ts"
import { extractorTaskPrompt } from "../../src/background/prompts/extractor.ts"
import { DREAM_NEIGHBOUR_SEEDS, DREAM_NEIGHBOURS_EACH, EXTRACT_CATALOG_MAX_TOPICS, RANK_CONVERSATION_MAX_CHARS, SCAN_MAX_TOPICS } from "../../src/limits.ts"
import { type CandidateTopic, chooseCandidates } from "../../src/recall/candidates.ts"
import { type Harness, say, startHarness, textOf, topic } from "./harness.ts"
import { tempDir, topicText, writeFileAt } from "../support/tmp.ts"

const DAY = 86_400_000

describe("the conversation's text the extractor's catalog is ranked against", () => {
  it("is what the user and the assistant wrote, without tool results or reasoning", () => {
    const text = conversationText([
      { role: "user", content: "deploy on fridays" },
      { role: "assistant", content: [{ type: "thinking", thinking: "secret plan" }, { type: "text", text: "noted" }, { type: "toolCall", id: "1" }] },
      { role: "toolResult", content: [{ type: "text", text: "file contents" }] }
    ])
    expect(text).toBe("deploy on fridays\nnoted")
  })

  for (const length of [RANK_CONVERSATION_MAX_CHARS - 1, RANK_CONVERSATION_MAX_CHARS, RANK_CONVERSATION_MAX_CHARS + 1]) {
    it(`of ${length} characters keeps ${Math.min(length, RANK_CONVERSATION_MAX_CHARS)}, the end`, () => {
      const said = `${"a".repeat(length - 1)}z`
      const text = conversationText([{ role: "user", content: said }])
      expect(text).toHaveLength(Math.min(length, RANK_CONVERSATION_MAX_CHARS))
      expect(text.endsWith("z")).toBe(true)
    })
  }
})

describe("the extractor's prompt", () => {
  it("is its fixture's text when nothing is left out, and says how many are when some are", () => {
    const base = { memoryDir: "/m", today: "Thursday 2026-12-03", recentMessages: 2, catalog: "- [user] a.md (2026-01-01T00:00:00.000Z): a" }
    expect(extractorTaskPrompt({ ...base, unlisted: 0 })).toBe(extractorTaskPrompt(base))
    expect(extractorTaskPrompt({ ...base, unlisted: 4_800 })).toContain("a\n(4,800 more not listed: grep the memory directory")
  })
})

describe(`the extractor's list of memories in a fork (${EXTRACT_CATALOG_MAX_TOPICS})`, () => {
  const topics = (count: number): Array<CandidateTopic> =>
    Array.from({ length: count }, (_, i) => ({ filename: `n${1_000 - i}.md`, type: "project", description: "d", mtimeMs: 1_000 - i, fileMtimeMs: 1_000 - i }))
  for (const count of [EXTRACT_CATALOG_MAX_TOPICS - 1, EXTRACT_CATALOG_MAX_TOPICS, EXTRACT_CATALOG_MAX_TOPICS + 1]) {
    it(`of ${count} memories holds ${Math.min(count, EXTRACT_CATALOG_MAX_TOPICS)}, the nearest first`, () => {
      const all = topics(count)
      const chosen = chooseCandidates([all.at(-1)!], all, undefined, EXTRACT_CATALOG_MAX_TOPICS)
      expect(chosen).toHaveLength(Math.min(count, EXTRACT_CATALOG_MAX_TOPICS))
      expect(chosen).toContain(all.at(-1))
    })
  }
})

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

describe("an extraction over 260 topics", () => {
  it("is shown the old topic nearest to the conversation, the newest, and how many are left out", async () => {
    const memory: Record<string, string> = { "MEMORY.md": "" }
    for (let i = 0; i < 259; i++) memory[`note-${String(i).padStart(3, "0")}.md`] = topic(`note ${i}`, `Ordinary note number ${i} about the build`)
    memory["zeppelin-hangar.md"] = topic("zeppelin-hangar", "The zeppelin hangar doors close at dusk")
    h = await startHarness({ memory })
    // The zeppelin topic is the oldest by far; the others a minute apart.
    const now = Date.now()
    for (let i = 0; i < 259; i++) utimesSync(join(h.memoryDir, `note-${String(i).padStart(3, "0")}.md`), (now - i * 60_000) / 1000, (now - i * 60_000) / 1000)
    utimesSync(join(h.memoryDir, "zeppelin-hangar.md"), (now - 300 * DAY) / 1000, (now - 300 * DAY) / 1000)
    h.background = () => say("Nothing to save.")
    await h.prompt("please remember that the zeppelin hangar now closes an hour later")
    await h.prompt("/memory extract")
    const task = textOf(h.ofKind("background")[0]!.messages.at(-1))
    expect(task).toContain("zeppelin-hangar.md")
    expect(task).toContain("note-000.md")
    expect(task).not.toContain("note-258.md")
    expect(task).toMatch(/\n\(\d+ more not listed/)
    const listed = task.split("\n").filter((l) => /^- \[project\] /.test(l))
    // A fork (its system prompt holds the index of every memory): the nearest and the newest, EXTRACT_CATALOG_MAX_TOPICS.
    expect(h.ofKind("background")[0]!.system).toContain("<auto_memory>")
    expect(listed).toHaveLength(EXTRACT_CATALOG_MAX_TOPICS)
    expect(task).toContain(`(${260 - EXTRACT_CATALOG_MAX_TOPICS} more not listed`)
  }, 120_000)
})

describe("the dream's catalog", () => {
  it(`lists the ${DREAM_NEIGHBOURS_EACH} topics nearest to each of the ${DREAM_NEIGHBOUR_SEEDS} newest, not a 4th, nor those of the 21st`, async () => {
    const dir = tempDir("pm-dream-cat-")
    const now = Date.now()
    // Seeds: the newest topics, each with a word of its own; each has four old neighbours sharing that word.
    const word = (i: number) => `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}ord`
    const seeds = DREAM_NEIGHBOUR_SEEDS + 1
    for (let i = 0; i < seeds; i++) {
      writeFileAt(join(dir, `seed-${i}.md`), topicText({ name: `seed-${i}`, description: `About ${word(i)}` }), now - i * 1_000)
      for (let n = 0; n < DREAM_NEIGHBOURS_EACH + 1; n++) {
        // The nearer neighbours repeat the word more often.
        writeFileAt(
          join(dir, `near-${i}-${n}.md`),
          topicText({ name: `near-${i}-${n}`, description: `Old ${`${word(i)} `.repeat(DREAM_NEIGHBOURS_EACH + 1 - n)}` }),
          now - 400 * DAY - (i * 10 + n) * 1_000
        )
      }
    }
    // Filler newer than the neighbours, enough to fill the catalog past them.
    for (let f = 0; f < 300; f++) writeFileAt(join(dir, `filler-${f}.md`), topicText({ name: `filler-${f}`, description: "Plain filler" }), now - DAY - f * 1_000)
    const catalog = await Effect.runPromise(
      Effect.gen(function* () {
        const store = yield* MemoryStore
        const { topics } = yield* store.scanTopics(dir)
        return yield* dreamCatalog(store, dir, topics)
      }).pipe(Effect.provide(MemoryStore.layer.pipe(Layer.provide(FileSystem.layer))))
    )
    const listed = new Set(catalog.listed.map((t) => t.filename))
    expect(catalog.listed.length).toBeLessThanOrEqual(SCAN_MAX_TOPICS)
    expect(catalog.unlisted).toBe(seeds * (DREAM_NEIGHBOURS_EACH + 2) + 300 - catalog.listed.length)
    for (let i = 0; i < DREAM_NEIGHBOUR_SEEDS; i++) {
      for (let n = 0; n < DREAM_NEIGHBOURS_EACH; n++) expect(listed.has(`near-${i}-${n}.md`), `near-${i}-${n}`).toBe(true)
      expect(listed.has(`near-${i}-${DREAM_NEIGHBOURS_EACH}.md`)).toBe(false)
    }
    for (let n = 0; n <= DREAM_NEIGHBOURS_EACH; n++) expect(listed.has(`near-${DREAM_NEIGHBOUR_SEEDS}-${n}.md`)).toBe(false)
  }, 60_000)
})
