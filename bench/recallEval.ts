/**
 * Recall's reach: the share of gold topics among the selector's candidates, over the recall eval set
 * (test/support/recallEval.ts: folders of 20, 200, 1,000 and 5,000 topics from one seed, prompts of three kinds:
 * direct, paraphrase, and direct about an old topic, one older than the newest 200). The candidates are what the real
 * Recall step shows the selector (a Selector that records its request and answers nothing), against the baseline of
 * the scan this replaced: the 200 newest topics.
 * Run: node bench/recallEval.ts [seed]
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { MemoryStore } from "../layers/memory/MemoryStore.ts"
import { Recall } from "../layers/recall/Recall.ts"
import { Selector, type SelectRequest } from "../layers/recall/Selector.ts"
import { FileSystem } from "../layers/storage/FileSystem.ts"
import { catalogOf } from "../src/memory/catalog.ts"
import { emptyRecallState } from "../src/recall/recallState.ts"
import { type EvalPrompt, generateMemory, writeMemory } from "../test/support/recallEval.ts"

const SEED = Number(process.argv[2] ?? 37)
const SIZES = [20, 200, 1_000, 5_000]
const KINDS = ["direct", "paraphrase", "old"] as const

const base = mkdtempSync(join(tmpdir(), "pm-recall-eval-"))
const rows: Array<string> = []
for (const size of SIZES) {
  const memory = generateMemory(SEED, size)
  const dir = join(base, `mem-${size}`)
  await writeMemory(dir, memory)
  const seen: Array<SelectRequest> = []
  const recording = Layer.succeed(Selector, {
    select: (request) => Effect.sync(() => (seen.push(request), { selected: [], warning: undefined, requests: 1 }))
  })
  const runtime = ManagedRuntime.make(Recall.layer.pipe(Layer.provide(Layer.merge(MemoryStore.layer, recording)), Layer.provide(FileSystem.layer)))
  const newest = new Set([...memory.topics].sort((a, b) => b.mtimeMs - a.mtimeMs).slice(0, 200).map((t) => t.filename))
  const found: Record<string, { gold: number; now: number; before: number }> = {}
  let lines = 0
  let chars = 0
  const ask = (p: EvalPrompt) =>
    runtime.runPromise(Effect.flatMap(Recall, (r) =>
      r.recall({ query: p.text, state: emptyRecallState, modelRef: undefined, sessionId: "eval", nowMs: Date.now(), memoryDir: dir })
    ))
  for (const p of memory.prompts) {
    seen.length = 0
    await ask(p)
    const shown = new Set(seen[0]!.topics.map((t) => t.filename))
    lines += shown.size
    chars += catalogOf(seen[0]!.topics).length
    const k = (found[p.kind] ??= { gold: 0, now: 0, before: 0 })
    for (const g of p.gold) {
      k.gold++
      if (shown.has(g)) k.now++
      if (newest.has(g)) k.before++
    }
  }
  await runtime.dispose()
  const share = (n: number, d: number) => (d === 0 ? "—" : `${((100 * n) / d).toFixed(0)} % (${n}/${d})`)
  const all = KINDS.reduce((acc, k) => ({ gold: acc.gold + (found[k]?.gold ?? 0), now: acc.now + (found[k]?.now ?? 0), before: acc.before + (found[k]?.before ?? 0) }), { gold: 0, now: 0, before: 0 })
  rows.push(
    `| ${size.toLocaleString("en-US")} | ${KINDS.map((k) => share(found[k]?.now ?? 0, found[k]?.gold ?? 0)).join(" | ")} | ${share(all.now, all.gold)} | ${share(all.before, all.gold)} | ${(lines / memory.prompts.length).toFixed(0)} lines, ${(chars / memory.prompts.length / 1000).toFixed(1)}k chars |`
  )
}
rmSync(base, { recursive: true, force: true })
console.log(`Gold topics among the selector's candidates, seed ${SEED}`)
console.log("| topics | direct | paraphrase | old | all | all, before (200 newest) | catalog per request |")
console.log("|---|---|---|---|---|---|---|")
for (const row of rows) console.log(row)
