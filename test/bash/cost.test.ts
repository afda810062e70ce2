/**
 * Class 6: cost. The guard's own passes are linear (checked by counting the work, not by timing it), and a parse
 * that does not finish within its CPU budget is cancelled and the command rejected, so no input up to the 1 MiB limit
 * can block the caller for long. Timings are in bench/bashguard.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Language, Parser } from "web-tree-sitter"
import { GRAMMAR_WASM, locateWasm, RUNTIME_WASM } from "../../layers/safety/bashWasm.ts"
import { makeClassifier } from "../../layers/safety/BashParser.ts"
import { MAX_COMMAND_LENGTH } from "../../src/safety/bash/syntax.ts"
import { prescan } from "../../src/safety/bash/prescan.ts"
import { braceExpansion, type Piece } from "../../src/safety/bash/words.ts"

const CTX = { memoryDir: "/m/memory", cwd: "/m" }

describe("linear passes", () => {
  it("the brace scan visits each character once, also for a word of nothing but unmatched braces (once quadratic)", () => {
    for (const n of [1_000, 10_000, 300_000]) {
      for (const text of ["{".repeat(n), "{a".repeat(n / 2), `${"{".repeat(n / 2)}${"}".repeat(n / 2)}`]) {
        const steps = { count: 0 }
        braceExpansion([{ text, quoted: false }], steps)
        expect(steps.count).toBe(text.length)
      }
    }
  })

  it("the brace scan still finds brace expansion where the quadratic one did", () => {
    const w = (...ps: ReadonlyArray<readonly [string, boolean]>): ReadonlyArray<Piece> => ps.map(([text, quoted]) => ({ text, quoted }))
    expect(braceExpansion(w(["{a,b}", false]))).toBe(true)
    expect(braceExpansion(w(["x{1..3}", false]))).toBe(true)
    expect(braceExpansion(w(["{a{b,c}", false]))).toBe(true)
    expect(braceExpansion(w(["{", false], [",", true], ["}", false]))).toBe(true)
    expect(braceExpansion(w(["{", true], ["a,b}", false]))).toBe(false)
    expect(braceExpansion(w(["{a,{b}", false]))).toBe(false)
    expect(braceExpansion(w(["{a}", false]))).toBe(false)
    expect(braceExpansion(w(["{{{{{{", false]))).toBe(false)
  })

  it("the raw pre-scan visits each character once at the 1 MiB limit", () => {
    const steps = { count: 0 }
    expect(prescan(`echo ${"{a".repeat((MAX_COMMAND_LENGTH - 5) / 2)}`, steps)).toBeUndefined()
    expect(steps.count).toBe(MAX_COMMAND_LENGTH - 1)
  })
})

describe("parse budget", () => {
  it("a parse that overruns its CPU budget is cancelled and the command rejected; with the normal budget small commands are untouched", async () => {
    await Parser.init({ locateFile: () => locateWasm(RUNTIME_WASM)! })
    const language = await Language.load(locateWasm(GRAMMAR_WASM)!)
    const parser = new Parser()
    parser.setLanguage(language)
    try {
      const starved = makeClassifier(parser, { budgetMs: 0 })
      const big = `ls${" | cat".repeat(40_000)}`
      const v = starved.classifySync(big, CTX)
      expect(v.verdict).toBe("rejected")
      if (v.verdict === "rejected") expect(v.reason).toContain("too large or too complex")
      // The budget has no lower size limit: 16,376 characters of `| cat` (under the 16 KB where it used to start; a
      // parse of it costs about 0.8 s of CPU time) are cancelled too, and so is every shape of any size that reaches
      // tree-sitter's progress check; the parser recovers for the next command.
      for (const small of [`ls${" | cat".repeat(2729)}`, `ls${" && ls".repeat(2000)}`, `echo ${"[[ ".repeat(3000)}`]) {
        const w = starved.classifySync(small, CTX)
        expect(w.verdict, small.slice(0, 20)).toBe("rejected")
        if (w.verdict === "rejected") expect(w.reason).toContain("too large or too complex")
      }
      // A command that parses before the first progress check never reads the clock and is decided normally.
      expect(starved.classifySync("ls | cat", CTX)).toEqual({ verdict: "read-only" })
      const normal = makeClassifier(parser)
      expect(normal.classifySync(`ls${" | cat".repeat(20)}`, CTX)).toEqual({ verdict: "read-only" })
    } finally {
      parser.delete()
    }
  })
})
