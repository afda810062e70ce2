/**
 * Extraction dispatch cost on a settled turn, in the real Pi host with the fake provider: the time our
 * `agent_settled` handler holds the turn (MemorySession's bookkeeping plus starting the extraction fiber), measured
 * between a probe extension loaded before ours and one loaded after it. The extraction itself runs after the
 * handler returns (its model answers "Nothing to save." at once). Target: p95 at most 5 ms.
 *   node bench/extraction.ts   (after npm run build; ROUNDS=n)
 */
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { say, startHarness, topic } from "../test/background/harness.ts"

const ROUNDS = Number(process.env["ROUNDS"] ?? 40)
const quantile = (xs: ReadonlyArray<number>, q: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN
}

const probes = realpathSync(mkdtempSync(join(tmpdir(), "pm-bench-probe-")))
const probe = (mark: "start" | "end") => {
  const file = join(probes, `${mark}.mjs`)
  writeFileSync(
    file,
    `export default function (pi) { pi.on("agent_settled", () => { (globalThis.__PM_SETTLE__ ??= []).push(["${mark}", performance.now()]) }) }\n`
  )
  return file
}
const memory: Record<string, string> = { "MEMORY.md": "" }
for (let i = 0; i < 50; i++) {
  memory[`topic-${i}.md`] = topic(`Topic ${i}`, `subsystem ${i}`)
  memory["MEMORY.md"] += `- [Topic ${i}](topic-${i}.md) - subsystem ${i}\n`
}

const h = await startHarness({ memory, extensionsBefore: [probe("start")], extensions: [probe("end")] })
h.background = () => say("Nothing to save.")
const marks = ((globalThis as any).__PM_SETTLE__ ??= []) as Array<[string, number]>
const times: Array<number> = []
for (let i = 0; i < ROUNDS + 3; i++) {
  marks.length = 0
  await h.prompt(`please note fact number ${i} about the deploys`)
  const start = marks.find((m) => m[0] === "start")?.[1]
  const end = marks.find((m) => m[0] === "end")?.[1]
  if (i >= 3 && start !== undefined && end !== undefined) times.push(end - start)
  await h.prompt("/memory extract") // let this turn's extraction finish before the next turn
}
const extractions = h.ofKind("background").length
await h.dispose()
const p50 = quantile(times, 0.5)
const p95 = quantile(times, 0.95)
console.log(`agent_settled handler (dispatch), ${times.length} turns: p50 ${p50.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms, max ${Math.max(...times).toFixed(2)} ms`)
console.log(`background extraction requests: ${extractions}`)
console.log(p95 <= 5 ? "OK: p95 within 5 ms" : "OVER BUDGET: p95 above 5 ms")
process.exit(p95 <= 5 ? 0 : 1)
