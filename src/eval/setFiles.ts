/**
 * Reading an evaluation set's `prompts.jsonl`: one JSON object a line, `{"prompt": "...", "expect": ["file.md", ...]}`
 * (`expect` empty when no memory should come back); blank lines are skipped. Every problem is an EvalSetError naming
 * the file and the line, and the first one stops the read. Pure: text in, cases or the error out.
 */
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import type { RecallCase } from "./scores.ts"

export class EvalSetError extends Data.TaggedError("EvalSetError")<{
  readonly file: string
  /** 1-based; 0 when the problem is the file as a whole. */
  readonly line: number
  readonly problem: string
}> {
  override get message(): string {
    return this.line === 0 ? `${this.file}: ${this.problem}` : `${this.file} line ${this.line}: ${this.problem}`
  }
}

const KEYS = new Set(["prompt", "expect"])

/** The cases of a prompts file, or the first problem in it. */
export const parsePrompts = (text: string, file: string): Either.Either<ReadonlyArray<RecallCase>, EvalSetError> => {
  const cases: Array<RecallCase> = []
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim()
    if (raw === "") continue
    const bad = (problem: string) => Either.left(new EvalSetError({ file, line: i + 1, problem }))
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch (e) {
      return bad(`not a JSON object (${(e as Error).message})`)
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) return bad("not a JSON object")
    const extra = Object.keys(value).filter((k) => !KEYS.has(k))
    if (extra.length > 0) return bad(`unknown key ${extra.map((k) => `"${k}"`).join(", ")} (a line holds "prompt" and "expect")`)
    const { prompt, expect } = value as { prompt?: unknown; expect?: unknown }
    if (typeof prompt !== "string" || prompt.trim() === "") return bad(`"prompt" must be a non-empty string`)
    if (!Array.isArray(expect)) return bad(`"expect" must be a list of file names ([] when no memory should come back)`)
    if (!expect.every((e): e is string => typeof e === "string" && e.trim() !== "")) return bad(`"expect" must hold file names only`)
    if (new Set(expect).size !== expect.length) return bad(`"expect" names a file twice`)
    cases.push({ prompt, expect })
  }
  if (cases.length === 0) return Either.left(new EvalSetError({ file, line: 0, problem: "holds no prompt" }))
  return Either.right(cases)
}

/** The first expected file that is not among the folder's topics, as an error naming its line. */
export const unknownExpectation = (
  text: string,
  file: string,
  topics: ReadonlySet<string>
): EvalSetError | undefined => {
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim()
    if (raw === "") continue
    const expect = (JSON.parse(raw) as { expect: ReadonlyArray<string> }).expect
    const missing = expect.find((e) => !topics.has(e))
    if (missing !== undefined) return new EvalSetError({ file, line: i + 1, problem: `expects ${missing}, which is not a topic of the memory folder` })
  }
  return undefined
}
