/**
 * `pm forget` and `pm undo` under contention: 1, 4 and 8 processes at once on one project, each forgetting its own
 * topic and undoing it, `rounds` times. Prints p50/p99/max latency per command and how many gave up, beside
 * `pm status` run alone in the same run (the cost of one pm process). `node bench/contention.ts [rounds]`.
 */
import { execFile, execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const pm = resolve(import.meta.dirname, "..", "dist", "pm.js")
const rounds = Number(process.argv[2] ?? "3")
const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-bench-contention-")))
const agentDir = join(base, "agent")
const repo = join(base, "repo")
mkdirSync(repo, { recursive: true })
execFileSync("git", ["init", "-q"], { cwd: repo })
const env = { ...process.env, PI_CODING_AGENT_DIR: agentDir, HOME: base, NO_COLOR: "1" }
const project = JSON.parse(execFileSync(process.execPath, [pm, "project", "--json", "--cwd", repo], { env, encoding: "utf8" }))
mkdirSync(project.memoryDir, { recursive: true })

const run = (args: ReadonlyArray<string>) =>
  new Promise<{ ms: number; code: number; stdout: string; stderr: string }>((done) => {
    const t = performance.now()
    execFile(process.execPath, [pm, ...args, "--cwd", repo], { env, encoding: "utf8" }, (e, stdout, stderr) =>
      done({ ms: performance.now() - t, code: e ? Number((e as { code?: number }).code ?? 1) : 0, stdout, stderr }))
  })
const pct = (xs: Array<number>, p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}

const baseline: Array<number> = []
for (let i = 0; i < 5; i++) baseline.push((await run(["status"])).ms)
const b50 = pct(baseline, 50)
console.log(`baseline: pm status alone, p50 ${b50.toFixed(0)} ms`)
console.log("procs  command  runs   failed  p50 ms (x base)  p99 ms (x base)  max ms")
for (const procs of [1, 4, 8]) {
  const names = Array.from({ length: procs }, (_, i) => `topic-${procs}-${i}`)
  for (const n of names) {
    writeFileSync(join(project.memoryDir, `${n}.md`), `---\nname: ${n}\ndescription: about ${n}\nmetadata:\n  type: project\n---\nbody\n`)
  }
  const times = { forget: [] as Array<number>, undo: [] as Array<number> }
  const gaveUp = { forget: 0, undo: 0 }
  await Promise.all(names.map(async (n) => {
    for (let r = 0; r < rounds; r++) {
      const f = await run(["forget", n, "--json"])
      times.forget.push(f.ms)
      if (f.code !== 0) {
        gaveUp.forget++
        console.error(f.stderr.trim())
        continue
      }
      // Undo this process's own forget, by its task id.
      const u = await run(["undo", JSON.parse(f.stdout).task])
      times.undo.push(u.ms)
      if (u.code !== 0) {
        gaveUp.undo++
        console.error(u.stderr.trim())
      }
    }
  }))
  for (const c of ["forget", "undo"] as const) {
    const p50 = pct(times[c], 50)
    const p99 = pct(times[c], 99)
    console.log(`${String(procs).padStart(5)}  ${c.padEnd(7)}  ${String(times[c].length).padStart(4)}  ${String(gaveUp[c]).padStart(7)}  ${p50.toFixed(0).padStart(6)} (${(p50 / b50).toFixed(2)}x)  ${p99.toFixed(0).padStart(8)} (${(p99 / b50).toFixed(2)}x)  ${Math.max(...times[c]).toFixed(0).padStart(6)}`)
  }
}
rmSync(base, { recursive: true, force: true })
