/**
 * Extension overhead in the real Pi host with the fake provider answering instantly:
 * - per request: `session.prompt` with the extension (200 topics, an instant selector) against the bare host;
 * - the `before_agent_start` hook itself, timed around our handler, with the selector's model call answered at once
 *   in-process (no Pi provider path): the extension's own work per request. Its share spent in the topic scan is
 *   shown by `MemoryStore.scanTopics` timed alone on the same directory in the same run;
 * - cold load: import + factory of dist/extension.js in a fresh process, against `node -e 0` (time and RSS growth);
 * - a first session in a fresh process (Pi's jiti loader, import, factory, session start), against the bare host;
 * - session start (runtime+bind) in a warm process, with the extension against the bare host;
 * - the recall wait: a request whose selector takes 3 s goes ahead after the 2 s bound (the figure the tests no longer
 *   assert: they drive the bound with Effect's TestClock).
 * Run: node bench/extension.ts  (after npm run build)
 */
import { execFileSync } from "node:child_process"
import { performance } from "node:perf_hooks"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as piHost from "@earendil-works/pi-coding-agent"
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent"
import { projectMemory } from "../extension/index.ts"
import { FileSystem } from "../layers/storage/FileSystem.ts"
import { MemoryStore } from "../layers/memory/MemoryStore.ts"
import { EXTENSION, EXTENSION_BUNDLE, selectAnswer, startHarness, topic } from "../test/extension/harness.ts"

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

/**
 * The extension from source, each handler timed; the context it sees answers the selector's model call at once
 * (what Pi's registry would return, without its provider plumbing). Also times the scan alone on the same directory.
 */
const timeHook = async () => {
  const hook: Array<number> = []
  const instantModels = (ctx: ExtensionContext): ExtensionContext => {
    const registry = ctx.modelRegistry
    const fast = new Proxy(registry, {
      get: (t, k) => (k === "complete" ? async () => selectAnswer(["topic-007.md"]) : typeof (t as any)[k] === "function" ? (t as any)[k].bind(t) : (t as any)[k])
    })
    return new Proxy(ctx, { get: (t, k) => (k === "modelRegistry" ? fast : typeof (t as any)[k] === "function" ? (t as any)[k].bind(t) : (t as any)[k]) })
  }
  const factory = projectMemory(piHost)
  const timed = (pi: ExtensionAPI) =>
    factory(new Proxy(pi, {
      get: (t, k) =>
        k === "on"
          ? (name: string, handler: (event: unknown, ctx: ExtensionContext) => unknown) =>
            t.on(name as "session_start", async (event: unknown, ctx: ExtensionContext) => {
              if (name !== "before_agent_start") return handler(event, instantModels(ctx)) as never
              const start = performance.now()
              try {
                return (await handler(event, instantModels(ctx))) as never
              } finally {
                hook.push(performance.now() - start)
              }
            })
          : typeof (t as any)[k] === "function" ? (t as any)[k].bind(t) : (t as any)[k]
    }))
  const h = await startHarness({ memory: topics, extension: false, factories: [timed], selector: () => selectAnswer(["topic-007.md"]) })
  await h.prompt("warm up the session please")
  hook.length = 0
  const scan: Array<number> = []
  const store = ManagedRuntime.make(MemoryStore.layer.pipe(Layer.provide(FileSystem.layer)))
  const scanOnce = Effect.flatMap(MemoryStore, (s) => s.scanTopics(h.memoryDir))
  await store.runPromise(scanOnce)
  for (let i = 0; i < ROUNDS; i++) {
    await h.prompt(`question number ${i} about subsystem 7`)
    const t = performance.now()
    await store.runPromise(scanOnce)
    scan.push(performance.now() - t)
  }
  if (h.selectorRequests().length > 0) throw new Error("the selector reached the provider: the hook figure would include it")
  await store.dispose()
  await h.dispose()
  return { hook, scan }
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

/** Import + factory in a fresh process (time from the outside, RSS growth from the inside), against `node -e 0`. */
const coldLoad = () => {
  const bare: Array<number> = []
  const ext: Array<number> = []
  const rss: Array<number> = []
  const script = `const r=process.memoryUsage.rss();const m=await import(${JSON.stringify(EXTENSION_BUNDLE)});m.projectMemory({})({on(){},registerCommand(){}});process.stdout.write(String(process.memoryUsage.rss()-r))`
  for (let i = 0; i < 10; i++) {
    let t = performance.now()
    execFileSync(process.execPath, ["-e", "0"])
    bare.push(performance.now() - t)
    t = performance.now()
    const grown = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })
    ext.push(performance.now() - t)
    rss.push(Number(grown) / (1 << 20))
  }
  return { bare, ext, rss }
}

/** A first session in a fresh process through Pi's own loader: harness start, timed inside the child. */
const firstSession = () => {
  const harness = new URL("../test/extension/harness.ts", import.meta.url).href
  const run = (extension: boolean) =>
    Number(execFileSync(process.execPath, ["--input-type=module", "-e",
      `import { startHarness } from ${JSON.stringify(harness)};` +
      `const t=performance.now();const h=await startHarness({memory:{"MEMORY.md":""},extension:${extension}});` +
      `const d=performance.now()-t;await h.dispose();process.stdout.write(String(d))`], { encoding: "utf8" }))
  const bare: Array<number> = []
  const ext: Array<number> = []
  for (let i = 0; i < 6; i++) {
    bare.push(run(false))
    ext.push(run(true))
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
const hooked = await timeHook()
const startBare = await timeStart(false)
const startExt = await timeStart(true)
const cold = coldLoad()
const first = firstSession()
const slow = await timeSlowSelector()

const row = (name: string, xs: ReadonlyArray<number>, baseline: ReadonlyArray<number>) =>
  `${name.padEnd(38)} median ${fmt(quantile(xs, 0.5)).padStart(10)}  p95 ${fmt(quantile(xs, 0.95)).padStart(10)}  baseline median ${fmt(quantile(baseline, 0.5)).padStart(10)}  ratio ${(quantile(xs, 0.5) / quantile(baseline, 0.5)).toFixed(2)}x  overhead ${fmt(quantile(xs, 0.5) - quantile(baseline, 0.5))}`
const alone = (name: string, xs: ReadonlyArray<number>, note: string) =>
  `${name.padEnd(38)} median ${fmt(quantile(xs, 0.5)).padStart(10)}  p95 ${fmt(quantile(xs, 0.95)).padStart(10)}  ${note}`

console.log(`extension bench (${ROUNDS} prompts, 200 topics, instant fake selector)`)
console.log(row("prompt round trip", withExt, base))
console.log(alone("before_agent_start hook, model instant", hooked.hook, "(goal: p95 <= 5 ms)"))
console.log(alone("  of which could be the scan (alone)", hooked.scan, "(MemoryStore.scanTopics, same directory, warm)"))
console.log(row("session start (runtime+bind), warm", startExt, startBare))
console.log(row("cold process: import+factory", cold.ext, cold.bare))
console.log(`${"cold process: RSS growth".padEnd(38)} median ${`${quantile(cold.rss, 0.5).toFixed(1)} MiB`.padStart(10)}  max ${`${Math.max(...cold.rss).toFixed(1)} MiB`.padStart(10)}  (goal: <= 10 MiB)`)
console.log(row("cold process: first session (jiti)", first.ext, first.bare))
console.log(`${"recall wait, selector takes 3 s".padEnd(38)} median ${fmt(quantile(slow, 0.5)).padStart(10)}  max ${fmt(Math.max(...slow)).padStart(10)}  (bound 2000 ms + request)`)
