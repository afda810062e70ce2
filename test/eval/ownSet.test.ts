/**
 * `pm eval recall --set DIR` end to end: the real `pm` binary, the product's own Recall and Selector, and a scripted
 * selector of known quality (test/fixtures/providers/evalFaux.mjs, loaded through PM_EXTENSIONS) over a set of four
 * topics: a perfect, an empty, a wrong and a mixed selector give exactly the figures they must. Bad set input is a
 * one-line error naming the file and the line, before any model is asked.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, repoRoot, runPm } from "../support/pm.ts"
import { tempAgent, tempDir, topicText, writeFileAt } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

const PROVIDER = join(repoRoot, "test", "fixtures", "providers", "evalFaux.mjs")
const PROMPTS = [
  { prompt: "how do we cut a release", expect: ["release.md"] },
  { prompt: "set up the test database and write the commit", expect: ["test-db.md", "commits.md"] },
  { prompt: "what is two plus two", expect: [] },
  { prompt: "translate hello into French", expect: [] }
]

const makeSet = (prompts: string = PROMPTS.map((p) => JSON.stringify(p)).join("\n")) => {
  const dir = tempDir("pm-eval-set-")
  const topic = (name: string, description: string) => topicText({ name, description, type: "project", body: description })
  writeFileAt(join(dir, "memory", "release.md"), topic("Release", "Tag from main on Tuesdays"))
  writeFileAt(join(dir, "memory", "test-db.md"), topic("Test database", "Postgres on port 5433"))
  writeFileAt(join(dir, "memory", "commits.md"), topic("Commits", "Conventional commit subjects"))
  writeFileAt(join(dir, "memory", "style.md"), topic("Style", "Two-space indent"))
  writeFileSync(join(dir, "prompts.jsonl"), `${prompts}\n`)
  writeFileSync(join(dir, "expect.json"), JSON.stringify(PROMPTS))
  return dir
}

const evalRecall = async (dir: string, selector: string, extra: Record<string, string> = {}, args: ReadonlyArray<string> = ["--json", "--model", "faux/faux-1"]) => {
  const { agentDir } = tempAgent()
  const log = join(tempDir("pm-eval-log-"), "requests.jsonl")
  const r = await runPm(["eval", "recall", "--set", dir, ...args], {
    agentDir,
    env: { PM_EXTENSIONS: PROVIDER, PM_EVAL_SELECTOR: selector, PM_EVAL_PROMPTS: join(dir, "expect.json"), PM_EVAL_LOG: log, ...extra }
  })
  const requests = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((l) => l !== "").length : 0
  return { ...r, requests }
}

const figures = (stdout: string) => {
  const j = JSON.parse(stdout) as { recall_at_5: number | null; precision_at_5: number | null; abstention: number | null; usage: { requests: number } }
  return { recall_at_5: j.recall_at_5, precision_at_5: j.precision_at_5, abstention: j.abstention, requests: j.usage.requests }
}

describe("pm eval recall --set DIR", () => {
  it("a perfect selector scores 1, 1 and 1, one request a prompt", async () => {
    const r = await evalRecall(makeSet(), "perfect")
    expect(r.code, r.stderr).toBe(0)
    expect(figures(r.stdout)).toStrictEqual({ recall_at_5: 1, precision_at_5: 1, abstention: 1, requests: 4 })
    expect(r.requests).toBe(4)
  })

  it("an empty selector scores recall 0, no precision and abstention 1", async () => {
    const r = await evalRecall(makeSet(), "empty")
    expect(r.code, r.stderr).toBe(0)
    expect(figures(r.stdout)).toStrictEqual({ recall_at_5: 0, precision_at_5: null, abstention: 1, requests: 4 })
  })

  it("a wrong selector scores 0, 0 and 0", async () => {
    const r = await evalRecall(makeSet(), "wrong")
    expect(r.code, r.stderr).toBe(0)
    expect(figures(r.stdout)).toStrictEqual({ recall_at_5: 0, precision_at_5: 0, abstention: 0, requests: 4 })
  })

  it("a mixed selector scores what the rule counts: hits over expected, hits over returned, empty no-memory prompts", async () => {
    const dir = makeSet()
    const answers = join(dir, "answers.json")
    writeFileSync(answers, JSON.stringify({
      "how do we cut a release": ["release.md", "style.md"],
      "set up the test database and write the commit": ["test-db.md"],
      "what is two plus two": ["style.md"],
      "translate hello into French": []
    }))
    const r = await evalRecall(dir, "answers", { PM_EVAL_ANSWERS: answers })
    expect(r.code, r.stderr).toBe(0)
    expect(figures(r.stdout)).toStrictEqual({ recall_at_5: 2 / 3, precision_at_5: 2 / 4, abstention: 1 / 2, requests: 4 })
    const folder = (JSON.parse(r.stdout) as { folders: ReadonlyArray<{ results: ReadonlyArray<{ prompt: string; selected: ReadonlyArray<string> }> }> }).folders[0]!
    expect(folder.results.map((x) => x.selected)).toStrictEqual([["release.md", "style.md"], ["test-db.md"], ["style.md"], []])
  })

  it("prints a short table for people", async () => {
    const r = await evalRecall(makeSet(), "perfect", {}, ["--model", "faux/faux-1"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/folder\s+prompts\s+recall@5\s+precision@5\s+abstention\s+failed/)
    expect(r.stdout).toMatch(/pm-eval-set-\S+\s+4\s+1\.00 \(3\/3\)\s+1\.00 \(3\/3\)\s+1\.00 \(2\/2\)\s+0/)
    expect(r.stdout).toMatch(/^4 requests, \d+ input and \d+ output tokens.*; cost not known/m)
  })

  it("a selection that fails is counted as nothing selected, with exit 1", async () => {
    // The fake provider throws for a prompt it has no expectation for.
    const dir = makeSet()
    writeFileSync(join(dir, "expect.json"), JSON.stringify(PROMPTS.slice(1)))
    const r = await evalRecall(dir, "perfect")
    expect(r.code).toBe(1)
    const j = JSON.parse(r.stdout) as { failures: number; recall_at_5: number }
    expect(j.failures).toBe(1)
    expect(j.recall_at_5).toBe(2 / 3)
  })

  it("bad set input is a one-line error naming the file and the line, and no model is asked", async () => {
    const bad = makeSet(`${JSON.stringify(PROMPTS[0])}\n{"prompt": "no expect here"}`)
    const r = await evalRecall(bad, "perfect")
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe(`pm: ${join(bad, "prompts.jsonl")} line 2: "expect" must be a list of file names ([] when no memory should come back)\n`)
    expect(r.requests).toBe(0)

    const unknown = makeSet(JSON.stringify({ prompt: "a b", expect: ["gone.md"] }))
    const u = await evalRecall(unknown, "perfect")
    expect(u.code).toBe(2)
    expect(u.stderr).toBe(`pm: ${join(unknown, "prompts.jsonl")} line 1: expects gone.md, which is not a topic of the memory folder\n`)

    const empty = tempDir("pm-eval-set-")
    const m = await evalRecall(empty, "perfect")
    expect(m.code).toBe(2)
    expect(m.stderr).toMatch(/^pm: .*prompts\.jsonl: cannot be read \(ENOENT\)\n$/)
  })

  it("an unknown model is a one-line error with exit 2", async () => {
    const r = await evalRecall(makeSet(), "perfect", {}, ["--json", "--model", "faux/nope"])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe("pm: model faux/nope is not known to Pi (check models.json and the provider's login)\n")
  })
})
