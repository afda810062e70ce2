/**
 * Credential detector throughput, beside bare baselines measured in the same run over the same data:
 *   node bench/secrets.ts [runs]
 * - the corpus (every credential and clean text of test/fixtures/secrets) repeated to about 4 MiB;
 * - the clean texts alone repeated to about 4 MiB (what a memory write usually is);
 * - 1 MiB adversarial inputs (runs of token prefixes, headers, separators) that would make a backtracking pattern
 *   blow up; the detector stays linear.
 * Baselines: `text.split("\n")` and one global regex scan for GitHub tokens. Figures are medians of N runs, in MB/s
 * (10^6 bytes of UTF-8 per second).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { detectSecrets } from "../src/secrets.ts"
import { median } from "./_support.ts"

const RUNS = Number(process.argv[2] ?? 9)
const FIXTURES = join(fileURLToPath(import.meta.url), "..", "..", "test", "fixtures", "secrets")

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

const repeatTo = (parts: ReadonlyArray<string>, bytes: number): string => {
  const unit = parts.join("\n\n")
  return unit.repeat(Math.max(1, Math.ceil(bytes / Buffer.byteLength(unit))))
}

const credentials = readFileSync(join(FIXTURES, "credentials.jsonl"), "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => (JSON.parse(l) as { text: string }).text)
const clean = readFileSync(join(FIXTURES, "clean.txt"), "utf8").split(/\n=====\n/).slice(1)

const MiB = 1 << 20
const fill = (unit: string): string => unit.repeat(Math.ceil(MiB / unit.length)).slice(0, MiB)

const datasets: ReadonlyArray<readonly [string, string]> = [
  ["corpus (credentials + clean), 4 MiB", repeatTo([...credentials, ...clean], 4 * MiB)],
  ["clean texts only, 4 MiB", repeatTo(clean, 4 * MiB)],
  ["adversarial: 'a' x 1 MiB", fill("a")],
  ["adversarial: 'ghp_' x 1 MiB", fill("ghp_")],
  ["adversarial: 'eyJ' x 1 MiB", fill("eyJ")],
  ["adversarial: 'a=' x 1 MiB", fill("a=")],
  ["adversarial: 'password: ' x 1 MiB", fill("password: ")],
  ["adversarial: 'a://b:c' x 1 MiB", fill("a://b:c")],
  ["adversarial: private-key header x 1 MiB", fill("-----BEGIN PRIVATE KEY-----")],
  ["adversarial: PuTTY header lines, 1 MiB", fill("PuTTY-User-Key-File-2: ssh-rsa\n")],
  ["adversarial: '--token ' x 1 MiB", fill("--token ")],
  ["adversarial: 'Authorization: Bearer ' x 1 MiB", fill("Authorization: Bearer ")],
  ["adversarial: 63 x 'A' + '=\\n', 1 MiB", fill(`${"A".repeat(63)}=\n`)]
]

const GITHUB = /ghp_[A-Za-z0-9]{36}/g
const singleRegex = (text: string): number => {
  GITHUB.lastIndex = 0
  let n = 0
  while (GITHUB.exec(text) !== null) n++
  return n
}

const mbps = (bytes: number, ms: number): string => `${(bytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s`.padStart(12)

console.log(`node ${process.version}, median of ${RUNS} runs`)
console.log(
  `${"input".padEnd(46)}  ${"detectSecrets".padStart(12)}  ${"split(\\n)".padStart(12)}  ${"one regex".padStart(12)}  vs split  vs regex  findings`
)
for (const [name, text] of datasets) {
  const bytes = Buffer.byteLength(text)
  const detect = timeMs(() => detectSecrets(text))
  const split = timeMs(() => text.split("\n"))
  const regex = timeMs(() => singleRegex(text))
  const findings = detectSecrets(text).length
  console.log(
    `${name.padEnd(46)}  ${mbps(bytes, detect)}  ${mbps(bytes, split)}  ${mbps(bytes, regex)}  ${(detect / split).toFixed(0).padStart(7)}x  ${(detect / regex).toFixed(1).padStart(7)}x  ${findings}`
  )
}
