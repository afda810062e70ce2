/**
 * `pm` cold start, each command as a whole new process, against `node -e 0` measured in the same run:
 *   node bench/cli.ts [runs]      (builds dist/ when missing)
 * Two figures per row: wall time, and CPU time (user + system, from bash's `time`, which reads the child's resource
 * usage). On a busy machine the wall ratio wanders with the load; the CPU ratio much less, so both are printed.
 * Runs are interleaved (one of each row per round, the order reversed every other round) so that a burst of load hits
 * every row alike and no row always runs first. Each row's ratio is shown two ways: the ratio of its median to the
 * baseline's median, and the median of the per-round ratios (each round's row against that round's baseline).
 * `pm status` runs in a project whose memory and agent folder hold the 1,000 topics' fixture and a settings.json
 * naming another npm package (the Pi check reads it), so its figure is that of a used install.
 * Two floors, built and loaded as pm's bundle is: importing the effect runtime and @effect/cli with nothing of pm's
 * own, and a one-command @effect/cli program answering --help (what the CLI library costs to run at all).
 */
import { build } from "esbuild"
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { median, topicFixture } from "./_support.ts"

const ROOT = join(fileURLToPath(import.meta.url), "..", "..")
const PM = join(ROOT, "dist", "pm.js")
const RUNS = Number(process.argv[2] ?? 15)

/** Runs `node ...args` under bash's `time`; returns wall and CPU milliseconds. Exit 0 or 1 (problems found) pass. */
const timed = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, cwd: string): { wall: number; cpu: number } => {
  const quoted = [process.execPath, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ")
  const r = spawnSync("bash", ["-c", `TIMEFORMAT='%3R %3U %3S'; { time ${quoted} >/dev/null 2>/dev/null ; } 2>&1; s=$?; [ $s -le 1 ]`], {
    env,
    cwd,
    encoding: "utf8"
  })
  const [wall, user, sys] = r.stdout.trim().split(/\s+/).slice(-3).map(Number)
  if (r.status !== 0 || wall === undefined || Number.isNaN(wall)) throw new Error(`node ${args.join(" ")}: ${r.stdout}${r.stderr}`)
  return { wall: wall * 1000, cpu: (user! + sys!) * 1000 }
}

/** `<name>.mjs`: turns the compile cache on and imports `<name>-body.mjs`, the given source bundled and minified. */
const floorProgram = async (base: string, name: string, source: ReadonlyArray<string>): Promise<string> => {
  const entry = join(base, `${name}.mjs`)
  writeFileSync(entry, `import * as Module from "node:module"\nModule.enableCompileCache()\nawait import("./${name}-body.mjs")\n`)
  await build({
    stdin: { contents: source.join("\n"), resolveDir: ROOT, loader: "ts" },
    bundle: true,
    minify: true,
    platform: "node",
    format: "esm",
    target: "node22",
    outfile: join(base, `${name}-body.mjs`),
    logLevel: "warning"
  })
  return entry
}

const main = async () => {
  if (!existsSync(PM)) execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs")], { stdio: "inherit" })
  const base = mkdtempSync(join(tmpdir(), "pm-bench-cli-"))
  try {
    const agentDir = join(base, "agent")
    const project = join(base, "project")
    mkdirSync(agentDir)
    mkdirSync(project)
    // The floors: bundles built as pm's is, each loaded as pm's launcher loads its bundle (compile cache on, then a
    // dynamic import). The first holds the modules every command evaluates before pm's own code runs; the second is
    // the smallest @effect/cli program, over pm's own CLI platform context.
    const floor = await floorProgram(base, "floor", [
      `import * as Effect from "effect/Effect"`,
      `import * as Command from "@effect/cli/Command"`,
      `console.log(typeof Effect.runPromise, typeof Command.run)`
    ])
    const app = await floorProgram(base, "app", [
      `import * as Command from "@effect/cli/Command"`,
      `import * as CliConfig from "@effect/cli/CliConfig"`,
      `import * as Options from "@effect/cli/Options"`,
      `import * as Console from "effect/Console"`,
      `import * as Effect from "effect/Effect"`,
      `import * as Context from "effect/Context"`,
      `import { cliPlatformContext } from "./cli/platform.ts"`,
      `const scan = Command.make("scan", { json: Options.boolean("json") }, ({ json }) => Console.log(json))`,
      `const cli = Command.run(Command.make("app").pipe(Command.withSubcommands([scan])), { name: "app", version: "1.0.0" })`,
      `Effect.runPromise(cli(process.argv).pipe(Effect.provide(Context.add(cliPlatformContext, CliConfig.CliConfig, CliConfig.make({ showBuiltIns: false })))))`
    ])
    const env = { ...process.env, PI_CODING_AGENT_DIR: agentDir, NO_COLOR: "1" }
    const dirs = { 200: topicFixture(base, 200), 1000: topicFixture(base, 1000) }
    execFileSync("git", ["init", "-q"], { cwd: project })
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ packages: ["npm:some-other-pi-package"] }))
    const rows: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ["node -e 0", ["-e", "0"]],
      ["floor: import effect + @effect/cli", [floor]],
      ["floor: one-command @effect/cli --help", [app, "--help"]],
      ["pm --help", [PM, "--help"]],
      ["pm --version", [PM, "--version"]],
      ["pm project --json", [PM, "project", "--json", "--cwd", project]],
      ["pm scan --json, 200 topics", [PM, "scan", "--json", "--memory-dir", dirs[200]]],
      ["pm scan --json, 1,000 topics", [PM, "scan", "--json", "--memory-dir", dirs[1000]]],
      ["pm lint --json, 200 topics", [PM, "lint", "--json", "--memory-dir", dirs[200]]],
      ["pm list, 1,000 topics", [PM, "list", "--memory-dir", dirs[1000]]],
      ["pm search, 1,000 topics", [PM, "search", "--memory-dir", dirs[1000], "topic", "covers"]],
      ["pm status, 1,000 topics", [PM, "status", "--cwd", project, "--memory-dir", dirs[1000]]],
      ["pm doctor, 200 topics", [PM, "doctor", "--cwd", project, "--memory-dir", dirs[200]]],
      ["pm bash-check 'ls -la'", [PM, "bash-check", "ls -la", "--cwd", project]]
    ]
    const samples = rows.map(() => ({ wall: [] as Array<number>, cpu: [] as Array<number> }))
    // One untimed round: the compile cache and the page cache are warm, as for a user's second command.
    for (const [, args] of rows) timed(args, env, project)
    for (let run = 0; run < RUNS; run++) {
      const order = rows.map((_, i) => i)
      if (run % 2 === 1) order.reverse()
      for (const i of order) {
        const t = timed(rows[i]![1], env, project)
        samples[i]!.wall.push(t.wall)
        samples[i]!.cpu.push(t.cpu)
      }
    }
    const baseWall = median(samples[0]!.wall)
    const baseCpu = median(samples[0]!.cpu)
    const w = Math.max(...rows.map(([name]) => name.length))
    const ms = (x: number) => `${x.toFixed(1)} ms`.padStart(9)
    console.log(`node ${process.version}, ${RUNS} interleaved rounds; medians; ratios to node -e 0 of the same run`)
    console.log("ratio: of medians; paired: the median of the per-round ratios")
    console.log(`${"command".padEnd(w)}  ${"wall".padStart(9)}  ratio  paired  ${"cpu".padStart(9)}  ratio  paired`)
    const paired = (xs: ReadonlyArray<number>, base: ReadonlyArray<number>): string => `${median(xs.map((x, r) => x / base[r]!)).toFixed(2)}x`.padStart(6)
    rows.forEach(([name], i) => {
      const s = samples[i]!
      const wall = median(s.wall)
      const cpu = median(s.cpu)
      console.log(
        `${name.padEnd(w)}  ${ms(wall)}  ${(wall / baseWall).toFixed(2)}x  ${paired(s.wall, samples[0]!.wall)}  ${ms(cpu)}  ${(cpu / baseCpu).toFixed(2)}x  ${paired(s.cpu, samples[0]!.cpu)}`
      )
    })
    // pm scan against the one-command @effect/cli program, paired per round.
    const scanRow = rows.findIndex(([name]) => name.startsWith("pm scan --json, 200"))
    const appRow = rows.findIndex(([name]) => name.startsWith("floor: one-command"))
    console.log(
      `pm scan (200 topics) / one-command @effect/cli program: wall ${(median(samples[scanRow]!.wall) / median(samples[appRow]!.wall)).toFixed(2)}x (paired ${paired(samples[scanRow]!.wall, samples[appRow]!.wall).trim()}), cpu ${(median(samples[scanRow]!.cpu) / median(samples[appRow]!.cpu)).toFixed(2)}x (paired ${paired(samples[scanRow]!.cpu, samples[appRow]!.cpu).trim()})`
    )
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
}

await main()
