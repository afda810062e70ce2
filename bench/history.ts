/**
 * The cost of the memory history and of sync, with whole dist/pm.js processes and the real git:
 * - per write: `pm remember` then `pm forget` in a project with history on against the same commands in a project
 *   with it off (each command one commit with history on), on memories of 50 topics;
 * - the push after a write: `pm remember` then `pm forget` in a project with sync on (a bare remote on disk; each
 *   command commits and then syncs) against the same commands with history on only;
 * - `pm sync` with nothing to do (a bare remote on disk, already in step) against `pm status` and `node -e 0`.
 * Rounds alternate A and B; shown: the median of the paired ratios (A/B in the same round) beside the ratio of the
 * medians. `node bench/history.ts [rounds]` (build dist/ first).
 */
import { execFile, execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { median } from "./_support.ts"

const pm = resolve(import.meta.dirname, "..", "dist", "pm.js")
const rounds = Number(process.argv[2] ?? "15")
const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-bench-history-")))

const project = (name: string) => {
  const repo = join(base, name)
  mkdirSync(repo, { recursive: true })
  execFileSync("git", ["init", "-q"], { cwd: repo })
  const env = { ...process.env, PI_CODING_AGENT_DIR: join(base, `agent-${name}`), HOME: base, NO_COLOR: "1", PM_MACHINE_NAME: name }
  const p = JSON.parse(execFileSync(process.execPath, [pm, "project", "--json", "--cwd", repo], { env, encoding: "utf8" }))
  mkdirSync(p.memoryDir, { recursive: true })
  const index: Array<string> = []
  for (let i = 0; i < 50; i++) {
    writeFileSync(join(p.memoryDir, `topic-${i}.md`), `---\nname: Topic ${i}\ndescription: topic ${i}\nmetadata:\n  type: project\n---\n${"Details. ".repeat(60)}\n`)
    index.push(`- [Topic ${i}](topic-${i}.md) - topic ${i}`)
  }
  writeFileSync(join(p.memoryDir, "MEMORY.md"), `${index.join("\n")}\n`)
  return { repo, env }
}

const time = (file: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, cwd: string) =>
  new Promise<number>((done, fail) => {
    const t = performance.now()
    execFile(file, args, { env, cwd, encoding: "utf8", maxBuffer: 1 << 20 }, (e, _out, stderr) =>
      e ? fail(new Error(`${args.join(" ")}: ${stderr}`)) : done(performance.now() - t))
  })
const pmRun = (p: ReturnType<typeof project>, args: ReadonlyArray<string>) => time(process.execPath, [pm, ...args, "--cwd", p.repo], p.env, p.repo)

const on = project("on")
const off = project("off")
await pmRun(on, ["on", "history", "--project"])
const remote = join(base, "remote.git")
execFileSync("git", ["init", "-q", "--bare", remote])
const synced = project("synced")
await pmRun(synced, ["sync", "init", remote, "--name", "bench"])

const t = { remOn: [] as Array<number>, remOff: [] as Array<number>, forOn: [] as Array<number>, forOff: [] as Array<number>, remSync: [] as Array<number>, forSync: [] as Array<number>, sync: [] as Array<number>, status: [] as Array<number>, node: [] as Array<number> }
for (let r = 0; r < rounds; r++) {
  const fact = `bench fact number ${r}`
  const first = r % 2 === 0 ? [on, off] : [off, on]
  for (const p of first) (p === on ? t.remOn : t.remOff).push(await pmRun(p, ["remember", fact]))
  for (const p of first) (p === on ? t.forOn : t.forOff).push(await pmRun(p, ["forget", `bench-fact-number-${r}.md`]))
  t.remSync.push(await pmRun(synced, ["remember", fact]))
  t.forSync.push(await pmRun(synced, ["forget", `bench-fact-number-${r}.md`]))
  const order = r % 2 === 0 ? ["sync", "status", "node"] : ["node", "status", "sync"]
  for (const what of order) {
    if (what === "sync") t.sync.push(await pmRun(synced, ["sync"]))
    else if (what === "status") t.status.push(await pmRun(synced, ["status"]))
    else t.node.push(await time(process.execPath, ["-e", "0"], synced.env, synced.repo))
  }
}

const paired = (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => median(a.map((x, i) => x / b[i]!))
const row = (label: string, a: ReadonlyArray<number>, b: ReadonlyArray<number>) =>
  console.log(`${label.padEnd(34)} ${median(a).toFixed(0).padStart(7)} ${median(b).toFixed(0).padStart(9)}   ${paired(a, b).toFixed(2).padStart(6)}x   ${(median(a) / median(b)).toFixed(2).padStart(6)}x`)
console.log(`${rounds} rounds, alternating; medians in ms; ratios: median of paired ratios, ratio of medians`)
console.log("what (A against B)                   A ms      B ms   paired    medians")
row("remember, history on / off", t.remOn, t.remOff)
row("forget, history on / off", t.forOn, t.forOff)
row("remember, sync on / history on", t.remSync, t.remOn)
row("forget, sync on / history on", t.forSync, t.forOn)
row("pm sync, nothing to do / pm status", t.sync, t.status)
row("pm sync, nothing to do / node -e 0", t.sync, t.node)
