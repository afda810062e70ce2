/**
 * Whole-process `pi -p hello` against the strict HTTP provider (test/support/strictProvider.ts), the way a user with
 * an OpenAI-compatible endpoint in models.json runs it: the checkout's own `pi`, bare and with `-e <checkout>`, paired
 * in interleaved rounds. From spawn: the first model request (the provider's request log stamps it) and exit. Also
 * counted: the requests each run sent and how many the provider refused (none should be: the extension's background
 * extraction at exit must fit the model's declared limits, here maxTokens 4096 against the extractor's 8192).
 * Two prompts: a sentence with nothing to save, and one stating a fact. With the extension a run hands its extraction
 * to the queue at its end and starts the detached worker (pm extract --worker); each round waits for that worker to
 * end (its pid is in the memory root's queue-worker.log) before the next run, so it never loads a timed run.
 * The packaged-install variants are bench/piStart.ts's.
 *
 * Run: node bench/piProcess.ts [rounds]   (after npm run build)
 */
import { spawn } from "node:child_process"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { startStrictProvider } from "../test/support/strictProvider.ts"
import { median } from "./_support.ts"

const ROUNDS = Number(process.argv[2] ?? 7)
const repoRoot = resolve(import.meta.dirname, "..")
const PI = join(repoRoot, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "cli.js")

const strict = await startStrictProvider({ models: [{ id: "strict-1", contextWindow: 128_000, maxTokens: 4_096 }] })
strict.handler = (r) => (r.messages.some((m: any) => JSON.stringify(m.content ?? "").includes("## Background memory task tools")) ? { text: "Nothing to save." } : { text: "hello" })

const project = realpathSync(mkdtempSync(join(tmpdir(), "pm-bench-proc-")))
execFileSync("git", ["init", "-q"], { cwd: project })

interface Timing {
  readonly firstRequest: number
  readonly exit: number
  readonly requests: number
  readonly refused: number
}

/** The worker a run left (its pid from the log), waited for until it ends. */
const workerEnded = async (agentDir: string): Promise<void> => {
  const roots = join(agentDir, "project-memory", "memory-roots")
  for (const hash of existsSync(roots) ? readdirSync(roots) : []) {
    const log = join(roots, hash, "queue-worker.log")
    const pid = existsSync(log) ? / worker (\d+) started /.exec(readFileSync(log, "utf8"))?.[1] : undefined
    if (pid !== undefined) await new Promise((done) => spawn("tail", [`--pid=${pid}`, "-f", "/dev/null"], { stdio: "ignore" }).on("exit", done))
  }
}

const PROMPTS = { nothing: "a word about deploys on Fridays please", fact: "Please remember this for later: the fact is that we deploy on Fridays." }

const once = async (withExtension: boolean, prompt: string): Promise<Timing> => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-bench-proc-agent-")))
  const agentDir = join(base, "agent")
  mkdirSync(agentDir)
  mkdirSync(join(base, "home"))
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(strict.modelsJson()))
  const { NODE_OPTIONS: _n, ...rest } = process.env
  const env = { ...rest, HOME: join(base, "home"), PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" }
  const args = [PI, "--no-session", ...(withExtension ? ["-e", repoRoot] : []), "--model", "strict/strict-1", "-p", prompt]
  const seen = strict.requests.length
  const started = performance.now()
  const code = await new Promise<number>((done) => {
    const child = spawn(process.execPath, args, { cwd: project, env, stdio: "ignore" })
    child.on("exit", (c) => done(c ?? 1))
  })
  const exit = performance.now() - started
  if (code !== 0) throw new Error(`pi exited ${code} (${withExtension ? "extension" : "bare"})`)
  const mine = strict.requests.slice(seen)
  await workerEnded(agentDir)
  rmSync(base, { recursive: true, force: true })
  return {
    firstRequest: strict.startedAt + mine[0]!.at - started,
    exit,
    requests: mine.length,
    refused: mine.filter((r) => r.status !== 200).length
  }
}

await once(false, PROMPTS.nothing) // warm the file cache
await once(true, PROMPTS.nothing)
for (const [label, prompt] of Object.entries(PROMPTS)) {
const results = { bare: [] as Array<Timing>, extension: [] as Array<Timing> }
for (let i = 0; i < ROUNDS; i++) {
  results.bare.push(await once(false, prompt))
  results.extension.push(await once(true, prompt))
}
const paired = (key: "firstRequest" | "exit") => median(results.extension.map((t, i) => t[key] / results.bare[i]![key]))
console.log(`\nprompt: ${label} ("${prompt}")`)

console.log(`\n${ROUNDS} interleaved rounds against the strict HTTP provider; times from spawn, medians`)
console.log("| variant | first request | exit | requests per run | refused |")
console.log("|---|---|---|---|---|")
for (const [name, runs] of Object.entries(results)) {
  console.log(
    `| ${name} | ${median(runs.map((t) => t.firstRequest)).toFixed(0)} ms | ${median(runs.map((t) => t.exit)).toFixed(0)} ms | ${median(runs.map((t) => t.requests))} | ${runs.reduce((n, t) => n + t.refused, 0)} |`
  )
}
console.log(`\nwith the extension vs bare, paired: first request ${paired("firstRequest").toFixed(2)}x, exit ${paired("exit").toFixed(2)}x`)
}
await strict.close()
rmSync(project, { recursive: true, force: true })
