/**
 * Read-path costs, each beside a bare baseline measured in the same run:
 *   node bench/scan.ts [runs]      (Node >= 22.18 runs the TypeScript directly; builds dist/pm.js when missing)
 * - cold: `node dist/pm.js scan --json --memory-dir X` end to end (200 and 1,000 topics) vs `node -e 0`;
 *   `pm --help` and `pm project --json` vs `node -e 0`.
 * - warm: `scanTopics` repeated in-process through the layer (one long-lived store, and a fresh store per run so
 *   no header is cached) vs a bare readdir + readFile of the same files.
 * - readIndex in-process on a 200-line MEMORY.md vs a bare readFile.
 * Figures are medians of N runs.
 */
import { Effect, Layer } from "effect"
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import * as fsp from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { FileSystem } from "../layers/FileSystem.ts"
import { MemoryStore } from "../layers/MemoryStore.ts"

const ROOT = join(fileURLToPath(import.meta.url), "..", "..")
const PM = join(ROOT, "dist", "pm.js")
const RUNS = Number(process.argv[2] ?? 15)

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

const timeSync = (f: () => void, runs = RUNS): number => {
  f() // one untimed run: file cache warm, lazy state settled
  const times: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    f()
    times.push(performance.now() - t)
  }
  return median(times)
}

const timeAsync = async (f: () => Promise<unknown>, runs = RUNS): Promise<number> => {
  await f()
  const times: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    await f()
    times.push(performance.now() - t)
  }
  return median(times)
}

const node = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => () => {
  const r = spawnSync(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] })
  if (r.status !== 0) throw new Error(`node ${args.join(" ")} exited ${r.status}: ${r.stderr}`)
}

/** A memory directory of `count` topics (about 600 bytes each, mixed types) with a matching MEMORY.md. */
const fixture = (base: string, count: number): string => {
  const dir = join(base, `mem-${count}`)
  mkdirSync(dir, { recursive: true })
  const types = ["user", "feedback", "project", "reference"]
  const now = Date.now()
  const index: Array<string> = []
  for (let i = 0; i < count; i++) {
    const name = `topic-n${String(i).padStart(4, "0")}.md`
    const body = `Details for topic ${i}. `.repeat(20)
    writeFileSync(
      join(dir, name),
      `---\nname: Topic ${i}\ndescription: What topic ${i} covers, in one line for the selector\nmetadata:\n  type: ${types[i % 4]}\n---\n${body}\n`
    )
    utimesSync(join(dir, name), (now - i * 60_000) / 1000, (now - i * 60_000) / 1000)
    if (i < 200) index.push(`- [Topic ${i}](${name}) - what topic ${i} covers`)
  }
  writeFileSync(join(dir, "MEMORY.md"), `${index.join("\n")}\n`)
  return dir
}

/** The bare equivalent of a scan: list the directory and read each topic whole. */
const bareScan = async (dir: string) => {
  const names = (await fsp.readdir(dir)).filter((n) => n.endsWith(".md") && n !== "MEMORY.md")
  const limit = 16
  let next = 0
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < names.length) await fsp.readFile(join(dir, names[next++]!))
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
    const dirs = { 200: fixture(base, 200), 1000: fixture(base, 1000) } as const
    const rows: Array<[string, number, string, number]> = []

    // Cold process.
    const nodeStart = timeSync(node(["-e", "0"], env))
    rows.push(["pm --help (cold start)", timeSync(node([PM, "--help"], env)), "node -e 0", nodeStart])
    rows.push(["pm project --json (cold)", timeSync(node([PM, "project", "--json", "--cwd", project], env)), "node -e 0", nodeStart])
    for (const n of [200, 1000] as const) {
      rows.push([`pm scan --json, ${n} topics (cold)`, timeSync(node([PM, "scan", "--json", "--memory-dir", dirs[n]], env)), "node -e 0", nodeStart])
    }

    // Warm, in process.
    const layer = MemoryStore.layer.pipe(Layer.provide(FileSystem.layer))
    const store = await Effect.runPromise(Effect.provide(MemoryStore, layer))
    const freshStore = () => Effect.runPromise(Effect.provide(MemoryStore, layer))
    for (const n of [200, 1000] as const) {
      const dir = dirs[n]
      const bare = await timeAsync(() => bareScan(dir))
      const scanned = await Effect.runPromise(store.scanTopics(dir))
      if (scanned.topics.length !== 200) throw new Error(`expected 200 topics, got ${scanned.topics.length}`)
      rows.push([`scanTopics, ${n} topics (warm, same store)`, await timeAsync(() => Effect.runPromise(store.scanTopics(dir))), "readdir+readFile", bare])
      rows.push([
        `scanTopics, ${n} topics (warm, fresh store)`,
        await timeAsync(async () => Effect.runPromise((await freshStore()).scanTopics(dir))),
        "readdir+readFile",
        bare
      ])
    }
    const indexDir = dirs[200]
    const bareIndex = await timeAsync(() => fsp.readFile(join(indexDir, "MEMORY.md"), "utf8"), RUNS * 20)
    rows.push(["readIndex, 200 lines (warm)", await timeAsync(() => Effect.runPromise(store.readIndex(indexDir)), RUNS * 20), "readFile MEMORY.md", bareIndex])

    const w0 = Math.max(...rows.map((r) => r[0].length))
    const w2 = Math.max(...rows.map((r) => r[2].length))
    const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 1)} ms`.padStart(10)
    console.log(`node ${process.version}, median of ${RUNS} runs (readIndex: ${RUNS * 20})`)
    console.log(`${"measurement".padEnd(w0)}  ${"median".padStart(10)}  ${"baseline".padEnd(w2)}  ${"median".padStart(10)}  ratio`)
    for (const [name, t, baseName, b] of rows) {
      console.log(`${name.padEnd(w0)}  ${ms(t)}  ${baseName.padEnd(w2)}  ${ms(b)}  ${(t / b).toFixed(2)}x`)
    }
    if (readdirSync(dirs[200]).some((n) => n.endsWith(".tmp"))) throw new Error("staging files left behind")
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
}

await main()
