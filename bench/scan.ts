/**
 * Read-path costs, each beside a yardstick measured in the same run:
 *   node bench/scan.ts [runs]      (Node >= 22.18 runs the TypeScript directly; builds dist/pm.js when missing)
 * - The yardstick for scans is a simple synchronous scanner (below, written as a person would in 20 lines):
 *   readdirSync, then statSync + readFileSync of every topic whole and a naive frontmatter split.
 * - cold: `node dist/pm.js scan --json --memory-dir X` end to end vs `node -e 0` (200 topics) and vs the simple
 *   scanner as its own process (1,000 topics); `pm --help` and `pm project --json` vs `node -e 0`.
 * - warm: `scanTopics` repeated in-process through the layer (one long-lived store with its header cache, and a
 *   new store per run, built untimed, so no header is cached) vs the simple scanner; a plain fs/promises scanner
 *   (16 at once) for reference.
 * - readIndex in-process on a 200-line MEMORY.md vs a bare readFile; lint of 200 topics beside the simple scanner.
 * Each figure is the median of N runs; each ratio is the median of N paired runs (measurement and yardstick
 * alternate), which holds up better than a ratio of medians when other work shares the machine.
 *
 * What bought what (2 cores shared, Node 22, ratios to the simple scanner): one fiber and thread-pool round trips
 * per file made the warm 200-topic scan 5.8x and a cacheless one 17x. Batches of plain synchronous calls (one
 * effect per batch, FileSystem.statMany / readDirectories / readHeads) brought them to ~0.55x and ~1.3x; a
 * callback pool of 16 instead measured ~3x the synchronous calls for the header reads and ~1.5x for the stats, and
 * the fs/promises scanner is ~7x. Reading 200 or fewer files without a stat pass first, and a fast path parse with
 * fewer regex runs, paid for most of the rest of the cacheless scan.
 */
import { Effect, Layer } from "effect"
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import * as fsp from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { FileSystem } from "../layers/storage/FileSystem.ts"
import { MemoryStore } from "../layers/memory/MemoryStore.ts"
import { median, topicFixture } from "./_support.ts"

const ROOT = join(fileURLToPath(import.meta.url), "..", "..")
const PM = join(ROOT, "dist", "pm.js")
const RUNS = Number(process.argv[2] ?? 15)

interface Paired {
  readonly t: number
  readonly base: number
  readonly ratio: number
}

/**
 * Runs `f` and its yardstick `g` alternately (one untimed round first): medians of each and of the per-pair ratios.
 * `prepare`, when given, runs untimed before each run of `f` and hands it its input.
 */
const paired = async <P = undefined>(f: (prepared: P) => unknown, g: () => unknown, runs = RUNS, prepare?: () => Promise<P>): Promise<Paired> => {
  const input = async () => (prepare === undefined ? (undefined as P) : await prepare())
  await f(await input())
  await g()
  const ts: Array<number> = []
  const bs: Array<number> = []
  const rs: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const first = i % 2 === 0
    let tf = 0
    let tg = 0
    for (const which of first ? [0, 1] : [1, 0]) {
      const prepared = which === 0 ? await input() : undefined
      const t = performance.now()
      await (which === 0 ? f(prepared as P) : g())
      if (which === 0) tf = performance.now() - t
      else tg = performance.now() - t
    }
    ts.push(tf)
    bs.push(tg)
    rs.push(tf / tg)
  }
  return { t: median(ts), base: median(bs), ratio: median(rs) }
}

const node = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => () => {
  const r = spawnSync(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] })
  if (r.status !== 0) throw new Error(`node ${args.join(" ")} exited ${r.status}: ${r.stderr}`)
}

/**
 * The yardstick: a simple synchronous scanner, as its own module so the same code also runs as its own process.
 * It reads every topic whole and keeps the 200 newest; no caps, no hostile-file care.
 */
const SIMPLE_SCANNER = `import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
export const simpleScan = (dir) => {
  const topics = []
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".md") || name === "MEMORY.md") continue
    const path = join(dir, name)
    const st = statSync(path)
    if (!st.isFile()) continue
    const text = readFileSync(path, "utf8")
    const header = {}
    const end = text.startsWith("---\\n") ? text.indexOf("\\n---", 3) : -1
    for (const line of end === -1 ? [] : text.slice(4, end).split("\\n")) {
      const colon = line.indexOf(":")
      if (colon > 0) header[line.slice(0, colon).trim()] = line.slice(colon + 1).trim()
    }
    topics.push({ filename: name, mtimeMs: st.mtimeMs, name: header.name, description: header.description, type: header.type })
  }
  return topics.sort((a, b) => b.mtimeMs - a.mtimeMs).slice(0, 200)
}
if (import.meta.url === pathToFileURL(process.argv[1]).href) process.stdout.write(JSON.stringify(simpleScan(process.argv[2])))
`

/** A plain fs/promises scanner (16 reads at once) doing the same work, for reference. */
const promiseScan = async (dir: string) => {
  const names = (await fsp.readdir(dir)).filter((n) => n.endsWith(".md") && n !== "MEMORY.md")
  let next = 0
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < names.length) {
        const path = join(dir, names[next++]!)
        await fsp.stat(path)
        await fsp.readFile(path, "utf8")
      }
    })
  )
}

const main = async () => {
  if (!existsSync(PM)) execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs")], { stdio: "inherit" })
  const base = mkdtempSync(join(tmpdir(), "pm-bench-scan-"))
  try {
    const agentDir = join(base, "agent")
    const project = join(base, "project")
    mkdirSync(agentDir)
    mkdirSync(project)
    const env = { ...process.env, PI_CODING_AGENT_DIR: agentDir, NO_COLOR: "1" }
    const dirs = { 200: topicFixture(base, 200), 1000: topicFixture(base, 1000) } as const
    const scannerFile = join(base, "simple-scan.mjs")
    writeFileSync(scannerFile, SIMPLE_SCANNER)
    const { simpleScan } = (await import(pathToFileURL(scannerFile).href)) as { simpleScan: (dir: string) => ReadonlyArray<unknown> }
    if (simpleScan(dirs[1000]).length !== 200) throw new Error("the simple scanner did not find 200 topics")
    const rows: Array<{ name: string; base: string; p: Paired; goal?: number }> = []
    const row = async <P = undefined>(name: string, f: (prepared: P) => unknown, base: string, g: () => unknown, goal?: number, runs = RUNS, prepare?: () => Promise<P>) =>
      rows.push({ name, base, p: await paired(f, g, runs, prepare), ...(goal === undefined ? {} : { goal }) })

    // Cold process.
    const nodeStart = node(["-e", "0"], env)
    await row("pm --help (cold start)", node([PM, "--help"], env), "node -e 0", nodeStart, 3)
    await row("pm project --json (cold)", node([PM, "project", "--json", "--cwd", project], env), "node -e 0", nodeStart)
    await row("pm scan --json, 200 topics (cold)", node([PM, "scan", "--json", "--memory-dir", dirs[200]], env), "node -e 0", nodeStart, 4)
    await row("simple scanner process, 1,000 topics", node([scannerFile, dirs[1000]], env), "node -e 0", nodeStart)
    await row("pm scan --json, 1,000 topics (cold)", node([PM, "scan", "--json", "--memory-dir", dirs[1000]], env), "simple scanner process", node([scannerFile, dirs[1000]], env), 1)

    // Warm, in process.
    const layer = MemoryStore.layer.pipe(Layer.provide(FileSystem.layer))
    const store = await Effect.runPromise(Effect.provide(MemoryStore, layer))
    const freshStore = () => Effect.runPromise(Effect.provide(MemoryStore, layer))
    for (const n of [200, 1000] as const) {
      const dir = dirs[n]
      const scanned = await Effect.runPromise(store.scanTopics(dir))
      if (scanned.topics.length !== 200) throw new Error(`expected 200 topics, got ${scanned.topics.length}`)
      const simple = () => simpleScan(dir)
      await row(`scanTopics, ${n} topics (warm, same store)`, () => Effect.runPromise(store.scanTopics(dir)), "simple sync scanner", simple, n === 200 ? 1 : 0.5, RUNS * 4)
      // A new store per run, built untimed (its cost is the row below): the first scan of a store, no header cached.
      await row(
        `scanTopics, ${n} topics (new store, no cache)`,
        (fresh: MemoryStore["Type"]) => Effect.runPromise(fresh.scanTopics(dir)),
        "simple sync scanner",
        simple,
        2,
        RUNS * 4,
        freshStore
      )
      await row(`fs/promises scanner, ${n} topics`, () => promiseScan(dir), "simple sync scanner", simple, undefined, RUNS * 4)
    }
    await row("lint, 200 topics (warm)", () => Effect.runPromise(store.lint(dirs[200])), "simple sync scanner, 200", () => simpleScan(dirs[200]), undefined, RUNS * 2)
    await row("build a store (Effect layer)", freshStore, "simple sync scanner, 200", () => simpleScan(dirs[200]), undefined, RUNS * 4)
    const indexDir = dirs[200]
    await row("readIndex, 200 lines (warm)", () => Effect.runPromise(store.readIndex(indexDir)), "readFile MEMORY.md", () => fsp.readFile(join(indexDir, "MEMORY.md"), "utf8"), undefined, RUNS * 20)

    const w0 = Math.max(...rows.map((r) => r.name.length))
    const w2 = Math.max(...rows.map((r) => r.base.length))
    const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 1)} ms`.padStart(10)
    console.log(`node ${process.version}, ${RUNS} paired runs (in-process scans: ${RUNS * 4}, readIndex: ${RUNS * 20}); ratio = median of paired ratios`)
    console.log(`${"measurement".padEnd(w0)}  ${"median".padStart(10)}  ${"yardstick".padEnd(w2)}  ${"median".padStart(10)}  ratio   goal`)
    for (const { name, base, p, goal } of rows) {
      const verdict = goal === undefined ? "" : `<= ${goal.toFixed(1)}x ${p.ratio <= goal ? "met" : "MISSED"}`
      console.log(`${name.padEnd(w0)}  ${ms(p.t)}  ${base.padEnd(w2)}  ${ms(p.base)}  ${`${p.ratio.toFixed(2)}x`.padStart(6)}  ${verdict}`)
    }
    if (readdirSync(dirs[200]).some((n) => n.endsWith(".tmp"))) throw new Error("staging files left behind")
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
}

await main()
