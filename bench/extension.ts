/**
 * Extension overhead in the real Pi host with the fake provider answering instantly:
 * - per request: `session.prompt` with the extension (200 topics, an instant selector) against the bare host;
 * - cold load: import + factory of dist/extension.js in a fresh process, against `node -e 0`;
 * - session start: runtime creation + bindExtensions with the extension, against the bare host;
 * - the recall wait: a request whose selector takes 3 s goes ahead after the 2 s bound (the figure the tests no longer
 *   assert: they drive the bound with Effect's TestClock).
 * Run: node bench/extension.ts  (after npm run build)
 */
import { execFileSync } from "node:child_process"
import { performance } from "node:perf_hooks"
import { EXTENSION, selectAnswer, startHarness, topic } from "../test/extension/harness.ts"

const quantile = (xs: ReadonlyArray<number>, q: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN
}
const fmt = (ms: number) => `${ms.toFixed(2)} ms`

const topics: Record<string, string> = { "MEMORY.md": "" }
for (let i = 0; i < 200; i++) {
  topics[`topic-${String(i).padStart(3, "0")}.md`] = topic(`Topic ${i}`, `What we learned about subsystem ${i} and its quirks`, "project", "Line\n".repeat(20))
  topics["MEMORY.md"] += `- [Topic ${i}](topic-${String(i).padStart(3, "0")}.md) - subsystem ${i}\n`
}

const ROUNDS = Number(process.env["ROUNDS"] ?? 40)

const timePrompts = async (withExtension: boolean) => {
  const h = await startHarness({ memory: topics, extension: withExtension, selector: () => selectAnswer(["topic-007.md"]) })
  await h.prompt("warm up the session please")
  const times: Array<number> = []
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now()
    await h.prompt(`question number ${i} about subsystem 7`)
    times.push(performance.now() - t)
  }
  await h.dispose()
  return times
}

const timeStart = async (withExtension: boolean) => {
  const times: Array<number> = []
  for (let i = 0; i < 8; i++) {
    const t = performance.now()
    const h = await startHarness({ memory: { "MEMORY.md": "" }, extension: withExtension })
    times.push(performance.now() - t)
    await h.dispose()
  }
  return times
}

const coldLoad = (): { bare: Array<number>; ext: Array<number> } => {
  const bare: Array<number> = []
  const ext: Array<number> = []
  const script = `const t=performance.now();const m=await import(${JSON.stringify(EXTENSION)});m.default({on(){},registerCommand(){}});process.stdout.write(String(performance.now()-t))`
  for (let i = 0; i < 10; i++) {
    let t = performance.now()
    execFileSync(process.execPath, ["-e", "0"])
    bare.push(performance.now() - t)
    t = performance.now()
    execFileSync(process.execPath, ["--input-type=module", "-e", script])
    ext.push(performance.now() - t)
  }
  return { bare, ext }
}

/** Request latency when the selector answers after 3 s: the request must go ahead at the 2 s bound. */
const timeSlowSelector = async () => {
  const h = await startHarness({
    memory: topics,
    selector: async () => {
      await new Promise((r) => setTimeout(r, 3000))
      return selectAnswer(["topic-007.md"])
    }
  })
  const times: Array<number> = []
  for (let i = 0; i < 3; i++) {
    const t = performance.now()
    await h.prompt(`slow question ${i} about subsystem 7`)
    times.push(performance.now() - t)
  }
  // Let the late answers land before the session goes.
  await new Promise((r) => setTimeout(r, 1200))
  await h.dispose()
  return times
}

const base = await timePrompts(false)
const withExt = await timePrompts(true)
const startBare = await timeStart(false)
const startExt = await timeStart(true)
const cold = coldLoad()
const slow = await timeSlowSelector()

const row = (name: string, xs: ReadonlyArray<number>, baseline: ReadonlyArray<number>) =>
  `${name.padEnd(34)} median ${fmt(quantile(xs, 0.5)).padStart(10)}  p95 ${fmt(quantile(xs, 0.95)).padStart(10)}  baseline median ${fmt(quantile(baseline, 0.5)).padStart(10)}  ratio ${(quantile(xs, 0.5) / quantile(baseline, 0.5)).toFixed(2)}x  overhead ${fmt(quantile(xs, 0.5) - quantile(baseline, 0.5))}`

console.log(`extension bench (${ROUNDS} prompts, 200 topics, instant fake selector)`)
console.log(row("prompt round trip", withExt, base))
console.log(row("session start (runtime+bind)", startExt, startBare))
console.log(row("cold process: import+factory", cold.ext, cold.bare))
console.log(`${"recall wait, selector takes 3 s".padEnd(34)} median ${fmt(quantile(slow, 0.5)).padStart(10)}  max ${fmt(Math.max(...slow)).padStart(10)}  (bound 2000 ms + request)`)
