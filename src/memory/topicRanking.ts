/**
 * The topic ranking: an inverted index over each topic's title (file name and `name`), description and body, kept up
 * to date one topic at a time, and a BM25 score of every topic against a text, with the title's words counting three
 * times and the description's twice. A query touches only the postings of its own words (at most
 * RANK_QUERY_MAX_TERMS of them, the rarest), so a topic that shares no word with it costs nothing, and the cost of a
 * query does not grow with the topics that do not match. Pure: an in-memory structure, no I/O.
 */
import { RANK_QUERY_MAX_TERMS } from "../limits.ts"
import { forEachTerm } from "./topicTerms.ts"

export interface RankedText {
  readonly title: string
  readonly description: string
  readonly body: string
}

export interface RankHit {
  readonly key: string
  readonly score: number
}

const TITLE_WEIGHT = 3
const DESCRIPTION_WEIGHT = 2
const BODY_WEIGHT = 1
/** BM25's usual constants: how fast a word's repeats stop counting, and how much a long topic is discounted. */
const K1 = 1.2
const B = 0.75
/** A posting packs its topic's slot and its weighted count: slot * TF_SPAN + count (count below TF_SPAN). */
const TF_SPAN = 1024
/** Postings of removed topics are dropped once they outnumber the live ones by this much. */
const COMPACT_SLACK = 4096

interface Doc {
  readonly key: string
  /** Weighted word count: the length BM25 discounts by. */
  readonly length: number
  readonly termIds: Int32Array
  /** The weighted count of each of `termIds`, in the same order. */
  readonly counts: Int32Array
}

export class TopicRanking {
  private readonly termIds = new Map<string, number>()
  /** Each term id's word. */
  private readonly terms: Array<string> = []
  private postings: Array<Array<number>> = []
  private readonly df: Array<number> = []
  private docs: Array<Doc | undefined> = []
  private readonly slotOf = new Map<string, number>()
  private totalLength = 0
  private livePostings = 0
  private deadPostings = 0
  private scores = new Float64Array(0)

  /** Topics indexed. */
  get size(): number {
    return this.slotOf.size
  }

  has(key: string): boolean {
    return this.slotOf.has(key)
  }

  /** Indexes (or re-indexes) one topic's text under `key`. */
  set(key: string, text: RankedText): void {
    const counts = new Map<string, number>()
    let length = 0
    const counter = (weight: number) => (term: string) => {
      counts.set(term, (counts.get(term) ?? 0) + weight)
      length += weight
    }
    forEachTerm(text.title, counter(TITLE_WEIGHT))
    forEachTerm(text.description, counter(DESCRIPTION_WEIGHT))
    forEachTerm(text.body, counter(BODY_WEIGHT))
    this.setCounts(key, counts, length)
  }

  /** Indexes one topic from its weighted word counts and length, as `termsOf` gave them (a kept manifest). */
  setCounts(key: string, counts: ReadonlyMap<string, number>, length: number): void {
    this.delete(key)
    const slot = this.docs.length
    const ids = new Int32Array(counts.size)
    const kept = new Int32Array(counts.size)
    let i = 0
    for (const [term, count] of counts) {
      let id = this.termIds.get(term)
      if (id === undefined) {
        id = this.postings.length
        this.termIds.set(term, id)
        this.postings.push([])
        this.terms.push(term)
        this.df.push(0)
      }
      const c = Math.min(count, TF_SPAN - 1)
      this.postings[id]!.push(slot * TF_SPAN + c)
      this.df[id]!++
      kept[i] = c
      ids[i++] = id
    }
    this.docs.push({ key, length, termIds: ids, counts: kept })
    this.slotOf.set(key, slot)
    this.totalLength += length
    this.livePostings += ids.length
  }

  /** One topic's weighted word counts and length, as `setCounts` takes them; undefined when it is not indexed. */
  termsOf(key: string): { readonly counts: ReadonlyMap<string, number>; readonly length: number } | undefined {
    const slot = this.slotOf.get(key)
    if (slot === undefined) return undefined
    const doc = this.docs[slot]!
    const counts = new Map<string, number>()
    doc.termIds.forEach((id, i) => counts.set(this.terms[id]!, doc.counts[i]!))
    return { counts, length: doc.length }
  }

  delete(key: string): void {
    const slot = this.slotOf.get(key)
    if (slot === undefined) return
    const doc = this.docs[slot]!
    this.docs[slot] = undefined
    this.slotOf.delete(key)
    for (const id of doc.termIds) this.df[id]!--
    this.totalLength -= doc.length
    this.livePostings -= doc.termIds.length
    this.deadPostings += doc.termIds.length
    if (this.deadPostings > this.livePostings + COMPACT_SLACK) this.compact()
  }

  /** Drops the postings of removed topics and numbers the live ones afresh. */
  private compact(): void {
    const remap = new Int32Array(this.docs.length).fill(-1)
    const docs: Array<Doc> = []
    this.docs.forEach((doc, slot) => {
      if (doc === undefined) return
      remap[slot] = docs.length
      this.slotOf.set(doc.key, docs.length)
      docs.push(doc)
    })
    this.postings = this.postings.map((list) => {
      const kept: Array<number> = []
      for (const p of list) {
        const to = remap[Math.floor(p / TF_SPAN)]!
        if (to !== -1) kept.push(to * TF_SPAN + (p % TF_SPAN))
      }
      return kept
    })
    this.docs = docs
    this.deadPostings = 0
  }

  /**
   * The topics that share a counted word with `text`, best first (ties: `before(a, b) < 0` puts `a` first), at most
   * `limit` of them.
   */
  rank(text: string, limit: number, before: (a: string, b: string) => number): ReadonlyArray<RankHit> {
    const n = this.slotOf.size
    if (n === 0 || limit <= 0) return []
    const asked = new Set<number>()
    forEachTerm(text, (term) => {
      const id = this.termIds.get(term)
      if (id !== undefined && this.df[id]! > 0) asked.add(id)
    })
    if (asked.size === 0) return []
    const terms = [...asked].sort((a, b) => this.df[a]! - this.df[b]! || a - b).slice(0, RANK_QUERY_MAX_TERMS)
    if (this.scores.length < this.docs.length) this.scores = new Float64Array(Math.max(this.docs.length, 2 * this.scores.length))
    const scores = this.scores
    const average = this.totalLength / n || 1
    const touched: Array<number> = []
    for (const id of terms) {
      const df = this.df[id]!
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
      for (const p of this.postings[id]!) {
        const slot = Math.floor(p / TF_SPAN)
        const doc = this.docs[slot]
        if (doc === undefined) continue
        const tf = p % TF_SPAN
        if (scores[slot] === 0) touched.push(slot)
        scores[slot]! += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / average))
      }
    }
    // Only the best `limit` are sorted with the tie-break: the scores alone (a numeric sort) give the cut-off.
    let kept = touched
    if (touched.length > limit) {
      const sorted = Float64Array.from(touched, (slot) => scores[slot]!).sort()
      const cutoff = sorted[sorted.length - limit]!
      kept = touched.filter((slot) => scores[slot]! >= cutoff)
    }
    const hits: Array<RankHit> = kept.map((slot) => ({ key: this.docs[slot]!.key, score: scores[slot]! }))
    for (const slot of touched) scores[slot] = 0
    hits.sort((a, b) => b.score - a.score || before(a.key, b.key))
    if (hits.length > limit) hits.length = limit
    return hits
  }
}
