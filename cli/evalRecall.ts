/**
 * `pm eval recall`'s runs: each prompt of a memory folder through the product's own Recall (layers/recall/Recall.ts,
 * its Selector over the model), from an empty branch state, one request a prompt, and what came back scored
 * (src/eval/scores.ts). The shipped folders (src/eval/recallSetGrown.ts) are written to a temporary folder first;
 * a folder of one's own (`--set DIR`) is read where it is (recall only reads memory). Bad set input fails with an
 * EvalSetError naming the file and the line.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { sha256Hex24 } from "../src/project/projectKey.ts"
import { emptyRecallState } from "../src/recall/recallState.ts"
import { EvalSetError, parsePrompts, unknownExpectation } from "../src/eval/setFiles.ts"
import { type RecallCase, type RecallResult, type RecallScores, scoreRecall } from "../src/eval/scores.ts"
import { topicFileText } from "../src/eval/recallSet.ts"
import type { RecallFolder } from "../src/eval/recallSetGrown.ts"
import { MemoryStore } from "../layers/memory/MemoryStore.ts"
import { Recall } from "../layers/recall/Recall.ts"

const DAY_MS = 86_400_000

export interface RecallFolderRun {
  readonly folder: string
  readonly topics: number
  readonly scores: RecallScores
  readonly results: ReadonlyArray<RecallResult>
}

/** Writes a shipped folder's topics under `dir`, each file as old as the set says. */
export const writeRecallFolder = (dir: string, folder: RecallFolder, nowMs: number): void => {
  mkdirSync(dir, { recursive: true })
  for (const t of folder.topics) {
    const path = join(dir, t.filename)
    writeFileSync(path, topicFileText(t))
    const at = new Date(nowMs - t.ageDays * DAY_MS)
    utimesSync(path, at, at)
  }
}

/** Every prompt of `cases` through Recall over `memoryDir`, scored. `onPrompt` hears of each one done. */
export const runRecallFolder = (
  name: string,
  memoryDir: string,
  cases: ReadonlyArray<RecallCase>,
  modelRef: string | undefined,
  onPrompt: (done: number, all: number) => Effect.Effect<void> = () => Effect.void
) =>
  Effect.gen(function* () {
    const recall = yield* Recall
    const topics = (yield* (yield* MemoryStore).scanTopics(memoryDir)).topics.length
    const results: Array<RecallResult> = []
    for (const c of cases) {
      const outcome = yield* recall.recall({
        memoryDir,
        query: c.prompt,
        state: emptyRecallState,
        modelRef,
        sessionId: `pm-eval-${sha256Hex24(memoryDir)}`,
        nowMs: Date.now()
      })
      const failed = outcome.called && !outcome.answered
      results.push({ ...c, selected: outcome.selected, ...(failed ? { failure: outcome.warnings.join(" ") } : {}) })
      yield* onPrompt(results.length, cases.length)
    }
    return { folder: name, topics, scores: scoreRecall(results), results } satisfies RecallFolderRun
  })

/** A set of one's own: DIR/memory/ and DIR/prompts.jsonl, checked before any model is asked. */
export const readOwnSet = (dir: string) =>
  Effect.gen(function* () {
    const memoryDir = join(dir, "memory")
    const promptsFile = join(dir, "prompts.jsonl")
    const text = yield* Effect.try({
      try: () => readFileSync(promptsFile, "utf8"),
      catch: (e) => new EvalSetError({ file: promptsFile, line: 0, problem: `cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})` })
    })
    const cases = yield* Either.match(parsePrompts(text, promptsFile), { onLeft: Effect.fail, onRight: Effect.succeed })
    if (!existsSync(memoryDir) || !statSync(memoryDir).isDirectory()) {
      return yield* Effect.fail(new EvalSetError({ file: memoryDir, line: 0, problem: "is missing: a set holds its memory folder there" }))
    }
    const scan = yield* (yield* MemoryStore).scanTopics(memoryDir)
    const unknown = unknownExpectation(text, promptsFile, new Set(scan.topics.map((t) => t.filename)))
    if (unknown !== undefined) return yield* Effect.fail(unknown)
    return { memoryDir, cases }
  })
