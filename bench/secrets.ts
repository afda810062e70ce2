/**
 * The credential detector: what it catches, and what it costs.
 *   node bench/secrets.ts [runs]
 *
 * 1. Recall and false positives on the generated corpus (test/secrets/generatedCorpus.ts: credential formats, each
 *    evasion applied to a share of them, and clean texts that look close), with every miss and every false alarm
 *    listed; and on the hand-made corpus of test/fixtures/secrets.
 * 2. Cost beside baselines measured in the same run over the same text: one `String.prototype.includes` pass (the
 *    floor of reading the text once) and one global regex scan for GitHub tokens (what a single-rule detector
 *    costs). Per KiB on memory-sized texts (1, 4 and 16 KiB of clean notes), and for 1 MiB writes: clean notes, the
 *    corpus with its credentials, and adversarial inputs built to make a backtracking pattern blow up.
 * 3. Linearity: ms per KiB at 1, 4, 16, 64, 256 and 1,024 KiB (a flat line when the detector is linear), clean notes
 *    and the corpus with its credentials, each beside one pass of a single regex (/[A-Za-z0-9]{20,}/g) over the same
 *    text: the two run in alternating order, round after round, and the median of the paired ratios is shown beside
 *    the ratio of the medians.
 * Figures are medians of N runs.
 */
import { detectSecrets } from "../src/safety/secrets.ts"
import { cleanSamples, credentialSamples } from "../test/secrets/corpus.ts"
import { EVASIONS, FORMATS, generatedClean, generatedCredentials } from "../test/secrets/generatedCorpus.ts"
import { median } from "./_support.ts"
import { linearityTable } from "./secretsScale.ts"

const RUNS = Number(process.argv[2] ?? 9)

const timeMs = (f: () => unknown, runs = RUNS): number => {
  f()
  const times: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    f()
    times.push(performance.now() - t)
  }
  return median(times)
}

// ---------------------------------------------------------------------------------------------------------------
// 1. Recall and false positives

const credentials = generatedCredentials()
const clean = generatedClean()
const caught = (text: string): boolean => detectSecrets(text).length > 0
const pct = (n: number, d: number): string => `${((100 * n) / d).toFixed(1)} %`

console.log(`node ${process.version}, median of ${RUNS} runs\n`)
console.log(`generated corpus: ${FORMATS.length} formats, ${credentials.length} credentials, ${clean.length} clean texts`)
console.log(`${"evasion".padEnd(14)} ${"caught".padStart(9)}  recall`)
for (const e of ["none", ...EVASIONS] as const) {
  const cs = credentials.filter((c) => c.evasion === e)
  const n = cs.filter((c) => caught(c.text)).length
  console.log(`${e.padEnd(14)} ${`${n}/${cs.length}`.padStart(9)}  ${pct(n, cs.length)}`)
}
const missed = credentials.filter((c) => !caught(c.text))
const flagged = clean.filter((c) => caught(c.text))
console.log(`${"all".padEnd(14)} ${`${credentials.length - missed.length}/${credentials.length}`.padStart(9)}  ${pct(credentials.length - missed.length, credentials.length)}`)
console.log(`false positives: ${flagged.length}/${clean.length} = ${pct(flagged.length, clean.length)}`)
for (const m of missed) console.log(`  missed: ${m.format} (${m.evasion})`)
for (const f of flagged) console.log(`  flagged: ${f.family} as ${detectSecrets(f.text).map((x) => x.kind).join(", ")}`)

const fixed = credentialSamples()
const fixedClean = cleanSamples()
const fixedMissed = fixed.filter((c) => !detectSecrets(c.text).some((f) => f.kind === c.kind))
console.log(
  `hand-made corpus: ${fixed.length - fixedMissed.length}/${fixed.length} named by their kind, ${fixedClean.filter(caught).length}/${fixedClean.length} clean texts flagged\n`
)

// ---------------------------------------------------------------------------------------------------------------
// 2. Cost

const repeatTo = (parts: ReadonlyArray<string>, bytes: number): string => {
  const unit = parts.join("\n\n")
  return unit.repeat(Math.max(1, Math.ceil(bytes / unit.length))).slice(0, bytes)
}
const KiB = 1024
const MiB = 1 << 20
const cleanTexts = clean.map((c) => c.text)
const fill = (unit: string): string => unit.repeat(Math.ceil(MiB / unit.length)).slice(0, MiB)

const includesPass = (text: string): boolean => text.includes("\u0000never\u0000")
const GITHUB = /ghp_[A-Za-z0-9]{36}/g
const oneRegex = (text: string): number => {
  GITHUB.lastIndex = 0
  let n = 0
  while (GITHUB.exec(text) !== null) n++
  return n
}

const row = (name: string, text: string, runs = RUNS): void => {
  const kib = text.length / KiB
  const detect = timeMs(() => detectSecrets(text), runs)
  const inc = timeMs(() => includesPass(text), runs)
  const re = timeMs(() => oneRegex(text), runs)
  console.log(
    `${name.padEnd(44)} ${detect.toFixed(2).padStart(9)} ms ${((detect * 1000) / kib).toFixed(1).padStart(8)} us/KiB ${(detect / inc).toFixed(0).padStart(8)}x ${(detect / re).toFixed(1).padStart(8)}x ${String(detectSecrets(text).length).padStart(7)}`
  )
}

console.log(`${"input".padEnd(44)} ${"detect".padStart(12)} ${"per KiB".padStart(15)} ${"vs incl".padStart(9)} ${"vs regex".padStart(9)} ${"findings".padStart(7)}`)
row("clean notes, 1 KiB", repeatTo(cleanTexts, 1 * KiB), RUNS * 20)
row("clean notes, 4 KiB", repeatTo(cleanTexts, 4 * KiB), RUNS * 10)
row("clean notes, 16 KiB", repeatTo(cleanTexts, 16 * KiB), RUNS * 4)
row("1 MiB write: clean notes", repeatTo(cleanTexts, MiB))
row("1 MiB write: corpus with credentials", repeatTo([...credentials.map((c) => c.text), ...cleanTexts], MiB))
for (const [name, unit] of [
  ["'a'", "a"],
  ["'ghp_'", "ghp_"],
  ["'eyJ'", "eyJ"],
  ["'a='", "a="],
  ["'password: '", "password: "],
  ["'a://b:c'", "a://b:c"],
  ["private-key header", "-----BEGIN PRIVATE KEY-----"],
  ["PuTTY header lines", "PuTTY-User-Key-File-2: ssh-rsa\n"],
  ["'--token '", "--token "],
  ["'Authorization: Bearer '", "Authorization: Bearer "],
  ["63 x 'A' + '=\\n'", `${"A".repeat(63)}=\n`],
  ["zero-width spaces", "\u200b"],
  ["Cyrillic a", "\u0430"],
  ["8 token chars + newline", "Ab12cd34\n"],
  ["'%41'", "%41"],
  ["'QUFB' (base64)", "QUFB"],
  ["'machine a '", "machine a "],
  ["'password is '", "password is "]
] as const) {
  row(`1 MiB adversarial: ${name}`, fill(unit), Math.max(3, Math.floor(RUNS / 3)))
}

// ---------------------------------------------------------------------------------------------------------------
// 3. Linearity

console.log("")
linearityTable([
  ["clean notes", (bytes) => repeatTo(cleanTexts, bytes)],
  ["corpus with credentials", (bytes) => repeatTo([...credentials.map((c) => c.text), ...cleanTexts], bytes)]
])
