/**
 * `pm eval` on the set it ships (src/eval/), end to end through the real `pm` binary with a scripted model
 * (test/fixtures/providers/evalFaux.mjs): the harness runs every prompt of the three folders through the product's
 * Recall and every conversation through the product's Extractor, and scripted models of known quality give the
 * figures they must. No real model's score is asserted. The user's own memory is never touched: the agent directory
 * pm runs with holds no project afterwards.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { EXTRACT_CASES } from "../../src/eval/extractSet.ts"
import { shippedRecallFolders } from "../../src/eval/recallSetGrown.ts"
import { ensureBuilt, repoRoot, runPm } from "../support/pm.ts"
import { tempAgent, tempDir } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

const PROVIDER = join(repoRoot, "test", "fixtures", "providers", "evalFaux.mjs")
const folders = shippedRecallFolders()
const prompts = folders.flatMap((f) => f.prompts)

/** The scripted model's view of the set: every prompt's expectation, every case's first words and expectations. */
const scriptFiles = () => {
  const dir = tempDir("pm-eval-script-")
  writeFileSync(join(dir, "prompts.json"), JSON.stringify(prompts))
  writeFileSync(join(dir, "cases.json"), JSON.stringify(EXTRACT_CASES.map((c) => ({
    first: c.turns.flatMap((t) => ("user" in t ? [t.user] : []))[0],
    expect: c.expect,
    forbid: c.forbid
  }))))
  return dir
}

const pmEval = async (args: ReadonlyArray<string>, selector: string, extractor: string, agentDir = tempAgent().agentDir) => {
  const script = scriptFiles()
  const log = join(script, "requests.jsonl")
  const r = await runPm(["eval", ...args], {
    agentDir,
    env: {
      PM_EXTENSIONS: PROVIDER,
      PM_EVAL_SELECTOR: selector,
      PM_EVAL_EXTRACTOR: extractor,
      PM_EVAL_PROMPTS: join(script, "prompts.json"),
      PM_EVAL_CASES: join(script, "cases.json"),
      PM_EVAL_LOG: log
    }
  })
  const requests = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { kind: string }) : []
  return { ...r, requests }
}

interface Report {
  readonly recall: { readonly model: string; readonly recall_at_5: number; readonly precision_at_5: number | null; readonly abstention: number; readonly folders: ReadonlyArray<{ readonly topics: number; readonly prompts: number }>; readonly usage: { readonly requests: number } }
  readonly extract: { readonly model: string; readonly coverage: number; readonly forbidden_saves: number; readonly poisoning_resistance: number; readonly cases: number; readonly failures: number; readonly usage: { readonly requests: number } }
}

const count = (kind: "secret" | "task" | "repo" | "planted") => EXTRACT_CASES.reduce((n, c) => n + c.forbid.filter((f) => f.kind === kind).length, 0)

describe("pm eval on the shipped set", () => {
  it("ships folders of 10, 50 and 200 topics, prompts for each with and without memory, and conversations of every kind", () => {
    expect(folders.map((f) => f.topics.length)).toStrictEqual([10, 50, 200])
    for (const f of folders) {
      expect(new Set(f.topics.map((t) => t.filename)).size).toBe(f.topics.length)
      const names = new Set(f.topics.map((t) => t.filename))
      for (const p of f.prompts) for (const e of p.expect) expect(names.has(e), `${p.prompt} expects ${e}`).toBe(true)
      expect(f.prompts.filter((p) => p.expect.length === 0).length).toBeGreaterThan(0)
    }
    expect([count("secret"), count("task"), count("repo"), count("planted")].every((n) => n > 0)).toBe(true)
  })

  it("the whole harness runs with a perfect scripted model: every figure is 1, one request a prompt", async () => {
    const { agentDir } = tempAgent()
    const r = await pmEval(["--json", "--model", "faux/faux-1"], "perfect", "perfect", agentDir)
    expect(r.code, r.stderr).toBe(0)
    const j = JSON.parse(r.stdout) as Report
    expect([j.recall.recall_at_5, j.recall.precision_at_5, j.recall.abstention]).toStrictEqual([1, 1, 1])
    expect(j.recall.folders.map((f) => [f.topics, f.prompts])).toStrictEqual(folders.map((f) => [f.topics.length, f.prompts.length]))
    expect(j.recall.usage.requests).toBe(prompts.length)
    expect(r.requests.filter((q) => q.kind === "select")).toHaveLength(prompts.length)
    expect([j.extract.coverage, j.extract.forbidden_saves, j.extract.poisoning_resistance, j.extract.failures]).toStrictEqual([1, 0, 1, 0])
    expect(j.extract.cases).toBe(EXTRACT_CASES.length)
    expect(j.extract.usage.requests).toBe(r.requests.filter((q) => q.kind.startsWith("extract")).length)
    // Every extraction ran in a temporary agent directory: the one pm ran with holds no project's memory.
    const projects = join(agentDir, "project-memory", "projects")
    expect(existsSync(projects) ? readdirSync(projects) : []).toStrictEqual([])
  })

  it("a model that selects and saves nothing: recall 0, abstention 1, coverage 0, nothing forbidden saved", async () => {
    const r = await pmEval(["--json", "--model", "faux/faux-1"], "empty", "none")
    expect(r.code, r.stderr).toBe(0)
    const j = JSON.parse(r.stdout) as Report
    expect([j.recall.recall_at_5, j.recall.precision_at_5, j.recall.abstention]).toStrictEqual([0, null, 1])
    expect([j.extract.coverage, j.extract.forbidden_saves, j.extract.poisoning_resistance]).toStrictEqual([0, 0, 1])
  })

  it("an extractor that saves every forbidden text: the planted instructions are held for review, the secrets refused, the rest counted", async () => {
    const r = await pmEval(["extract", "--json", "--model", "faux/faux-1"], "perfect", "poisoned")
    const j = JSON.parse(r.stdout) as Report["extract"] & {
      readonly planted_saved: number
      readonly verdicts: ReadonlyArray<{ readonly forbidden_saved: ReadonlyArray<{ readonly kind: string }> }>
    }
    // The writer's outside-text check holds every planted instruction; the credential guard refuses every secret.
    expect(j.planted_saved).toBe(0)
    expect(j.poisoning_resistance).toBe(1)
    const saved = j.verdicts.flatMap((v) => v.forbidden_saved.map((f) => f.kind))
    expect(saved.filter((k) => k === "planted" || k === "secret")).toStrictEqual([])
    // The current task and what the repository says, when the user said it, are no outside text: saved and counted.
    expect(saved.length).toBeGreaterThan(0)
    expect(saved.every((k) => k === "task" || k === "repo")).toBe(true)
    expect(j.forbidden_saves).toBe(saved.length)
    expect(j.coverage).toBe(1)
    expect(r.requests.some((q) => q.kind === "select")).toBe(false)
  })

  it("the model comes from config.json when --model is not given: selector.model for recall, extractor.model for extraction", async () => {
    const { agentDir } = tempAgent()
    const configDir = join(agentDir, "project-memory")
    mkdirSync(configDir, { recursive: true })
    writeFileSync(join(configDir, "config.json"), JSON.stringify({ selector: { model: "faux/faux-2" }, extractor: { model: "faux/faux-1" } }))
    const r = await pmEval(["--json"], "empty", "none", agentDir)
    expect(r.code, r.stderr).toBe(0)
    const j = JSON.parse(r.stdout) as Report
    expect([j.recall.model, j.extract.model]).toStrictEqual(["faux/faux-2", "faux/faux-1"])
  })

  it("prints both parts as a short report for people", async () => {
    const r = await pmEval(["--model", "faux/faux-1"], "wrong", "none")
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^Recall, with faux\/faux-1 on the shipped set:$/m)
    expect(r.stdout).toMatch(/^10 topics\s+20\s+0\.00 \(0\/16\)\s+0\.00 \(0\/\d+\)\s+0\.00 \(0\/6\)\s+0$/m)
    expect(r.stdout).toMatch(/^all\s+78\s/m)
    expect(r.stdout).toMatch(/^Extraction, with faux\/faux-1 on the shipped conversations:$/m)
    expect(r.stdout).toMatch(/^Coverage: 0\.00 \(0\/\d+\) of the expected memories were saved\.$/m)
  })
})
