/**
 * The detector's cost per KiB as the text grows (1 KiB to 1 MiB), beside one pass of a single regex over the same
 * text, in alternating order round after round. Prints the table; used by bench/secrets.ts, and runs alone too:
 *   node bench/secretsScale.ts [rounds]
 * A flat "ms per KiB" column is the claim the issue asks for (linear, at most 1 ms per KiB at every size); the ratio
 * to the regex pass is the part that does not depend on how loaded the machine is.
 */
import { fileURLToPath } from "node:url"
import { detectSecrets } from "../src/safety/secrets.ts"
import { median } from "./_support.ts"

export const SIZES_KIB: ReadonlyArray<number> = [1, 4, 16, 64, 256, 1024]

/** The baseline: one scan for long alphanumeric runs, the least a pattern-based detector must do. */
const RUN = /[A-Za-z0-9]{20,}/g
const oneRegexPass = (text: string): number => {
  RUN.lastIndex = 0
  let n = 0
  while (RUN.exec(text) !== null) n++
  return n
}

const timed = (f: () => unknown): number => {
  const t = performance.now()
  f()
  return performance.now() - t
}

/** Rounds per size: enough for a stable median at 1 KiB, a few at 1 MiB. */
const roundsFor = (kib: number, scale: number): number => Math.max(5, Math.round((scale * 64) / Math.sqrt(kib)))

export const linearityTable = (inputs: ReadonlyArray<readonly [string, (bytes: number) => string]>, scale = 1): void => {
  const head = `${"input".padEnd(26)} ${"KiB".padStart(5)} ${"detect".padStart(10)} ${"ms/KiB".padStart(8)} ${"regex".padStart(9)} ${"median of ratios".padStart(17)} ${"ratio of medians".padStart(17)} ${"rounds".padStart(6)}`
  console.log(head)
  for (const [name, make] of inputs) {
    for (const kib of SIZES_KIB) {
      const text = make(kib * 1024)
      detectSecrets(text)
      oneRegexPass(text)
      const rounds = roundsFor(kib, scale)
      const a: Array<number> = []
      const b: Array<number> = []
      const ratios: Array<number> = []
      for (let r = 0; r < rounds; r++) {
        // A and B alternate which goes first, so neither always runs on a cache the other warmed.
        let detect: number
        let regex: number
        if (r % 2 === 0) {
          detect = timed(() => detectSecrets(text))
          regex = timed(() => oneRegexPass(text))
        } else {
          regex = timed(() => oneRegexPass(text))
          detect = timed(() => detectSecrets(text))
        }
        a.push(detect)
        b.push(regex)
        ratios.push(detect / regex)
      }
      const d = median(a)
      const re = median(b)
      console.log(
        `${name.padEnd(26)} ${String(kib).padStart(5)} ${d.toFixed(2).padStart(7)} ms ${(d / kib).toFixed(3).padStart(8)} ${re.toFixed(3).padStart(6)} ms ${`${median(ratios).toFixed(0)}x`.padStart(17)} ${`${(d / re).toFixed(0)}x`.padStart(17)} ${String(rounds).padStart(6)}`
      )
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { generatedClean, generatedCredentials } = await import("../test/secrets/generatedCorpus.ts")
  const clean = generatedClean().map((c) => c.text)
  const withCredentials = [...generatedCredentials().map((c) => c.text), ...clean]
  const repeatTo = (parts: ReadonlyArray<string>, bytes: number): string => {
    const unit = parts.join("\n\n")
    return unit.repeat(Math.max(1, Math.ceil(bytes / unit.length))).slice(0, bytes)
  }
  console.log(`node ${process.version}, load average ${(await import("node:os")).loadavg()[0]!.toFixed(2)}\n`)
  linearityTable(
    [
      ["clean notes", (bytes) => repeatTo(clean, bytes)],
      ["corpus with credentials", (bytes) => repeatTo(withCredentials, bytes)]
    ],
    Number(process.argv[2] ?? 1)
  )
}
