/**
 * The cost of journaling one change against the length of the journal already there: 10, 1,000 and 100,000 entries
 * (all recent, so retention keeps them). Each round journals one change of a new file through the writer's hook
 * (`journal.lock`, the blob stored and fsynced, the intent and the outcome appended and fsynced) with a publish that
 * does nothing, so only the journal's part is timed. Baseline of the same run: a bare append + fsync of one line.
 * Also shown: one pruning at each length, which recording runs only when the journal has grown by half since the
 * last one (or the content passed its cap).
 *   node bench/journal.ts [rounds]
 */
import { Effect, Layer } from "effect"
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import * as fsp from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FileSystem } from "../layers/storage/FileSystem.ts"
import { Journal } from "../layers/writes/Journal.ts"
import { LockService } from "../layers/storage/LockService.ts"
import { encodeEntry, sha256Hex } from "../src/writes/journal.ts"

const ROUNDS = Number(process.argv[2] ?? 40)
const layer = Journal.layer.pipe(Layer.provideMerge(LockService.layer), Layer.provide(FileSystem.layer))
const journal = Effect.runSync(Effect.provide(Journal, layer))

const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const mean = (xs: Array<number>) => xs.reduce((a, b) => a + b, 0) / xs.length

const journalOf = (entries: number) => {
  const rootDir = mkdtempSync(join(tmpdir(), "pm-bench-journal-"))
  const dir = join(rootDir, "journal")
  mkdirSync(join(dir, "blobs"), { recursive: true })
  const now = Date.now()
  const lines: Array<string> = []
  for (let i = 0; i < entries; i++) {
    lines.push(encodeEntry({
      v: 1,
      task: `filler-${i}`,
      kind: "extract",
      at: new Date(now - 60_000 + i).toISOString(),
      session: null,
      model: null,
      changes: [{ file: `f${i % 100}.md`, op: "create", before: null, after: sha256Hex(String(i)) }]
    }))
  }
  writeFileSync(join(dir, "journal.jsonl"), lines.join(""))
  // As right after a pruning: the next rounds are ordinary recordings.
  writeFileSync(join(dir, "state.json"), JSON.stringify({ prunedSize: statSync(join(dir, "journal.jsonl")).size, contentBytes: 0 }))
  return rootDir
}

const recordOne = (rootDir: string, i: number) =>
  journal.forWriter({ rootDir }, { task: `bench-${i}`, kind: "extract", session: null, model: null }).around(
    (intend) => intend({ file: `topic-${i}.md`, before: Buffer.from(`old content ${i} ${Math.random()}\n`), after: Buffer.from(`new ${i}\n`) }),
    () => "done"
  )

const bareAppend = async (path: string) => {
  const handle = await fsp.open(path, "a")
  await handle.write(`${JSON.stringify({ n: Math.random() })}\n`)
  await handle.sync()
  await handle.close()
}

const rows: Array<[string, number, number, number]> = []
const base = mkdtempSync(join(tmpdir(), "pm-bench-bare-"))
const bare: Array<number> = []
for (let i = 0; i < ROUNDS; i++) {
  const t = performance.now()
  await bareAppend(join(base, "bare.jsonl"))
  bare.push(performance.now() - t)
}
const bareMedian = median(bare)
let first: number | undefined
for (const entries of [10, 1_000, 100_000]) {
  const rootDir = journalOf(entries)
  const times: Array<number> = []
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now()
    await Effect.runPromise(recordOne(rootDir, i))
    times.push(performance.now() - t)
  }
  const t = performance.now()
  await Effect.runPromise(journal.prune({ rootDir }))
  const pruneMs = performance.now() - t
  first ??= median(times)
  rows.push([`${entries.toLocaleString("en")} entries`, median(times), mean(times), pruneMs])
  rmSync(rootDir, { recursive: true, force: true })
}
rmSync(base, { recursive: true, force: true })

console.log(`journaling one change (${ROUNDS} rounds each); baseline: bare append + fsync, median ${bareMedian.toFixed(2)} ms`)
console.log("| journal | median ms | mean ms | x 10 entries | x bare append | one pruning ms |")
console.log("|---|---|---|---|---|---|")
for (const [label, med, avg, prune] of rows) {
  console.log(`| ${label} | ${med.toFixed(2)} | ${avg.toFixed(2)} | ${(med / first!).toFixed(2)} | ${(med / bareMedian).toFixed(1)} | ${prune.toFixed(0)} |`)
}
