/**
 * What the allow-list costs in a large project: before every sandboxed command the scope's trees are searched for
 * protected files (at most PROTECTED_SEARCH_LIMIT entries; the rest is hidden whole). One command (`ls`, which reads
 * next to nothing) run inside the sandbox against the same command run by Pi's local shell, in projects of growing
 * size, paired per round in the same run; and the search alone.
 *   node bench/bigTree.ts [rounds]
 *
 * The files are hard links of one file, so a tree of 150,000 entries is made in seconds.
 */
import * as pi from "@earendil-works/pi-coding-agent"
import { linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { makeSandboxedTools } from "../layers/background/tools/sandboxed.ts"
import { loadReadScope } from "../layers/safety/readScopeLoad.ts"
import { defaultSandbox, PROTECTED_SEARCH_LIMIT, protectedFilesIn } from "../layers/safety/Sandbox.ts"
import type { ProtectionOptions } from "../src/safety/protectedPaths.ts"
import { median } from "./_support.ts"

const ROUNDS = Number(process.argv[2] ?? 9)
const base = mkdtempSync(join(tmpdir(), "pm-bench-bigtree-"))
const memoryDir = join(base, "memory")
mkdirSync(memoryDir)
const seed = join(base, "seed.txt")
writeFileSync(seed, "vendored text\n")

const makeProject = (files: number): string => {
  const project = join(base, `p${files}`)
  for (let i = 0; i < files; i++) {
    const dir = join(project, "vendor", `d${Math.floor(i / 1000)}`)
    if (i % 1000 === 0) mkdirSync(dir, { recursive: true })
    linkSync(seed, join(dir, i % 500 === 0 ? ".env" : `f${i}.txt`))
  }
  mkdirSync(join(project, ".git"), { recursive: true })
  return project
}

const time = async (f: () => Promise<unknown>): Promise<number> => {
  const t = performance.now()
  await f()
  return performance.now() - t
}

const configured = { home: homedir(), agentDir: join(homedir(), ".pi", "agent"), exceptions: [], extraProtections: [] }
const local = pi.createLocalBashOperations()
console.log(`node ${process.version}, ${ROUNDS} rounds, medians; search limit ${PROTECTED_SEARCH_LIMIT} entries\n`)
console.log("project files   local ls    sandboxed ls   ratio (paired)   search alone   hidden folders")
for (const files of [100, 10_000, 52_000, 150_000]) {
  const project = makeProject(files)
  const scope = await loadReadScope({ cwd: project, memoryDir, home: configured.home, agentDir: configured.agentDir })
  const protection: ProtectionOptions = { ...configured, scope }
  const tools = await makeSandboxedTools({ sandbox: defaultSandbox(), pi, cwd: project, memoryDir, protection, whenUnavailable: "refuse" })
  if (tools.bashOperations === undefined) {
    console.log("sandbox unavailable")
    process.exit(1)
  }
  const sandboxed = tools.bashOperations
  const run = (ops: typeof local) => () => ops.exec("ls", project, { onData: () => undefined, env: process.env })
  await run(local)()
  await run(sandboxed)()
  const a: Array<number> = []
  const b: Array<number> = []
  const s: Array<number> = []
  const ratios: Array<number> = []
  let hidden = 0
  for (let i = 0; i < ROUNDS; i++) {
    const x = await time(run(local))
    const y = await time(run(sandboxed))
    s.push(await time(async () => void (hidden = (await protectedFilesIn(scope.trees, protection)).unchecked.length)))
    a.push(x)
    b.push(y)
    ratios.push(y / x)
  }
  await tools.close()
  const ms = (v: number) => `${v.toFixed(1)} ms`.padStart(11)
  console.log(`${String(files).padStart(13)} ${ms(median(a))} ${ms(median(b))}   ${`${median(ratios).toFixed(2)}x`.padStart(12)}   ${ms(median(s))}   ${String(hidden).padStart(14)}`)
  rmSync(project, { recursive: true, force: true })
}
rmSync(base, { recursive: true, force: true })
