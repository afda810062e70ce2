/**
 * Per-prompt cost against the size of memory: the extension's `before_agent_start` hook (recall with the selector's
 * model call answered at once in-process: the extension's own work) in the real Pi host, over folders of 20, 200,
 * 1,000 and 5,000 topics from the recall eval generator (test/support/recallEval.ts), each as a ratio to 20 topics:
 * - unchanged: the folder did not change since the last prompt;
 * - one changed: one topic replaced (written aside and renamed over, as every writer of memory publishes) before
 *   each prompt;
 * - first prompt: the session's first, which builds the folder's manifest.
 * Run: node bench/scale.ts [rounds]  (Node >= 22.18 runs the TypeScript directly)
 */
import { renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import * as piHost from "@earendil-works/pi-coding-agent"
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent"
import { projectMemory } from "../extension/index.ts"
import { selectAnswer, startHarness } from "../test/extension/harness.ts"
import { generateMemory, writeMemory } from "../test/support/recallEval.ts"
import { median } from "./_support.ts"

const ROUNDS = Number(process.argv[2] ?? 30)
const SIZES = [20, 200, 1_000, 5_000]

/** A folder's times must be older than the manifest's racy window (2 s) before the prompts are timed. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 2_200))

const run = async (size: number) => {
  const hook: Array<number> = []
  const instantModels = (ctx: ExtensionContext): ExtensionContext => {
    const registry = ctx.modelRegistry
    const fast = new Proxy(registry, {
      get: (t, k) => (k === "complete" ? async () => selectAnswer([]) : typeof (t as any)[k] === "function" ? (t as any)[k].bind(t) : (t as any)[k])
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
  const memory = generateMemory(37, size)
  const h = await startHarness({ memory: { "MEMORY.md": "" }, extension: false, factories: [timed], selector: () => selectAnswer([]) })
  await writeMemory(h.memoryDir, memory)
  await settle()
  await h.prompt("what do we know about the billing service deploys")
  const first = hook.splice(0)[0]!
  await settle()
  const prompts = memory.prompts.map((p) => p.text)
  for (let i = 0; i < ROUNDS; i++) await h.prompt(prompts[i % prompts.length]!)
  const unchanged = median(hook.splice(0))
  // One topic replaced before each prompt (its folder moves).
  const victim = memory.topics[Math.floor(memory.topics.length / 2)]!
  for (let i = 0; i < ROUNDS; i++) {
    const aside = join(h.memoryDir, `.swap-${i}.tmp`)
    writeFileSync(aside, `${victim.content}\nEdit ${i}.\n`)
    renameSync(aside, join(h.memoryDir, victim.filename))
    await h.prompt(prompts[i % prompts.length]!)
  }
  const changed = median(hook.splice(0))
  if (h.selectorRequests().length > 0) throw new Error("the selector reached the provider: the hook figure would include it")
  await h.dispose()
  return { first, unchanged, changed }
}

const rows: Array<{ size: number; first: number; unchanged: number; changed: number }> = []
for (const size of SIZES) rows.push({ size, ...(await run(size)) })
const base = rows[0]!
const f = (ms: number) => `${ms.toFixed(2)} ms`
const x = (ms: number, b: number) => `${(ms / b).toFixed(2)}x`
console.log(`before_agent_start hook, median of ${ROUNDS} prompts (ratio to ${base.size} topics)`)
console.log("topics | unchanged folder | one topic changed | first prompt (builds the manifest)")
for (const r of rows) {
  console.log(`${r.size} | ${f(r.unchanged)} (${x(r.unchanged, base.unchanged)}) | ${f(r.changed)} (${x(r.changed, base.changed)}) | ${f(r.first)} (${x(r.first, base.first)})`)
}
process.exit(0)
