/**
 * Whole-process `pi -p hello` against the strict HTTP provider (test/support/strictProvider.ts), the way a user with
 * an OpenAI-compatible endpoint in models.json runs it: the checkout's own `pi`, bare and with `-e <checkout>`, paired
 * in interleaved rounds. From spawn: the first model request (the provider's request log stamps it) and exit. Also
 * counted: the requests each run sent and how many the provider refused (none should be: the extension's background
 * extraction at exit must fit the model's declared limits, here maxTokens 4096 against the extractor's 8192).
 * The packaged-install variants are bench/piStart.ts's.
 *
 * Run: node bench/piProcess.ts [rounds]   (after npm run build)
 */
import { spawn } from "node:child_process"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
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

const once = async (withExtension: boolean): Promise<Timing> => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-bench-proc-agent-")))
  const agentDir = join(base, "agent")
  mkdirSync(agentDir)
  mkdirSync(join(base, "home"))
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(strict.modelsJson()))
  const { NODE_OPTIONS: _n, ...rest } = process.env
  const env = { ...rest, HOME: join(base, "home"), PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" }
  const args = [PI, "--no-session", ...(withExtension ? ["-e", repoRoot] : []), "--model", "strict/strict-1", "-p", "a word about deploys on Fridays please"]
  const seen = strict.requests.length
  const started = performance.now()
  const code = await new Promise<number>((done) => {
    const child = spawn(process.execPath, args, { cwd: project, env, stdio: "ignore" })
    child.on("exit", (c) => done(c ?? 1))
  })
  const exit = performance.now() - started
  if (code !== 0) throw new Error(`pi exited ${code} (${withExtension ? "extension" : "bare"})`)
  const mine = strict.requests.slice(seen)
  rmSync(base, { recursive: true, force: true })
  return {
    firstRequest: strict.startedAt + mine[0]!.at - started,
    exit,
    requests: mine.length,
    refused: mine.filter((r) => r.status !== 200).length
  }
}

const results = { bare: [] as Array<Timing>, extension: [] as Array<Timing> }
await once(false) // warm the file cache
await once(true)
for (let i = 0; i < ROUNDS; i++) {
  results.bare.push(await once(false))
  results.extension.push(await once(true))
}
const paired = (key: "firstRequest" | "exit") => median(results.extension.map((t, i) => t[key] / results.bare[i]![key]))

console.log(`\n${ROUNDS} interleaved rounds against the strict HTTP provider; times from spawn, medians`)
console.log("| variant | first request | exit | requests per run | refused |")
console.log("|---|---|---|---|---|")
for (const [name, runs] of Object.entries(results)) {
  console.log(
    `| ${name} | ${median(runs.map((t) => t.firstRequest)).toFixed(0)} ms | ${median(runs.map((t) => t.exit)).toFixed(0)} ms | ${median(runs.map((t) => t.requests))} | ${runs.reduce((n, t) => n + t.refused, 0)} |`
  )
}
console.log(`\nwith the extension vs bare, paired: first request ${paired("firstRequest").toFixed(2)}x, exit ${paired("exit").toFixed(2)}x`)
await strict.close()
rmSync(project, { recursive: true, force: true })
