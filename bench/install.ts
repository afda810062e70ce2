/**
 * How long each install route takes, as a Pi user runs it, against the registry route in the same round:
 * - registry: `pi install npm:pi-project-memory` from a local registry (verdaccio) the packed package was published to;
 * - git: `pi install git:git://127.0.0.1:PORT/owner/pi-project-memory` (Pi clones HEAD, then `npm install --omit=dev`);
 * - tarball: `pi install npm:pi-project-memory@file:<tarball>`;
 * - checkout: `git clone` + `npm install --omit=dev` in it + `pi install <clone>` (production dependencies only).
 * Each into a fresh agent folder and home; npm's cache is shared and warmed first (a user who has installed before),
 * so the figures are the routes' own work, not the network's. Rounds interleave the routes.
 *
 * Run: node bench/install.ts [rounds]   (after npm run build; needs the npm registry for the local one's uplink)
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startGitDaemon } from "../test/support/gitDaemon.ts"
import { installedPi, packTarball, repoRoot, run, userEnv } from "../test/support/install.ts"
import { npmEnv, publish, startRegistry } from "../test/support/registry.ts"
import { median } from "./_support.ts"

const rounds = Number(process.argv[2] ?? 3)
const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-bench-install-")))
for (const d of ["registry", "publisher", "git/owner"]) mkdirSync(join(base, d), { recursive: true })
const cache = join(base, "npm-cache")

const pi = await installedPi()
const registry = await startRegistry(join(base, "registry"))
const tarball = await packTarball(base)
await publish(registry, tarball, join(base, "publisher"))
execFileSync("git", ["clone", "-q", "--bare", repoRoot, join(base, "git", "owner", "pi-project-memory.git")])
const daemon = await startGitDaemon(join(base, "git"))

let n = 0
const fresh = () => {
  const dir = join(base, `user-${n++}`)
  mkdirSync(join(dir, "agent"), { recursive: true })
  mkdirSync(join(dir, "home"), { recursive: true })
  const dirs = { agentDir: join(dir, "agent"), home: join(dir, "home") }
  const { PI_OFFLINE: _o, ...env } = { ...userEnv(pi, dirs, true), ...npmEnv(registry, cache) }
  return { dir, env }
}

const timed = async (steps: ReadonlyArray<readonly [string, ReadonlyArray<string>]>, cwd: string, env: NodeJS.ProcessEnv): Promise<number> => {
  const start = performance.now()
  for (const [file, args] of steps) {
    const r = await run(file, args, { cwd, env, timeoutMs: 600_000 })
    if (r.code !== 0) throw new Error(`${file} ${args.join(" ")} failed (${r.code}):\n${r.stdout}${r.stderr}`)
  }
  return performance.now() - start
}

const routes: Record<string, () => Promise<number>> = {
  registry: async () => {
    const u = fresh()
    return timed([[pi.piBin, ["install", "npm:pi-project-memory"]]], u.dir, u.env)
  },
  git: async () => {
    const u = fresh()
    return timed([[pi.piBin, ["install", `git:${daemon.url}owner/pi-project-memory`]]], u.dir, u.env)
  },
  tarball: async () => {
    const u = fresh()
    return timed([[pi.piBin, ["install", `npm:pi-project-memory@file:${tarball}`]]], u.dir, u.env)
  },
  checkout: async () => {
    const u = fresh()
    const clone = join(u.dir, "pi-project-memory")
    return timed(
      [
        ["git", ["clone", "-q", `${daemon.url}owner/pi-project-memory`, clone]],
        ["npm", ["install", "--prefix", clone, "--omit=dev", "--no-audit", "--no-fund"]],
        [pi.piBin, ["install", clone]]
      ],
      u.dir,
      u.env
    )
  }
}

try {
  // Warms npm's cache (and the local registry's copy of the dependencies through its uplink): shown, not paired.
  const cold = await routes["registry"]!()
  const times: Record<string, Array<number>> = Object.fromEntries(Object.keys(routes).map((k) => [k, []]))
  const ratios: Record<string, Array<number>> = Object.fromEntries(Object.keys(routes).map((k) => [k, []]))
  for (let round = 0; round < rounds; round++) {
    const thisRound: Record<string, number> = {}
    for (const [name, route] of Object.entries(routes)) thisRound[name] = await route()
    for (const name of Object.keys(routes)) {
      times[name]!.push(thisRound[name]!)
      ratios[name]!.push(thisRound[name]! / thisRound["registry"]!)
    }
  }
  console.log(`registry, npm's cache empty (a first install, dependencies through the uplink): ${cold.toFixed(0)} ms`)
  console.log(`install routes, ${rounds} interleaved rounds, medians (npm's cache warm)`)
  console.log(`${"route".padEnd(10)} ${"wall ms".padStart(8)} ${"vs registry".padStart(12)}`)
  for (const name of Object.keys(routes)) {
    console.log(`${name.padEnd(10)} ${median(times[name]!).toFixed(0).padStart(8)} ${`${median(ratios[name]!).toFixed(2)}x`.padStart(12)}`)
  }
} finally {
  await Promise.all([registry.close(), daemon.close()])
  rmSync(base, { recursive: true, force: true })
}
