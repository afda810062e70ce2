/**
 * What the allow-list costs in a large project: before every sandboxed command the scope's trees are searched for
 * protected files (at most PROTECTED_SEARCH_LIMIT entries; the rest is hidden whole). One command (`ls`, which reads
 * next to nothing) run inside the sandbox against the same command run by Pi's local shell, in projects of growing
 * size, paired per round in the same run (the tool path: a task's searches keep what they learned of unchanged
 * folders); and the search alone, the first of a task and a later one. Folders are made over two seconds before the
 * measure, as a project's are, since one changed within RACY_MS is read every time.
 *   node bench/bigTree.ts [rounds]
 *
 * The files are hard links of a few files, so a tree of 150,000 entries is made in seconds.
 */
import * as pi from "@earendil-works/pi-coding-agent"
import { linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { makeSandboxedTools } from "../layers/background/tools/sandboxed.ts"
import { loadReadScope } from "../layers/safety/readScopeLoad.ts"
import { makeProtectedSearchCache, PROTECTED_SEARCH_LIMIT, protectedFilesIn } from "../layers/safety/protectedSearch.ts"
import { defaultSandbox } from "../layers/safety/Sandbox.ts"
import type { ProtectionOptions } from "../src/safety/protectedPaths.ts"
import { median } from "./_support.ts"

const ROUNDS = Number(process.argv[2] ?? 9)
const base = mkdtempSync(join(tmpdir(), "pm-bench-bigtree-"))
const memoryDir = join(base, "memory")
mkdirSync(memoryDir)
/** One file to link per 50,000 names (a file system allows about 65,000 links to one file). */
const seedFor = (i: number): string => {
  const seed = join(base, `seed${Math.floor(i / 50_000)}.txt`)
  if (i % 50_000 === 0) writeFileSync(seed, "vendored text\n")
  return seed
}

const makeProject = (files: number): string => {
  const project = join(base, `p${files}`)
  for (let i = 0; i < files; i++) {
    const dir = join(project, "vendor", `d${Math.floor(i / 1000)}`)
    if (i % 1000 === 0) mkdirSync(dir, { recursive: true })
    linkSync(seedFor(i), join(dir, i % 1000 === 500 ? ".env" : `f${i}.txt`))
  }
  mkdirSync(join(project, ".git"), { recursive: true })
  const old = new Date(Date.now() - 60_000)
  for (const dir of [project, join(project, "vendor"), ...readdirSync(join(project, "vendor")).map((d) => join(project, "vendor", d))]) utimesSync(dir, old, old)
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
console.log("project files   local ls    sandboxed ls   ratio (paired)   search, first   search, again   hidden folders")
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
  const c: Array<number> = []
  const ratios: Array<number> = []
  let hidden = 0
  for (let i = 0; i < ROUNDS; i++) {
    const x = await time(run(local))
    const y = await time(run(sandboxed))
    s.push(await time(async () => void (hidden = (await protectedFilesIn(scope.trees, protection)).unchecked.length)))
    const cache = makeProtectedSearchCache()
    await protectedFilesIn(scope.trees, protection, undefined, cache)
    c.push(await time(() => protectedFilesIn(scope.trees, protection, undefined, cache)))
    a.push(x)
    b.push(y)
    ratios.push(y / x)
  }
  await tools.close()
  const ms = (v: number) => `${v.toFixed(1)} ms`.padStart(11)
  console.log(`${String(files).padStart(13)} ${ms(median(a))} ${ms(median(b))}   ${`${median(ratios).toFixed(2)}x`.padStart(12)}   ${ms(median(s))}     ${ms(median(c))}   ${String(hidden).padStart(14)}`)
  rmSync(project, { recursive: true, force: true })
}
rmSync(base, { recursive: true, force: true })
