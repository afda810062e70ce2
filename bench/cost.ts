/**
 * What memory costs in model requests: recall, extraction and dream, per turn, at 20 and 200 topics and sessions of
 * 6 and 12 turns, in the real Pi host with the built extension against the strict fake provider
 * (test/support/strictProvider.ts). The provider counts input tokens the way Pi estimates them (characters / 4),
 * output tokens of the scripted answers the same way, and the part of each request's input served from its prompt
 * cache: the longest prefix shared with an earlier request under the same `prompt_cache_key`, counted from 1,024
 * tokens in steps of 128, as OpenAI bills it.
 *
 * Each session is run twice with the same scripted model: once with memory on and once with `enabled: false`, so
 * what memory adds to the main agent's own requests (the index in the system prompt, the recalled topics) is the
 * difference between the two. The models' answers are scripted, so output tokens are the script's; input tokens
 * and the cached share are what the extension sends.
 *
 * Each row also shows its effective input, uncached + a tenth of cached (what a provider that bills cached input at a
 * tenth charges), and a second table sets a whole turn with memory on (selector, main request, extraction) against the
 * same turn with memory off, both effective.
 *
 *   npm run build && node bench/cost.ts            (prints the tables docs/cost.md quotes)
 *   node bench/cost.ts --json                      (the same figures as JSON)
 *   COST_TOPICS=20 COST_TURNS=6 node bench/cost.ts (one cell only)
 */
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai"
import { call, calls, type Harness, say, SELECTOR_MARK, startHarness, taskTurn, textOf, TOOLS_HEADING, topic } from "../test/background/harness.ts"
import type { StrictRequest } from "../test/support/strictProvider.ts"

const TOPIC_COUNTS = (process.env["COST_TOPICS"] ?? "20,200").split(",").map(Number)
const TURN_COUNTS = (process.env["COST_TURNS"] ?? "6,12").split(",").map(Number)
const DREAM_MARK = "# Memory consolidation"
const json = process.argv.includes("--json")
/** `--requests`: each request of each session on stderr (kind, input, cached, uncached), to see where tokens go; with
 * COST_DUMP=DIR also each request's body, as JSON in DIR. */
const listRequests = process.argv.includes("--requests")

type Kind = "selector" | "main" | "extraction" | "dream" | "other"

const kindOf = (r: StrictRequest): Kind => {
  const user = r.messages.filter((m: any) => m.role === "user").map(textOf)
  if (r.system.includes(SELECTOR_MARK)) return "selector"
  if (user.some((t) => t.includes(DREAM_MARK))) return "dream"
  if (r.system.includes(TOOLS_HEADING) || user.some((t) => t.includes(TOOLS_HEADING))) return "extraction"
  return /summar/i.test(r.system) ? "other" : "main"
}

/** Topics of about 700 bytes (a header the memory rules teach, a body of a few lines), all linked from MEMORY.md. */
const memoryOf = (count: number): Record<string, string> => {
  const files: Record<string, string> = {}
  const index: Array<string> = []
  const types = ["user", "feedback", "project", "reference"]
  for (let i = 0; i < count; i++) {
    const name = `topic-${String(i).padStart(3, "0")}.md`
    const body = Array.from({ length: 6 }, (_, l) => `- Point ${l} of topic ${i}: how area ${i % 17} is built, tested and released.`).join("\n")
    files[name] = topic(`Topic ${i}`, `what topic ${i} records about area ${i % 17}`, types[i % 4], body)
    index.push(`- [Topic ${i}](${name}) - area ${i % 17}, part ${i}`)
  }
  files["MEMORY.md"] = `${index.join("\n")}\n`
  return files
}

/** The two topics recall brings back at a turn: different ones each turn. */
const picks = (turn: number, topics: number): [number, number] => [(turn * 7) % topics, (turn * 7 + 3) % topics]
const fileOf = (i: number) => `topic-${String(i).padStart(3, "0")}.md`
/** A request about the two topics recall picks at that turn (it names their files, as a person names what they mean). */
const USER = (turn: number, topics: number) =>
  `Turn ${turn}, about ${picks(turn, topics).map(fileOf).join(" and ")}: in area ${turn % 17}, the release script should run the integration tests before tagging; ` +
  `please change it so, and remember that we always tag from main after the changelog is updated.`
const ANSWER = (turn: number) =>
  `Done for turn ${turn}. I changed the release script so the integration tests run before the tag is made, and ` +
  `the tag is taken from main once the changelog has its entry. Nothing else in the script changed.`

interface Totals {
  requests: number
  input: number
  output: number
  cached: number
}
const zero = (): Totals => ({ requests: 0, input: 0, output: 0, cached: 0 })
const add = (t: Totals, r: StrictRequest) => {
  t.requests++
  t.input += r.inputTokens
  t.output += r.outputTokens ?? 0
  t.cached += r.cachedTokens ?? 0
}

/** One session of `turns` turns over `topics` topics; then, with memory on, one dream by hand. */
const session = async (topics: number, turns: number, memoryOn: boolean) => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-bench-cost-")))
  let h: Harness | undefined
  try {
    h = await startHarness({ base, sessionDir: join(base, "sessions"), memory: memoryOf(topics), config: memoryOn ? {} : { enabled: false } })
    const dir = h.memoryDir
    let turn = 0
    h.main = () => say(ANSWER(turn))
    // Recall picks two topics a turn, different ones each time.
    h.selector = () =>
      fauxAssistantMessage(
        [fauxToolCall("select_memories", { selected_memories: picks(turn, topics).map(fileOf) })],
        { stopReason: "toolUse" }
      )
    // Extraction: every other turn reads the index, then saves one new topic and its index line, then answers (three
    // model calls); the other turns find nothing to save (one).
    const extraction = (r: any) => {
      if (turn % 2 === 1) return say("Nothing new to save.")
      if (taskTurn(r) === 0) return call("read", { path: join(dir, "MEMORY.md") })
      if (taskTurn(r) === 1) {
        const name = `release-${turn}.md`
        return calls(
          ["write", { path: join(dir, name), content: topic(`Release ${turn}`, `release rule learned at turn ${turn}`, "project", `${USER(turn, topics)}\n\n**Why:** the person asked.\n**How to apply:** in every release.`) }],
          ["edit", { path: join(dir, "MEMORY.md"), edits: [{ oldText: "- [Topic 0](topic-000.md)", newText: `- [Release ${turn}](${name}) - release rule of turn ${turn}\n- [Topic 0](topic-000.md)` }] }]
        )
      }
      return say(`Saved release-${turn}.md.`)
    }
    // Dream: reads the index and three topics, merges two into one, removes the other, rewrites the index line.
    const dream = (r: any) => {
      switch (taskTurn(r)) {
        case 0:
          return call("read", { path: join(dir, "MEMORY.md") })
        case 1:
          return calls(["read", { path: join(dir, "topic-001.md") }], ["read", { path: join(dir, "topic-002.md") }], ["read", { path: join(dir, "topic-003.md") }])
        case 2:
          return calls(
            ["write", { path: join(dir, "topic-001.md"), content: topic("Topic 1", "topics 1 and 2, merged", "project", "Merged: areas 1 and 2 share one release checklist.") }],
            ["bash", { command: `rm ${join(dir, "topic-002.md")}` }],
            ["edit", { path: join(dir, "MEMORY.md"), edits: [{ oldText: "- [Topic 2](topic-002.md) - area 2, part 2\n", newText: "" }] }]
          )
        default:
          return say("Merged topic 2 into topic 1; nothing else to consolidate.")
      }
    }
    h.background = (r) => (r.messages.some((m: any) => m.role === "user" && textOf(m).includes(DREAM_MARK)) ? dream(r) : extraction(r))
    for (turn = 0; turn < turns; turn++) {
      await h.prompt(USER(turn, topics))
      // The turn's extraction runs after the turn settles; /memory extract waits for it (and finds nothing new).
      if (memoryOn) await h.prompt("/memory extract")
    }
    if (memoryOn) await h.prompt("/memory dream")
    const byKind: Record<Kind, Totals> = { selector: zero(), main: zero(), extraction: zero(), dream: zero(), other: zero() }
    if (listRequests) {
      for (const r of h.strict!.requests) {
        const cached = r.cachedTokens ?? 0
        console.error(`${topics} topics, memory ${memoryOn ? "on" : "off"}: ${kindOf(r)} input ${r.inputTokens} cached ${cached} uncached ${r.inputTokens - cached}`)
      }
      const dumpDir = process.env["COST_DUMP"]
      if (dumpDir) h.strict!.requests.forEach((r, i) => writeFileSync(join(dumpDir, `${topics}-${memoryOn ? "on" : "off"}-${String(i).padStart(2, "0")}-${kindOf(r)}.json`), JSON.stringify(r.body, null, 1)))
    }
    for (const r of h.strict!.requests) if (r.status === 200) add(byKind[kindOf(r)], r)
    // Every scripted save landed (a refused tool call would make the figures those of a different run).
    const saved = Array.from({ length: turns }, (_, t) => t).filter((t) => t % 2 === 0 && existsSync(join(dir, `release-${t}.md`)))
    if (memoryOn && saved.length !== Math.ceil(turns / 2)) throw new Error(`only ${saved.length} of ${Math.ceil(turns / 2)} saves landed`)
    // Every scripted recall reached the main agent (a topic the selector was not shown would be dropped): said if not.
    if (memoryOn) {
      const sent = h.strict!.requests.filter((r) => r.status === 200 && kindOf(r) === "main").map((r) => JSON.stringify(r.messages)).join("\n")
      const missed = Array.from({ length: turns }, (_, t) => picks(t, topics)).flat().filter((i) => !sent.includes(`## ${join(dir, fileOf(i))}`))
      // A recall later than its wait (a loaded machine) rides with the next request; the last turn's has none.
      if (missed.length > 0) console.error(`note: at ${topics} topics, ${turns} turns, recall did not bring back topics ${[...new Set(missed)].join(", ")}`)
    }
    const refused = h.strict!.requests.filter((r) => r.status !== 200).length
    return { byKind, refused }
  } finally {
    await h?.dispose().catch(() => undefined)
    rmSync(base, { recursive: true, force: true })
  }
}

interface Row {
  topics: number
  turns: number
  part: string
  requests: number
  input: number
  output: number
  cachedShare: number
  /** Uncached input + a tenth of the cached, per turn. */
  effective: number
}

/** Uncached input + a tenth of the cached. */
const effectiveOf = (t: Totals): number => t.input - t.cached + t.cached / 10

interface TurnRow {
  topics: number
  turns: number
  on: number
  off: number
  offInput: number
}
const turnRows: Array<TurnRow> = []

const rows: Array<Row> = []
const perTurn = (t: Totals, turns: number, part: string, topics: number): Row => ({
  topics,
  turns,
  part,
  requests: t.requests / turns,
  input: t.input / turns,
  output: t.output / turns,
  cachedShare: t.input === 0 ? 0 : t.cached / t.input,
  effective: effectiveOf(t) / turns
})

for (const topics of TOPIC_COUNTS) {
  for (const turns of TURN_COUNTS) {
    const on = await session(topics, turns, true)
    const off = await session(topics, turns, false)
    if (on.refused + off.refused > 0) throw new Error(`the provider refused ${on.refused + off.refused} requests`)
    rows.push(perTurn(on.byKind.selector, turns, "recall: selector request", topics))
    // What memory adds to the main agent's own requests: the same session with memory off, subtracted.
    const main = on.byKind.main
    const bare = off.byKind.main
    rows.push({
      ...perTurn({ requests: main.requests - bare.requests, input: main.input - bare.input, output: main.output - bare.output, cached: main.cached - bare.cached }, turns, "recall: added to the main request", topics),
      cachedShare: main.input - bare.input === 0 ? 0 : (main.cached - bare.cached) / (main.input - bare.input)
    })
    rows.push(perTurn(on.byKind.extraction, turns, "extraction", topics))
    // One dream per session here; shown per run (turns = 1), since it runs at most once a day after 5 sessions.
    rows.push({ ...perTurn(on.byKind.dream, 1, "dream (per run)", topics), turns })
    rows.push(perTurn(bare, turns, "main request without memory (reference)", topics))
    // A whole turn: what the person's turn costs with memory on (its selector, main request and extraction) and off.
    turnRows.push({ topics, turns, on: (effectiveOf(on.byKind.selector) + effectiveOf(main) + effectiveOf(on.byKind.extraction)) / turns, off: effectiveOf(bare) / turns, offInput: bare.input / turns })
  }
}

if (json) {
  console.log(JSON.stringify({ rows, turns: turnRows }, null, 2))
} else {
  const n = (x: number, digits = 0) => x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
  console.log(`memory cost per turn, strict fake provider, Node ${process.version}`)
  console.log("| topics | turns | part | requests | input tokens | output tokens | cached share of input | effective input |")
  console.log("|---:|---:|---|---:|---:|---:|---:|---:|")
  for (const r of rows) {
    console.log(`| ${r.topics} | ${r.turns} | ${r.part} | ${n(r.requests, 2)} | ${n(r.input)} | ${n(r.output)} | ${n(100 * r.cachedShare)} % | ${n(r.effective)} |`)
  }
  console.log("\nA whole turn, effective input (uncached + a tenth of cached): memory on (selector, main request, extraction) against memory off")
  console.log("| topics | turns | memory on | memory off | on / off | on / off's whole input |")
  console.log("|---:|---:|---:|---:|---:|---:|")
  for (const t of turnRows) {
    console.log(`| ${t.topics} | ${t.turns} | ${n(t.on)} | ${n(t.off)} | ${n(t.on / t.off, 1)}x | ${n(t.on / t.offInput, 1)}x |`)
  }
}
