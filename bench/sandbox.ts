/**
 * The OS sandbox's cost: one background bash command run inside the sandbox against the same command run by Pi's
 * own local shell, interleaved and paired per round in the same run (medians, and the median of the paired ratios).
 *   node bench/sandbox.ts [rounds] [before-commit]
 *
 * The same measurement is then made, in the same run, on main's code before the command bounds (commit 7f875cd, or
 * the one given): its tree is exported to a temporary folder (node_modules linked), this file copied in and run
 * there. Each table's ratios are paired within it, so the two are comparable even if the load moves.
 *
 * The sandboxed path is the background tool's: the search of the project for protected files, the runtime's wrap
 * (bubblewrap's command line), then Pi's local shell over that line with the scrubbed environment. Also shown: the
 * first session's start (loading the runtime, its proxy, a trial command) and the wrap alone.
 */
import * as pi from "@earendil-works/pi-coding-agent"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { makeSandboxedTools } from "../layers/background/tools/sandboxed.ts"
import { defaultSandbox } from "../layers/safety/Sandbox.ts"
import type { ProtectionOptions } from "../src/safety/protectedPaths.ts"
import { sandboxFilesystem } from "../src/safety/sandboxFilesystem.ts"
import { median } from "./_support.ts"

const ROUNDS = Number(process.argv[2] ?? 15)
const BEFORE = process.argv[3] ?? "7f875cd"
const LABEL = process.env["PM_BENCH_LABEL"] ?? "after (this tree)"

const base = mkdtempSync(join(tmpdir(), "pm-bench-sandbox-"))
const project = join(base, "project")
const memoryDir = join(base, "memory")
mkdirSync(join(project, "src"), { recursive: true })
mkdirSync(memoryDir)
for (let i = 0; i < 200; i++) writeFileSync(join(project, "src", `f${i}.ts`), `export const v${i} = ${i}\n`)
writeFileSync(join(project, ".env"), "X=1\n")
const git = (...args: Array<string>) => execFileSync("git", args, { cwd: project, stdio: "ignore", env: { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" } })
git("init", "-q")
git("add", "src")
git("commit", "-q", "-m", "init")

// With the read scope where the tree has one (the allow-list: `/` hidden, the scope mounted back), as a task runs it;
// the code before the allow-list has no such module and runs its deny-list.
const configured = { home: homedir(), agentDir: join(homedir(), ".pi", "agent"), exceptions: [], extraProtections: [] }
const scopeModule = "../layers/safety/readScopeLoad.ts"
const scoping = (await import(scopeModule).catch(() => undefined)) as
  | { loadReadScope: (r: { cwd: string; memoryDir: string; home: string; agentDir: string }) => Promise<ProtectionOptions["scope"]> }
  | undefined
const protection: ProtectionOptions = scoping === undefined
  ? configured
  : { ...configured, scope: await scoping.loadReadScope({ cwd: project, memoryDir, home: configured.home, agentDir: configured.agentDir }) }
const t0 = performance.now()
const tools = await makeSandboxedTools({ sandbox: defaultSandbox(), pi, cwd: project, memoryDir, protection, whenUnavailable: "refuse" })
const startMs = performance.now() - t0
if (tools.bashOperations === undefined) {
  console.log(`sandbox unavailable: ${tools.availability._tag === "Unavailable" ? tools.availability.reason : "?"}`)
  process.exit(1)
}
const sandboxed = tools.bashOperations
const local = pi.createLocalBashOperations()

const time = async (f: () => Promise<unknown>): Promise<number> => {
  const t = performance.now()
  await f()
  return performance.now() - t
}
const run = (ops: typeof local, command: string) => () => ops.exec(command, project, { onData: () => undefined, env: process.env })

const session = await Effect.runPromise(defaultSandbox().open)
const policy = sandboxFilesystem(protection, [join(project, ".env")])

console.log(`${LABEL}: node ${process.version}, ${ROUNDS} rounds, medians; ${scoping === undefined ? "deny-list" : "read scope"}; first session start ${startMs.toFixed(0)} ms\n`)
console.log("command                     local      sandboxed   ratio (paired)   of which wrap")
for (const command of ["true", "git status --short", "grep -rn 'v1' src | wc -l", "cat src/f1.ts", "seq 1 300000"]) {
  await run(local, command)()
  await run(sandboxed, command)()
  const a: Array<number> = []
  const b: Array<number> = []
  const w: Array<number> = []
  const ratios: Array<number> = []
  for (let i = 0; i < ROUNDS; i++) {
    const x = await time(run(local, command))
    const y = await time(run(sandboxed, command))
    w.push(await time(() => Effect.runPromise(session.wrap(command, policy))))
    a.push(x)
    b.push(y)
    ratios.push(y / x)
  }
  const ms = (v: number) => `${v.toFixed(1)} ms`.padStart(10)
  console.log(`${command.padEnd(26)} ${ms(median(a))} ${ms(median(b))}   ${`${median(ratios).toFixed(2)}x`.padStart(8)}       ${ms(median(w))}`)
}

await Effect.runPromise(session.close)
await tools.close()
rmSync(base, { recursive: true, force: true })

// The same file on the code before the bounds, in a process of its own (the sandbox runtime is one per process).
if (process.env["PM_BENCH_LABEL"] === undefined) {
  const root = dirname(import.meta.dirname)
  const tree = mkdtempSync(join(tmpdir(), "pm-bench-before-"))
  try {
    execFileSync("sh", ["-c", `git -C '${root}' archive ${BEFORE} | tar -x -C '${tree}'`])
    symlinkSync(join(root, "node_modules"), join(tree, "node_modules"))
    copyFileSync(join(root, "bench", "sandbox.ts"), join(tree, "bench", "sandbox.ts"))
    console.log("")
    execFileSync(process.execPath, [join(tree, "bench", "sandbox.ts"), String(ROUNDS)], {
      stdio: "inherit",
      env: { ...process.env, PM_BENCH_LABEL: `before (${BEFORE})` }
    })
  } finally {
    rmSync(tree, { recursive: true, force: true })
  }
}
