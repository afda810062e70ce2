/**
 * Recall latency: from the user's query to the injection, excluding the model call, for 200 topics, against the
 * bare scan (`MemoryStore.scanTopics`) of the same directory in the same run.
 *
 *   node bench/recall.ts [runs]        (default 50 runs after 5 warm-up runs; BENCH_RUNS also works)
 *
 * The selector model is pi-ai's fake provider answering at once with five files; the time spent inside the model
 * backend's `complete` is measured per run and subtracted, so "recall - model" is our own work: scan, catalog,
 * request building, parsing, bounded reads, sanitizing and rendering.
 */
import { createModels, fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FileSystem } from "../layers/storage/FileSystem.ts"
import { MemoryStore } from "../layers/memory/MemoryStore.ts"
import { ModelRegistry } from "../layers/model/ModelRegistry.ts"
import { Recall } from "../layers/recall/Recall.ts"
import { Selector } from "../layers/recall/Selector.ts"
import { emptyRecallState } from "../src/recall/recallState.ts"

const TOPICS = 200
const WARMUP = 5
const RUNS = Number(process.argv[2] ?? process.env["BENCH_RUNS"] ?? 50)

const types = ["user", "feedback", "project", "reference"] as const

const writeTopics = (dir: string): ReadonlyArray<string> => {
  const now = Date.now()
  const names: Array<string> = []
  for (let i = 0; i < TOPICS; i++) {
    const filename = `topic-${String(i).padStart(3, "0")}.md`
    // Bodies of 1-6 KB, so some recalls are cut at the 4,096-byte window.
    const lines = 10 + (i % 6) * 12
    const body = Array.from({ length: lines }, (_, l) => `- Point ${l} of topic ${i}: keep the release checklist and the CI notes in sync.`).join("\n")
    writeFileSync(
      join(dir, filename),
      `---\nname: Topic ${i}\ndescription: What topic ${i} records about area ${i % 17}\nmetadata:\n  type: ${types[i % 4]}\n---\n${body}\n`
    )
    const t = (now - i * 3_600_000) / 1000
    utimesSync(join(dir, filename), t, t)
    names.push(filename)
  }
  return names
}

const stats = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? NaN
  return { median: at(0.5), p95: at(0.95) }
}

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "pm-bench-recall-"))
  try {
    const names = writeTopics(dir)
    const picks = [names[3], names[50], names[120], names[199], names[7]] as Array<string>

    const faux = fauxProvider({ models: [{ id: "faux-1" }], tokenSize: { min: 1_000, max: 1_000 } })
    const models = createModels()
    models.setProvider(faux.provider)
    const reply = () => fauxAssistantMessage(fauxToolCall("select_memories", { selected_memories: picks }), { stopReason: "toolUse" })
    let modelMs = 0
    const registry = ModelRegistry.layerWith({
      find: (p, id) => models.getModel(p, id),
      fallback: () => models.getModel("faux", "faux-1"),
      complete: async (model, context, options) => {
        const t0 = performance.now()
        try {
          return await models.complete(model, context, options as never)
        } finally {
          modelMs += performance.now() - t0
        }
      }
    })
    const store = MemoryStore.layer.pipe(Layer.provide(FileSystem.layer))
    const layer = Layer.mergeAll(store, Recall.layer.pipe(Layer.provide(Layer.mergeAll(store, FileSystem.layer, Selector.layer.pipe(Layer.provide(registry))))))

    const program = Effect.gen(function* () {
      const recall = yield* Recall
      const memory = yield* MemoryStore
      const scanMs: Array<number> = []
      const recallMs: Array<number> = []
      const modelOnly: Array<number> = []
      const ownMs: Array<number> = []
      let injected = 0
      let topicsSeen = 0
      for (let i = 0; i < WARMUP + RUNS; i++) {
        faux.setResponses([reply()])
        // Alternate the order so neither side always runs on a cache the other warmed.
        const scanFirst = i % 2 === 0
        const timeScan = Effect.gen(function* () {
          const t0 = performance.now()
          const { topics } = yield* memory.scanTopics(dir)
          topicsSeen = topics.length
          return performance.now() - t0
        })
        const timeRecall = Effect.gen(function* () {
          modelMs = 0
          const t0 = performance.now()
          const out = yield* recall.recall({
            memoryDir: dir,
            query: "how do we cut a release",
            state: emptyRecallState,
            modelRef: "faux/faux-1",
            sessionId: "bench",
            nowMs: Date.now()
          })
          const total = performance.now() - t0
          if (out.selected.length !== picks.length || out.warnings.length > 0) throw new Error(`unexpected recall: ${JSON.stringify(out.warnings)}`)
          injected = out.injection.length
          return { total, model: modelMs }
        })
        let scan: number
        let r: { total: number; model: number }
        if (scanFirst) {
          scan = yield* timeScan
          r = yield* timeRecall
        } else {
          r = yield* timeRecall
          scan = yield* timeScan
        }
        if (i < WARMUP) continue
        scanMs.push(scan)
        recallMs.push(r.total)
        modelOnly.push(r.model)
        ownMs.push(r.total - r.model)
      }
      return { scanMs, recallMs, modelOnly, ownMs, injected, topicsSeen }
    })

    const { scanMs, recallMs, modelOnly, ownMs, injected, topicsSeen } = await Effect.runPromise(Effect.provide(program, layer))
    const scan = stats(scanMs)
    const own = stats(ownMs)
    const total = stats(recallMs)
    const model = stats(modelOnly)
    const f = (n: number) => n.toFixed(2).padStart(8)
    console.log(`recall benchmark: ${topicsSeen} topics, ${picks.length} recalled (${injected} characters injected), ${RUNS} runs after ${WARMUP} warm-up, Node ${process.version}`)
    console.log(`                                median ms   p95 ms`)
    console.log(`bare scan (scanTopics)          ${f(scan.median)} ${f(scan.p95)}`)
    console.log(`recall, query -> injection      ${f(total.median)} ${f(total.p95)}`)
    console.log(`  of which the fake model call  ${f(model.median)} ${f(model.p95)}`)
    console.log(`recall excluding the model      ${f(own.median)} ${f(own.p95)}`)
    console.log(`ratio recall-excl-model / scan  ${f(own.median / scan.median)} ${f(own.p95 / scan.p95)}`)
    console.log(`overhead beyond the scan        ${f(own.median - scan.median)} ${f(own.p95 - scan.p95)}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
