/**
 * Whole-process `pi -p hello` as a user runs it: a real `pi` (installed into a prefix of its own), pi-ai's fake
 * provider answering at once, and the extension loaded three ways, each paired with bare Pi in the same round:
 * - bare: no extension (the baseline);
 * - packaged: `-e` of the tarball installed with production dependencies only;
 * - checkout: `-e` of this checkout (its node_modules hold a second Pi, which must not be loaded).
 * Per run: the first model request (the provider stamps it) and the process's exit, both from spawn, and the CPU time
 * (user + system) of the process and the children it waited for, from /usr/bin/time (the detached queue worker of a
 * print run is off: PM_QUEUE_WORKER=0, or it would load the machine during the next round).
 * Rounds are interleaved, and the order within a round turns by one each round (bare, packaged, checkout; then
 * packaged, checkout, bare; ...), so neither load on the machine nor a warm cache left by the run before favours a
 * variant. Each ratio is shown two ways: the median of the per-round ratios to the bare run of the same round
 * (paired), and the ratio of the variant's median to bare's median.
 *
 * Run: [PI_START_WARM=1] node bench/piStart.ts [rounds] [variant,...]   (after npm run build; needs the npm registry or its cache for the
 * installs; the variants default to bare,packaged,checkout, and bare is always run; PI_START_OTHER=<folder of an
 * installed package> adds "other", e.g. an earlier build's, to set two builds side by side in one run)
 */
import { execFileSync, spawn } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { preparePackagedInstall, repoRoot, userEnv } from "../test/support/install.ts"
import { median } from "./_support.ts"

const tempDir = (prefix: string): string => realpathSync(mkdtempSync(join(tmpdir(), prefix)))
const tempAgent = () => {
  const b = tempDir("pm-bench-agent-")
  mkdirSync(join(b, "agent"))
  mkdirSync(join(b, "home"))
  return { agentDir: join(b, "agent"), home: join(b, "home") }
}
const gitRepo = (): string => {
  const root = tempDir("pm-bench-git-")
  execFileSync("git", ["init", "-q"], { cwd: root })
  return root
}

const ROUNDS = Number(process.argv[2] ?? 11)
const FAUX = join(repoRoot, "test", "fixtures", "providers", "faux.mjs")

const base = tempDir("pm-bench-pi-")
console.log("installing Pi and the packed tarball ...")
const install = await preparePackagedInstall(base)
const project = gitRepo()
// The provider as TypeScript outside the checkout, so that Pi's loader compiles it against the host's pi-ai.
const faux = join(base, "faux-provider.ts")
copyFileSync(FAUX, faux)

interface Timing {
  readonly firstRequest: number
  readonly exit: number
  readonly cpu: number
}

/**
 * PI_START_WARM=1: each variant keeps one agent folder for all its runs, so every run after the warm-up is a later
 * session of a project whose memory folder exists (what a person mostly starts); by default each run is the first
 * session of a fresh agent folder, which also claims the project and makes its folders.
 */
const WARM = process.env["PI_START_WARM"] === "1"
const warmAgents = new Map<string, ReturnType<typeof tempAgent>>()

const once = async (extension: string | undefined): Promise<Timing> => {
  const key = extension ?? "bare"
  const dirs = WARM ? (warmAgents.get(key) ?? warmAgents.set(key, tempAgent()).get(key)!) : tempAgent()
  const captureDir = tempDir("pm-bench-cap-")
  const capture = join(captureDir, "capture.jsonl")
  const env = userEnv(install, dirs, true, {
    PM_FAUX_SCRIPT: JSON.stringify([{ text: "hello" }, { text: "nothing to save" }, { text: "nothing" }]),
    PM_FAUX_CAPTURE: capture,
    PM_QUEUE_WORKER: "0"
  })
  const args = ["--no-session", "-e", faux, ...(extension === undefined ? [] : ["-e", extension]), "--model", "faux/faux-1", "-p", "hello"]
  const times = join(captureDir, "time.txt")
  const started = Date.now()
  const code = await new Promise<number>((resolve) => {
    const child = spawn("/usr/bin/time", ["-f", "%U %S", "-o", times, install.piBin, ...args], { cwd: project, env, stdio: "ignore" })
    child.on("exit", (c) => resolve(c ?? 1))
  })
  const exit = Date.now() - started
  if (code !== 0) throw new Error(`pi exited ${code} (${extension ?? "bare"})`)
  const first = JSON.parse(readFileSync(capture, "utf8").split("\n")[0]!) as { at: number }
  const [user, system] = readFileSync(times, "utf8").trim().split(/\s+/).slice(-2).map(Number)
  rmSync(captureDir, { recursive: true, force: true })
  if (!WARM) rmSync(join(dirs.agentDir, ".."), { recursive: true, force: true })
  return { firstRequest: first.at - started, exit, cpu: Math.round((user! + system!) * 1000) }
}

// PI_START_OTHER: the folder of another install of the package (an earlier build's), run as a fourth variant "other".
const variants = { bare: undefined, packaged: install.installed, checkout: repoRoot, other: process.env["PI_START_OTHER"] }
type Variant = keyof typeof variants
const results: Record<Variant, Array<Timing>> = { bare: [], packaged: [], checkout: [], other: [] }
const asked = (process.argv[3] ?? "bare,packaged,checkout").split(",")
const order = (Object.keys(variants) as Array<Variant>).filter((v) => v === "bare" || (asked.includes(v) && variants[v] !== undefined))
for (const v of order) await once(variants[v]) // warm the file cache
for (let i = 0; i < ROUNDS; i++) {
  // This round's order: turned by one from the last round's.
  const turned = order.map((_, k) => order[(k + i) % order.length]!)
  for (const v of turned) results[v].push(await once(variants[v]))
}

/** Per round, the ratio of a variant to the bare run of the same round; the median of those. */
const pairedRatio = (v: Variant, key: keyof Timing): number =>
  median(results[v].map((t, i) => t[key] / results.bare[i]![key]))

/** The variant's median over bare's median. */
const medianRatio = (v: Variant, key: keyof Timing): number =>
  median(results[v].map((t) => t[key])) / median(results.bare.map((t) => t[key]))

console.log(`\n${ROUNDS} interleaved rounds, the order turned each round; ${WARM ? "later sessions of a located project" : "each run a first session"}; times from spawn, medians`)
console.log("| variant | first request | exit | CPU | first request vs bare: paired, of medians | exit vs bare | CPU vs bare |")
console.log("|---|---|---|---|---|---|---|")
for (const v of order) {
  const ms = (key: keyof Timing) => `${median(results[v].map((t) => t[key])).toFixed(0)} ms`
  const both = (key: keyof Timing) => (v === "bare" ? "1.00x, 1.00x" : `${pairedRatio(v, key).toFixed(2)}x, ${medianRatio(v, key).toFixed(2)}x`)
  console.log(`| ${v} | ${ms("firstRequest")} | ${ms("exit")} | ${ms("cpu")} | ${both("firstRequest")} | ${both("exit")} | ${both("cpu")} |`)
}
console.log("\ngoal: first request within 1.15x of bare Pi")
rmSync(base, { recursive: true, force: true })
for (const dirs of warmAgents.values()) rmSync(join(dirs.agentDir, ".."), { recursive: true, force: true })
