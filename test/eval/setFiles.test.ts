/** A set's prompts.jsonl (src/eval/setFiles.ts): what it accepts, and every refusal naming the file and the line. */
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { parsePrompts, unknownExpectation } from "../../src/eval/setFiles.ts"

const problem = (text: string): string => {
  const r = parsePrompts(text, "set/prompts.jsonl")
  if (Either.isRight(r)) throw new Error("accepted")
  return r.left.message
}

describe("prompts.jsonl", () => {
  it("reads one case a line, blank lines skipped", () => {
    const r = parsePrompts('{"prompt":"how do we release","expect":["release.md"]}\n\n{"prompt":"hi there","expect":[]}\n', "p")
    expect(r).toStrictEqual(Either.right([{ prompt: "how do we release", expect: ["release.md"] }, { prompt: "hi there", expect: [] }]))
  })

  it("refuses what is not a case, naming the file and the line", () => {
    expect(problem('{"prompt":"a b","expect":[]}\n{"prompt": "x y", "expect": [}')).toMatch(/^set\/prompts\.jsonl line 2: not a JSON object \(/)
    expect(problem('["a"]')).toBe("set/prompts.jsonl line 1: not a JSON object")
    expect(problem('\n{"prompt":"a b","expected":[]}')).toBe('set/prompts.jsonl line 2: unknown key "expected" (a line holds "prompt" and "expect")')
    expect(problem('{"prompt":"","expect":[]}')).toBe('set/prompts.jsonl line 1: "prompt" must be a non-empty string')
    expect(problem('{"prompt":"a b"}')).toBe('set/prompts.jsonl line 1: "expect" must be a list of file names ([] when no memory should come back)')
    expect(problem('{"prompt":"a b","expect":[3]}')).toBe('set/prompts.jsonl line 1: "expect" must hold file names only')
    expect(problem('{"prompt":"a b","expect":["a.md","a.md"]}')).toBe('set/prompts.jsonl line 1: "expect" names a file twice')
    expect(problem("\n\n")).toBe("set/prompts.jsonl: holds no prompt")
  })

  it("names the line of an expected file that is not a topic", () => {
    const text = '{"prompt":"a b","expect":["a.md"]}\n\n{"prompt":"c d","expect":["gone.md"]}'
    expect(unknownExpectation(text, "p.jsonl", new Set(["a.md"]))?.message).toBe("p.jsonl line 3: expects gone.md, which is not a topic of the memory folder")
    expect(unknownExpectation(text, "p.jsonl", new Set(["a.md", "gone.md"]))).toBeUndefined()
  })
})
