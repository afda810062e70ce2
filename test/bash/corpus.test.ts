/**
 * The corpus (test/fixtures/bash-corpus.jsonl) through the real parser: every command with its expected verdict,
 * and for deletes the exact targets and force flag.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { BashGuard } from "../../layers/safety/BashGuard.ts"
import { CWD, loadCorpus, MEMORY_DIR } from "./corpus.ts"

const corpus = loadCorpus()

describe("bash corpus", () => {
  it("holds at least 300 distinct commands of every verdict", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(300)
    expect(new Set(corpus.map((r) => r.command)).size).toBe(corpus.length)
    for (const v of ["read-only", "delete", "rejected"]) expect(corpus.some((r) => r.verdict === v)).toBe(true)
  })
})

layer(BashGuard.layer)("bash corpus through tree-sitter", (it) => {
  corpus.forEach((row, i) => {
    const name = `${i + 1}: ${JSON.stringify(row.command).slice(0, 90)} -> ${row.verdict}`
    it.effect(name, () =>
      Effect.gen(function* () {
        const guard = yield* BashGuard
        const v = yield* guard.classify(row.command, { memoryDir: MEMORY_DIR, cwd: CWD })
        const detail = v.verdict === "rejected" ? v.reason : JSON.stringify(v)
        expect(v.verdict, detail).toBe(row.verdict)
        if (v.verdict === "delete") {
          expect(v.targets).toEqual(row.targets)
          expect(v.force).toBe(row.force ?? false)
        }
        if (v.verdict === "rejected") {
          // A reason a model can act on: non-empty, one message, and naming what it refers to.
          expect(v.reason.length).toBeGreaterThan(10)
          if (row.reasonIncludes !== undefined) expect(v.reason).toContain(row.reasonIncludes)
        }
      })
    )
  })
})
