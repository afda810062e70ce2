/**
 * The topic ranking: words as it counts them (stems, stopwords, identifiers), BM25 over title, description and body
 * with the title weighing most, recency breaking ties, removal and re-indexing, and a query bounded to its
 * RANK_QUERY_MAX_TERMS rarest words.
 */
import { describe, expect, it } from "vitest"
import { RANK_QUERY_MAX_TERMS } from "../../src/limits.ts"
import { TopicRanking } from "../../src/memory/topicRanking.ts"
import { stem, termsOf } from "../../src/memory/topicTerms.ts"

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

describe("the words the ranking counts", () => {
  it("folds plurals and -ing/-ed forms onto one stem", () => {
    for (const family of [["release", "releases", "released", "releasing"], ["test", "tests", "tested", "testing"], ["dependency", "dependencies"], ["run", "running"], ["cache", "caches", "cached", "caching"]]) {
      expect(new Set(family.map(stem)).size, family.join(",")).toBe(1)
    }
    expect(stem("class")).toBe("class")
    expect(stem("status")).toBe("status")
    expect(stem("v2")).toBe("v2")
  })

  it("leaves out common words, single letters and long runs, and splits identifiers", () => {
    expect(termsOf("How do we deploy the API?")).toEqual(["deploy", "api"])
    expect(termsOf("x a9f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4 ok")).toEqual(["ok"])
    expect(termsOf("snake_case_name")).toEqual(["snak", "case", "name"])
    expect(termsOf("ReleaseBranch")).toEqual(["releasebranch", "releas", "branch"])
  })
})

describe("TopicRanking", () => {
  const ranking = () => {
    const r = new TopicRanking()
    r.set("deploy.md", { title: "deploy.md Deploying", description: "How we deploy to staging", body: "Run the pipeline." })
    r.set("flaky.md", { title: "flaky.md Flaky tests", description: "Tests that fail at random", body: "The upload test times out on CI." })
    r.set("style.md", { title: "style.md Code style", description: "Naming rules", body: "We deploy nothing here but mention deploy once." })
    return r
  }

  it("ranks a title match above a description match above a body match, and finds nothing for unrelated text", () => {
    const r = ranking()
    expect(r.rank("deploying", 10, byKey).map((h) => h.key)).toEqual(["deploy.md", "style.md"])
    expect(r.rank("upload timeouts", 10, byKey).map((h) => h.key)).toEqual(["flaky.md"])
    expect(r.rank("quantum chromodynamics", 10, byKey)).toEqual([])
    expect(r.rank("the and of", 10, byKey)).toEqual([])
  })

  it("breaks a tie by the order it is given (recency in the manifest) and keeps at most `limit`", () => {
    const r = new TopicRanking()
    for (const key of ["a.md", "b.md", "c.md"]) r.set(key, { title: "twin", description: "same words", body: "" })
    const newestFirst = (a: string, b: string) => byKey(b, a)
    expect(r.rank("twin", 10, newestFirst).map((h) => h.key)).toEqual(["c.md", "b.md", "a.md"])
    expect(r.rank("twin", 2, newestFirst).map((h) => h.key)).toEqual(["c.md", "b.md"])
  })

  it("forgets a removed topic and re-indexes a changed one, across compactions", () => {
    const r = ranking()
    r.delete("flaky.md")
    expect(r.rank("flaky", 10, byKey)).toEqual([])
    r.set("style.md", { title: "style.md Code style", description: "Naming rules", body: "Nothing about shipping." })
    expect(r.rank("deploy", 10, byKey).map((h) => h.key)).toEqual(["deploy.md"])
    // Enough churn to compact the postings many times over: the survivors still rank.
    for (let i = 0; i < 3_000; i++) r.set(`churn-${i % 7}.md`, { title: `churn ${i}`, description: "word ".repeat(5), body: `token${i}` })
    expect(r.size).toBe(2 + 7)
    expect(r.rank("deploy", 10, byKey).map((h) => h.key)).toEqual(["deploy.md"])
    expect(r.rank("token2999", 10, byKey).map((h) => h.key)).toEqual(["churn-3.md"])
    expect(r.rank("token2990", 10, byKey)).toEqual([])
  })

  it(`counts at most ${RANK_QUERY_MAX_TERMS} words of a query, the rarest`, () => {
    const r = new TopicRanking()
    // Topic i holds the word wI (rare) and the common word `shared`.
    for (let i = 0; i < 40; i++) r.set(`t${i}.md`, { title: `w${i}word`, description: "shared", body: "" })
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}word`).join(" ")
    expect(r.rank(words(RANK_QUERY_MAX_TERMS - 1), 100, byKey)).toHaveLength(RANK_QUERY_MAX_TERMS - 1)
    expect(r.rank(words(RANK_QUERY_MAX_TERMS), 100, byKey)).toHaveLength(RANK_QUERY_MAX_TERMS)
    expect(r.rank(words(RANK_QUERY_MAX_TERMS + 1), 100, byKey)).toHaveLength(RANK_QUERY_MAX_TERMS)
    // The common word is the one left out when the query holds more words than are counted.
    expect(r.rank(`shared ${words(RANK_QUERY_MAX_TERMS)}`, 100, byKey)).toHaveLength(RANK_QUERY_MAX_TERMS)
  })
})
