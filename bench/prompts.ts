/**
 * Prompt sizes: what each memory prompt adds to a request, in characters and estimated tokens.
 *   node bench/prompts.ts
 * - main rules: ride on every request of the main agent (plus the index, not counted here);
 * - selector system prompt: every recall call (its catalog not counted);
 * - extractor: rendered with 20 topics when its module exists (else its fixture template, when that exists);
 * - the background tools section every background task receives, when its module exists;
 * - dream: the task text with no topics, and with a full catalog of 200 topics (120-character descriptions).
 * Two token estimates, since no tokenizer ships with the project: characters / 4, and word pieces (each run of
 * letters counts one token per started 6 letters, each group of up to 3 digits one, each other visible character
 * one), which follows English BPE vocabularies more closely on prose with Markdown and paths. Both are estimates.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { catalogOf, type CatalogTopic } from "../src/memory/catalog.ts"
import { SCAN_MAX_TOPICS } from "../src/limits.ts"
import { dreamTaskPrompt } from "../src/background/prompts/dream.ts"
import { memoryRulesPrompt } from "../src/session/memoryRules.ts"
import { SELECTOR_SYSTEM_PROMPT } from "../src/recall/selectorPrompt.ts"

const ROOT = join(fileURLToPath(import.meta.url), "..", "..")
const MEMORY_DIR = "/home/user/.pi/agent/project-memory/-home-user-src-project/memory"
const SESSION_DIR = "/home/user/.pi/agent/sessions/--home-user-src-project--"
const SESSION_IDS = Array.from({ length: 5 }, (_, i) => `0b5e3f9a-1c2d-4e5f-8a9b-0c1d2e3f4a5${i}`)
const TODAY = "Thursday 2026-12-03"

const pieces = (text: string): number => {
  let n = 0
  for (const m of text.matchAll(/[\p{L}]+|\d+|[^\s\p{L}\d]/gu)) {
    const s = m[0]
    n += /^\p{L}/u.test(s) ? Math.ceil(s.length / 6) : /^\d/.test(s) ? Math.ceil(s.length / 3) : 1
  }
  return n
}

const topics = (count: number): ReadonlyArray<CatalogTopic> =>
  Array.from({ length: count }, (_, i) => ({
    filename: `topic-number-${i}.md`,
    type: (["user", "feedback", "project", "reference"] as const)[i % 4],
    description: `A one-line description of memory ${i}, specific enough for the selector to decide whether it bears on a request.`.slice(0, 120),
    mtimeMs: Date.UTC(2026, 0, 1) + i * 60_000
  }))

const rows: Array<readonly [string, string]> = [
  ["main rules (every request)", memoryRulesPrompt(MEMORY_DIR)],
  ["selector system prompt", SELECTOR_SYSTEM_PROMPT],
  ["dream task, no topics, 5 sessions", dreamTaskPrompt({ memoryDir: MEMORY_DIR, today: TODAY, sessionDir: SESSION_DIR, sessionIds: SESSION_IDS, catalog: [] })],
  [
    `dream task, ${SCAN_MAX_TOPICS} topics, 5 sessions`,
    dreamTaskPrompt({ memoryDir: MEMORY_DIR, today: TODAY, sessionDir: SESSION_DIR, sessionIds: SESSION_IDS, catalog: topics(SCAN_MAX_TOPICS) })
  ]
]
/**
 * The extractor prompt and the shared background tools section live in modules written alongside this one; they are
 * loaded by a computed path so that this bench builds and runs with or without them.
 */
const optional = async (path: string): Promise<Record<string, unknown> | undefined> => {
  const file = join(ROOT, path)
  return existsSync(file) ? (await import(file)) as Record<string, unknown> : undefined
}
const extractor = await optional("src/background/prompts/extractor.ts")
const tools = await optional("src/background/prompts/backgroundTools.ts")
const extractorFixture = join(ROOT, "test", "fixtures", "prompts", "extractor.txt")
if (typeof extractor?.["extractorTaskPrompt"] === "function") {
  const render = extractor["extractorTaskPrompt"] as (input: unknown) => string
  try {
    rows.splice(2, 0, ["extractor task, 20 topics, 12 messages", render({ memoryDir: MEMORY_DIR, today: TODAY, recentMessages: 12, catalog: catalogOf(topics(20)) })])
  } catch (e) {
    console.log(`extractor: could not render with the assumed input (${String(e)})`)
  }
} else if (existsSync(extractorFixture)) rows.splice(2, 0, ["extractor task (fixture template)", readFileSync(extractorFixture, "utf8")])
else console.log("extractor: no prompt yet (src/background/prompts/extractor.ts), not measured")
if (typeof tools?.["backgroundToolsSection"] === "function") {
  const render = tools["backgroundToolsSection"] as (cwd: string, offered: ReadonlyArray<string>) => string
  const all = (tools["SECTION_TOOL_ORDER"] as ReadonlyArray<string> | undefined) ?? []
  rows.push(["background tools section (each task)", render("/home/user/src/project", all)])
}

const pad = (s: string | number, n: number) => String(s).padStart(n)
console.log(`${"prompt".padEnd(40)}${pad("chars", 8)}${pad("chars/4", 9)}${pad("pieces", 8)}`)
for (const [name, text] of rows) {
  console.log(`${name.padEnd(40)}${pad(text.length, 8)}${pad(Math.ceil(text.length / 4), 9)}${pad(pieces(text), 8)}`)
}
