/**
 * The detector is linear in its input, checked without a clock: the scan counts the characters its rules, its
 * trigger pass and its views read (`scanWork`, src/safety/secrets/scan.ts), and that count per character of input
 * must not grow with the input, on the texts the detector meets and on shapes built against it (one long line of
 * base64-ish characters, near-matches of a token prefix, look-alike letters on a line without breaks, cut tokens,
 * percent escapes). Each shape also keeps its findings: what is planted in it is found, once per place.
 */
import { describe, expect, it } from "vitest"
import { detectSecrets } from "../../src/safety/secrets.ts"
import { RULES, scanWork } from "../../src/safety/secrets/scan.ts"
import { generatedClean, generatedCredentials } from "./generatedCorpus.ts"

const KiB = 1024
const fill = (unit: string, bytes: number): string => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes)
const repeatTo = (parts: ReadonlyArray<string>, bytes: number): string => fill(parts.join("\n\n"), bytes)

/** Characters read per character of `text` by one detection. */
const workPerCharacter = (text: string): number => {
  const before = scanWork.characters
  detectSecrets(text)
  return (scanWork.characters - before) / text.length
}

const clean = generatedClean().map((c) => c.text)
const credentials = generatedCredentials().map((c) => c.text)
const token = "ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz"

const SHAPES: ReadonlyArray<readonly [string, (bytes: number) => string]> = [
  ["clean notes", (bytes) => repeatTo(clean, bytes)],
  ["the corpus with its credentials", (bytes) => repeatTo([...credentials, ...clean], bytes)],
  ["one line of base64-ish characters", (bytes) => fill("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0123456789+/", bytes)],
  ["near-matches of a token prefix", (bytes) => fill(`ghp_${"a".repeat(35)} `, bytes)],
  ["look-alike letters on a line without breaks", (bytes) => fill("abc\u0430def ", bytes)],
  ["zero-width characters", (bytes) => fill("\u200b", bytes)],
  ["tokens cut at every line", (bytes) => fill("Ab12cd34\n", bytes)],
  ["percent escapes", (bytes) => fill("%41", bytes)],
  ["secret-named settings", (bytes) => fill("password: hunter2 ", bytes)]
]

describe("the detector's work grows as its input does", () => {
  for (const [name, make] of SHAPES) {
    it(`${name}: the same work per character at 64 and 256 KiB`, () => {
      const small = workPerCharacter(make(64 * KiB))
      const large = workPerCharacter(make(256 * KiB))
      // Four times the text (past the corpus unit, so as many rules run) may cost four times the work, and a little more where a window meets the end.
      expect(large, name).toBeLessThanOrEqual(small * 1.1 + 1)
      // Every rule once over the text and over each of its views and decoded runs: the most a character can cost.
      expect(large, name).toBeLessThanOrEqual(RULES.length * 6)
    })
  }

  it("finds a token planted in each shape, once per place, wherever it sits", () => {
    for (const [name, make] of SHAPES.slice(2)) {
      const filler = make(64 * KiB)
      const parts = [`${token}\n`, filler, `\n${token} `, filler, `\n${token}`]
      const text = parts.join("")
      const lineOf = (at: number): number => text.slice(0, at).split("\n").length
      const planted = [0, parts[0]!.length + filler.length + 1, text.length - token.length]
      const found = detectSecrets(text).filter((f) => f.kind === "github-token")
      expect(found.map((f) => [f.line, f.column]), name).toEqual(planted.map((at) => [lineOf(at), at - text.lastIndexOf("\n", at - 1)]))
    }
  })
})
