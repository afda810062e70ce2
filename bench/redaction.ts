/**
 * What redaction adds to a background tool call: the cost of `redactResult` (the credential detector over every text
 * of the result, then the markers) beside the tool's own time, measured in the same run on the same result.
 *   node bench/redaction.ts [runs]
 *
 * Tools are Pi's real definitions over a fixture project: `read` of a 50 KB file (clean source code; notes with
 * planted credentials; a worst case for the detector), `grep` over the project, and `bash` running `git log -p` over
 * a history with planted secrets (Pi caps every result at about 50 KB). Figures are medians of N runs; the ratio is
 * redaction time over tool time.
 */
import * as pi from "@earendil-works/pi-coding-agent"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { redactResult } from "../layers/background/tools/guardedCall.ts"
import type { ToolResult } from "../layers/background/tools/taskTool.ts"
import { githubToken, privateKeyBlock } from "../test/trust/fakeSecrets.ts"
import { median } from "./_support.ts"

const RUNS = Number(process.argv[2] ?? 15)
const KB50 = 50 * 1024
const root = join(dirname(fileURLToPath(import.meta.url)), "..")

const base = mkdtempSync(join(tmpdir(), "pm-bench-redact-"))
const project = join(base, "project")
mkdirSync(join(project, "src"), { recursive: true })

// 50 KB of this repository's own source, as a clean file.
const sources = readdirSync(join(root, "layers", "background", "tools")).map((f) => readFileSync(join(root, "layers", "background", "tools", f), "utf8"))
const code = sources.join("\n").repeat(4).slice(0, KB50)
writeFileSync(join(project, "src", "clean.ts"), code)
// 50 KB of notes with a credential every ~2.5 KB (tokens in prose, settings, URLs, a private key).
const notes: Array<string> = []
for (let i = 0; notes.join("\n").length < KB50; i++) {
  notes.push(`## Section ${i}\n${"Deploys go out on Fridays after the checks pass; ask the on-call person first. ".repeat(25)}`)
  const k = i % 4
  notes.push(k === 0 ? `The bot's token is ${githubToken()}.` : k === 1 ? `export GITHUB_TOKEN=${githubToken()}` : k === 2 ? `git remote add ci https://x:${githubToken()}@github.com/acme/app` : privateKeyBlock())
}
writeFileSync(join(project, "notes.md"), notes.join("\n").slice(0, KB50))
// The detector's costliest 50 KB among bench/secrets.ts's worst cases: a secret-ish name repeated.
writeFileSync(join(project, "worst.txt"), "password: ".repeat(KB50 / 10))
// A history with planted secrets, for `git log -p`.
const env = { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b", GIT_CONFIG_GLOBAL: "/dev/null" }
const git = (...args: Array<string>) => execFileSync("git", args, { cwd: project, stdio: "ignore", env })
git("init", "-q", "-b", "main")
for (let i = 0; i < 40; i++) {
  writeFileSync(join(project, "src", `config${i}.ts`), `${sources[i % sources.length]!.slice(0, 1500)}\nexport const token = "${githubToken()}"\n`)
  git("add", ".")
  git("commit", "-q", "-m", `change ${i}`)
}

const read = pi.createReadToolDefinition(project)
const grep = pi.createGrepToolDefinition(project)
const bash = pi.createBashToolDefinition(project)
const call = (def: { execute: (...a: Array<any>) => Promise<unknown> }, args: Record<string, unknown>) => async () => {
  const result = (await def.execute("bench", args, new AbortController().signal, undefined, undefined)) as ToolResult
  // A truncated bash output leaves its full log behind; the bench removes it.
  const full = (result.details as { fullOutputPath?: string } | undefined)?.fullOutputPath
  if (typeof full === "string") rmSync(full, { force: true })
  return result
}

const cases: Array<[string, () => Promise<ToolResult>]> = [
  ["read 50 KB clean source", call(read, { path: "src/clean.ts" })],
  ["read 50 KB notes, a credential per 2 KB", call(read, { path: "notes.md" })],
  ["read 50 KB worst case ('password: ' x 5120)", call(read, { path: "worst.txt" })],
  ["grep 'export' over the project", call(grep, { pattern: "export", limit: 1000 })],
  ["bash 'git log -p -n 25' (25 tokens)", call(bash, { command: "git log -p -n 25" })]
]

const timeMs = async <A>(f: () => Promise<A> | A): Promise<number> => {
  await f()
  const times: Array<number> = []
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now()
    await f()
    times.push(performance.now() - t)
  }
  return median(times)
}

const textLength = (r: ToolResult) => r.content.reduce((n, c) => n + (c.type === "text" ? c.text.length : 0), 0)
const markers = (r: ToolResult) => r.content.reduce((n, c) => n + (c.type === "text" ? (c.text.match(/\[redacted: /g) ?? []).length : 0), 0)

console.log(`node ${process.version}, median of ${RUNS} runs\n`)
console.log(`${"tool call".padEnd(44)} ${"result".padStart(9)} ${"tool".padStart(10)} ${"redact".padStart(10)} ${"ratio".padStart(7)} ${"markers".padStart(8)}`)
for (const [name, run] of cases) {
  const result = await run()
  const tool = await timeMs(run)
  const redact = await timeMs(() => redactResult(result))
  const redacted = redactResult(result)
  console.log(
    `${name.padEnd(44)} ${`${(textLength(result) / 1024).toFixed(1)} KB`.padStart(9)} ${`${tool.toFixed(2)} ms`.padStart(10)} ${`${redact.toFixed(2)} ms`.padStart(10)} ${`${(redact / tool).toFixed(2)}x`.padStart(7)} ${String(markers(redacted) - markers(result)).padStart(8)}`
  )
}
rmSync(base, { recursive: true, force: true })
