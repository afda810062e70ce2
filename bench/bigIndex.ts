/**
 * `pm remember` and `pm forget` (whole dist/pm.js processes) against the size of MEMORY.md: a small index (100 lines,
 * 10 KB) and a 50 MB one (500,000 lines), each command rewriting the whole file as bytes. Rounds are interleaved (one
 * remember and one forget on each project per round); medians, and the big index's time as a ratio of the small
 * one's in the same run. `node bench/bigIndex.ts [rounds]` (build dist/ first).
 */
import { execFile, execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { median } from "./_support.ts"

const pm = resolve(import.meta.dirname, "..", "dist", "pm.js")
const rounds = Number(process.argv[2] ?? "5")
const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-bench-bigindex-")))

const indexOf = (lines: number): string => {
  const out: Array<string> = []
  for (let i = 0; i < lines; i++) out.push(`- [Topic number ${i}](t${i}.md) - a hook long enough to make each line near a hundred bytes, ${i}\n`)
  return out.join("")
}

const projectWith = (name: string, lines: number) => {
  const repo = join(base, name)
  mkdirSync(repo, { recursive: true })
  execFileSync("git", ["init", "-q"], { cwd: repo })
  const env = { ...process.env, PI_CODING_AGENT_DIR: join(base, `agent-${name}`), HOME: base, NO_COLOR: "1" }
  const p = JSON.parse(execFileSync(process.execPath, [pm, "project", "--json", "--cwd", repo], { env, encoding: "utf8" }))
  mkdirSync(p.memoryDir, { recursive: true })
  writeFileSync(join(p.memoryDir, "MEMORY.md"), indexOf(lines))
  return { name, repo, env, bytes: statSync(join(p.memoryDir, "MEMORY.md")).size }
}

const run = (p: ReturnType<typeof projectWith>, args: ReadonlyArray<string>) =>
  new Promise<number>((done, fail) => {
    const t = performance.now()
    execFile(process.execPath, [pm, ...args, "--cwd", p.repo], { env: p.env, encoding: "utf8", maxBuffer: 1 << 20 }, (e, _out, stderr) =>
      e ? fail(new Error(`${args.join(" ")}: ${stderr}`)) : done(performance.now() - t))
  })

const projects = [projectWith("small", 100), projectWith("big", 500_000)]
const times = new Map(projects.map((p) => [p.name, { remember: [] as Array<number>, forget: [] as Array<number> }]))
for (let r = 0; r < rounds; r++) {
  for (const p of projects) {
    const fact = `bench fact number ${r}`
    times.get(p.name)!.remember.push(await run(p, ["remember", fact]))
    times.get(p.name)!.forget.push(await run(p, ["forget", `bench-fact-number-${r}`]))
  }
}

const small = times.get("small")!
console.log(`${rounds} rounds, medians (ms); ratio = big index / small index, same run`)
console.log("index            bytes        remember   forget   remember ratio  forget ratio")
for (const p of projects) {
  const t = times.get(p.name)!
  const rem = median(t.remember)
  const fog = median(t.forget)
  console.log(
    `${p.name.padEnd(16)} ${String(p.bytes).padStart(10)}  ${rem.toFixed(0).padStart(9)} ${fog.toFixed(0).padStart(8)}` +
      `   ${(rem / median(small.remember)).toFixed(2).padStart(12)}x ${(fog / median(small.forget)).toFixed(2).padStart(11)}x`
  )
}
rmSync(base, { recursive: true, force: true })
