/**
 * Recall: from the user's text to the injection. Gates (whitespace threshold, branch budget), the candidates (the
 * whole memory when it fits, else the topics near the text and a few of the newest; none near: no request),
 * selection, bounded reads, the cited project files, symbols and scripts checked (citedFiles.ts, citedSymbols.ts),
 * sanitized rendering, and the next branch state. Shared by `pm recall` and the extension.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SCAN_MAX_TOPICS } from "../../src/limits.ts"
import { selectorParts } from "../../src/recall/candidates.ts"
import { renderRecall, type RecalledFile } from "../../src/recall/recall.ts"
import { budgetExhausted, withRecall, type BranchRecallState } from "../../src/recall/recallState.ts"
import { sanitizeMemoryText } from "../../src/safety/sanitize.ts"
import { MemoryStore } from "../memory/MemoryStore.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { makeCitedCheck } from "./citedFiles.ts"
import { makeSymbolCheck } from "./citedSymbols.ts"
import type { Topic } from "../memory/topicScan.ts"
import { Selector } from "./Selector.ts"

export interface RecallRequest {
  readonly memoryDir: string
  readonly query: string
  readonly state: BranchRecallState
  readonly modelRef: string | undefined
  readonly sessionId: string
  readonly nowMs: number
  /** The project the memories belong to: the files they cite are checked against it (none checked without it). */
  readonly projectRoot?: string
  /** Skip the model and render these files (`pm recall --select`). */
  readonly select?: ReadonlyArray<string>
}

export interface RecallOutcome {
  readonly selected: ReadonlyArray<string>
  readonly injection: string
  readonly budgetUsed: number
  /** The mtime of each injected file as read: recall does not inject that version again on the branch. */
  readonly mtimes: Readonly<Record<string, number>>
  readonly warnings: ReadonlyArray<string>
  /** Whether the selector model was asked. */
  readonly called: boolean
  /** Whether it gave a usable answer (possibly empty): only such turns enter the selector's history. */
  readonly answered: boolean
  readonly state: BranchRecallState
}

export interface RecallShape {
  readonly recall: (request: RecallRequest) => Effect.Effect<RecallOutcome>
}

/** The selector runs only for text with a whitespace character inside it after trimming. */
export const passesWhitespaceThreshold = (query: string): boolean => /\s/.test(query.trim())

/** Whether a topic's file name passes the sanitizer unchanged; answered once per topic object (scans reuse them). */
const showable = new WeakMap<Topic, boolean>()
const showableName = (t: Topic): boolean => {
  let ok = showable.get(t)
  if (ok === undefined) {
    ok = sanitizeMemoryText(t.filename) === t.filename
    showable.set(t, ok)
  }
  return ok
}

export const makeRecall = Effect.gen(function* () {
  const store = yield* MemoryStore
  const selector = yield* Selector
  const fs = yield* FileSystem
  const checkCited = makeCitedCheck(fs)
  const checkSymbols = makeSymbolCheck(fs)

  // Untraced: it runs on every request (see MemoryStore's per-request reads).
  const recall = Effect.fnUntraced(function* (request: RecallRequest) {
    const nothing = (warnings: ReadonlyArray<string> = [], called = false): RecallOutcome => ({
      selected: [],
      injection: "",
      budgetUsed: 0,
      mtimes: {},
      warnings,
      called,
      answered: false,
      state: request.state
    })
    let names: ReadonlyArray<string>
    const warnings: Array<string> = []
    let called = false
    let answered = false
    if (request.select !== undefined) {
      names = request.select
    } else {
      if (!passesWhitespaceThreshold(request.query) || budgetExhausted(request.state)) return nothing()
      const query = request.query.trim()
      const { ranked, scores, topics: newest } = yield* store.rankTopics(request.memoryDir, query, SCAN_MAX_TOPICS)
      // The catalog shows file names verbatim (the model copies them back). A name the sanitizer would change (a
      // reserved tag, a bidi or zero-width character) cannot be shown safely, so that file is not offered at all.
      // No candidates (a memory too large to show whole, and no topic near the text): the selector is not asked.
      const { topics, whole, near } = selectorParts(ranked, scores, newest, showableName)
      const outcome = yield* selector.select({
        query,
        topics,
        whole,
        near,
        state: request.state,
        modelRef: request.modelRef,
        sessionId: request.sessionId
      })
      called = outcome.requests > 0
      answered = called && outcome.warning === undefined
      if (outcome.warning !== undefined) warnings.push(outcome.warning)
      names = outcome.selected
      if (names.length === 0) {
        // A failed request is not history: the model never gave that answer.
        return {
          ...nothing(warnings, called),
          answered,
          state: answered ? withRecall(request.state, { query: request.query.trim(), selected: [], budgetUsed: 0 }) : request.state
        }
      }
    }
    let reads: Array<RecalledFile> = []
    const root = request.projectRoot
    for (const name of names) {
      const read = yield* store.readForRecall(request.memoryDir, name).pipe(Effect.either)
      if (read._tag === "Right") {
        reads.push(root === undefined ? read.right : { ...read.right, cited: yield* checkCited(root, read.right.window.text, read.right.mtimeMs) })
      }
      else warnings.push(`Memory ${name} was selected but could not be read: ${read.left.reason}.`)
    }
    if (root !== undefined && reads.length > 0) {
      // Symbols and scripts of all the injected memories are checked together (one bound for the recall).
      const symbols = yield* checkSymbols(root, reads.map((r) => r.window.text))
      reads = reads.map((r, i) => ({ ...r, cited: { gone: [], changed: [], ...r.cited, ...symbols[i]! } }))
    }
    const rendering = renderRecall(reads, request.nowMs)
    const mtimes = Object.fromEntries(reads.filter((r) => rendering.included.includes(r.filename)).map((r) => [r.filename, r.mtimeMs]))
    return {
      selected: rendering.included,
      injection: rendering.injection,
      budgetUsed: rendering.budgetUsed,
      mtimes,
      warnings,
      called,
      answered: answered || request.select !== undefined,
      state: withRecall(request.state, { query: request.query.trim(), selected: rendering.included, budgetUsed: rendering.budgetUsed, mtimes })
    } satisfies RecallOutcome
  })

  return { recall } satisfies RecallShape
})

export class Recall extends Context.Tag("pm/Recall")<Recall, RecallShape>() {
  /** The service's one constructor (its layer's, and the extension graph's). */
  static readonly make = makeRecall
  static readonly layer: Layer.Layer<Recall, never, MemoryStore | Selector | FileSystem> = Layer.effect(Recall, Recall.make)
}
