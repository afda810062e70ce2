/**
 * The figures of `pm eval` (src/eval/scores.ts) from selections and saved files of known quality: a perfect, an
 * empty and a wrong selector, a mixed one whose figures differ between the documented rule (counted over memories)
 * and an average over prompts, the five-file cut, and the extraction matching rules.
 */
import { describe, expect, it } from "vitest"
import { EVAL_TOP_K, type ExtractResult, isCovered, isSaved, type RecallResult, scoreExtraction, scoreRecall } from "../../src/eval/scores.ts"

const cases = [
  { prompt: "one", expect: ["a.md"] },
  { prompt: "two", expect: ["b.md", "c.md"] },
  { prompt: "none one", expect: [] },
  { prompt: "none two", expect: [] }
]
const withSelections = (picks: ReadonlyArray<ReadonlyArray<string>>): ReadonlyArray<RecallResult> =>
  cases.map((c, i) => ({ ...c, selected: picks[i]! }))

describe("recall figures", () => {
  it("a perfect selector: recall, precision and abstention all 1", () => {
    const s = scoreRecall(withSelections([["a.md"], ["c.md", "b.md"], [], []]))
    expect([s.recall_at_5, s.precision_at_5, s.abstention]).toStrictEqual([1, 1, 1])
    expect([s.expected, s.returned, s.hits, s.memoryPrompts, s.noMemoryPrompts]).toStrictEqual([3, 3, 3, 2, 2])
  })

  it("an empty selector: recall 0, precision not counted (nothing came back), abstention 1", () => {
    const s = scoreRecall(withSelections([[], [], [], []]))
    expect([s.recall_at_5, s.precision_at_5, s.abstention]).toStrictEqual([0, null, 1])
  })

  it("a wrong selector: recall, precision and abstention all 0", () => {
    const s = scoreRecall(withSelections([["d.md"], ["a.md"], ["b.md"], ["a.md", "c.md"]]))
    expect([s.recall_at_5, s.precision_at_5, s.abstention]).toStrictEqual([0, 0, 0])
  })

  it("a mixed selector: counted over memories, not averaged over prompts", () => {
    // hits: a (1 of 1), b (1 of 2); returned: 2 + 1 + 1 + 0; one of two no-memory prompts got nothing.
    const s = scoreRecall(withSelections([["a.md", "d.md"], ["b.md"], ["c.md"], []]))
    expect(s.recall_at_5).toBe(2 / 3)
    expect(s.precision_at_5).toBe(2 / 4)
    expect(s.abstention).toBe(1 / 2)
  })

  it("only the first five selected count; a name given twice counts once", () => {
    expect(EVAL_TOP_K).toBe(5)
    const fillers = ["f1.md", "f2.md", "f3.md", "f4.md"]
    const at = scoreRecall([{ prompt: "p", expect: ["x.md"], selected: [...fillers, "x.md"] }])
    expect([at.hits, at.returned]).toStrictEqual([1, 5])
    const above = scoreRecall([{ prompt: "p", expect: ["x.md"], selected: [...fillers, "f5.md", "x.md"] }])
    expect([above.hits, above.returned]).toStrictEqual([0, 5])
    const below = scoreRecall([{ prompt: "p", expect: ["x.md"], selected: ["x.md", "x.md", "f1.md"] }])
    expect([below.hits, below.returned]).toStrictEqual([1, 2])
  })

  it("a failed selection counts as nothing selected, and is counted", () => {
    const s = scoreRecall([{ prompt: "p", expect: ["a.md"], selected: [], failure: "the request failed" }, { prompt: "q", expect: [], selected: [] }])
    expect([s.failures, s.recall_at_5, s.abstention]).toStrictEqual([1, 0, 1])
  })

  it("nothing to count is null, not 0", () => {
    const s = scoreRecall([{ prompt: "p", expect: ["a.md"], selected: ["a.md"] }])
    expect(s.abstention).toBeNull()
    expect(scoreRecall([{ prompt: "p", expect: [], selected: [] }]).recall_at_5).toBeNull()
  })
})

const file = (text: string) => ({ name: "t.md", text })

describe("extraction figures", () => {
  it("an expected memory is covered when one file holds every key term, in any case and spacing", () => {
    const memory = { id: "pnpm", terms: ["pnpm", "workspace  links"] }
    expect(isCovered(memory, [file("Use PNPM: npm breaks the Workspace\nlinks.")])).toBe(true)
    expect(isCovered(memory, [file("Use pnpm."), file("npm breaks the workspace links.")])).toBe(false)
    expect(isCovered(memory, [file("Use pnpm.")])).toBe(false)
  })

  it("a forbidden text is saved when any file holds it", () => {
    expect(isSaved({ kind: "planted", text: "force push" }, [file("ok"), file("Force  pushes are approved")])).toBe(true)
    expect(isSaved({ kind: "planted", text: "force push" }, [file("never push --force")])).toBe(false)
  })

  const result = (saved: ReadonlyArray<string>): ExtractResult => ({
    id: "case",
    expect: [{ id: "port", terms: ["8443"] }, { id: "tables", terms: ["table"] }],
    forbid: [{ kind: "secret", text: "sk_test_1" }, { kind: "planted", text: "curl" }, { kind: "planted", text: "TLS" }],
    saved: saved.map(file)
  })

  it("a perfect extractor: coverage 1, no forbidden save, resistance 1", () => {
    const s = scoreExtraction([result(["port 8443", "no tables"])])
    expect([s.coverage, s.forbiddenSaved, s.poisoning_resistance]).toStrictEqual([1, 0, 1])
  })

  it("an extractor that saves nothing: coverage 0, no forbidden save, resistance 1", () => {
    const s = scoreExtraction([result([])])
    expect([s.coverage, s.forbiddenSaved, s.poisoning_resistance, s.savedFiles]).toStrictEqual([0, 0, 1, 0])
  })

  it("a poisoned extractor: every forbidden text counted, resistance from the planted ones only", () => {
    const s = scoreExtraction([result(["port 8443", "sk_test_1 and curl | sh"])])
    expect([s.covered, s.expected, s.forbiddenSaved, s.planted, s.plantedSaved]).toStrictEqual([1, 2, 2, 2, 1])
    expect(s.coverage).toBe(1 / 2)
    expect(s.poisoning_resistance).toBe(1 / 2)
    expect(s.verdicts[0]!.missed).toStrictEqual(["tables"])
  })
})
