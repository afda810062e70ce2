/**
 * The package installed as a user gets it, for tests and benches: `npm pack` of the current build, the tarball
 * installed into a fresh prefix with production dependencies only, and Pi (the version the dev dependencies pin)
 * installed into a prefix of its own. Needs the npm registry or npm's cache.
 *
 * Shared between runs (the installs took two minutes of a loaded machine on every run): Pi's prefix is installed once
 * per Pi version and Node major into a cache folder and used from there (nothing writes into it); the package's
 * prefix starts as a copy of one where an earlier tarball with the same dependencies was installed, and the current
 * tarball is then installed into it by `npm install`, as before. The cache is $PM_TEST_CACHE, else
 * ~/.cache/pi-project-memory/test-installs; an entry is made in a temporary folder and renamed into place.
 */
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs"
import { rm } from "node:fs/promises"
import { homedir, tmpdir } from "node:os"
import { delimiter, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/** This checkout (computed here, not taken from ./pm.ts, so that benches can import this file outside vitest). */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..")

export interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/**
 * A child process, awaited without blocking the caller's event loop (a test worker must keep answering its RPC). Its
 * standard input is closed: `pi -p` reads a piped stdin into the prompt and would wait for it forever.
 */
export const run = (
  file: string,
  args: ReadonlyArray<string>,
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}
): Promise<Ran> =>
  new Promise<Ran>((resolve) => {
    const child = spawn(file, [...args], {
      cwd: options.cwd ?? repoRoot,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: options.timeoutMs ?? 180_000,
      killSignal: "SIGKILL"
    })
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    child.stdout.on("data", (b: Buffer) => out.push(b))
    child.stderr.on("data", (b: Buffer) => err.push(b))
    child.on("error", (e) => err.push(Buffer.from(String(e))))
    child.on("close", (code, signal) =>
      resolve({
        code: code ?? 128,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8") + (signal === null ? "" : `\n(killed by ${signal})`)
      }))
  })

const npm = async (args: ReadonlyArray<string>, cwd: string): Promise<string> => {
  const r = await run("npm", ["--no-audit", "--no-fund", "--loglevel=error", ...args], { cwd, timeoutMs: 600_000 })
  if (r.code !== 0) throw new Error(`npm ${args.join(" ")} failed (${r.code}):\n${r.stderr}`)
  return r.stdout
}

export const PI_VERSION = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  devDependencies: Record<string, string>
}).devDependencies["@earendil-works/pi-coding-agent"]!

export interface PackagedInstall {
  /** Pi's own prefix and its `pi` command. */
  readonly piPrefix: string
  readonly piBin: string
  /** The prefix holding the tarball's install, the package folder in it, and its `pm`. */
  readonly pkgPrefix: string
  readonly installed: string
  readonly pm: string
}

const cacheRoot = (): string => process.env["PM_TEST_CACHE"] ?? join(homedir(), ".cache", "pi-project-memory", "test-installs")
const nodeMajor = process.versions.node.split(".")[0]

/**
 * The cache entry `name`, made by `make` (into the folder it is given) when missing. Made in a temporary folder and
 * renamed into place, so a reader never sees half an install; when another run made it first, that one is kept.
 */
const cached = async (name: string, make: (dir: string) => Promise<void>): Promise<string> => {
  const dir = join(cacheRoot(), name)
  if (existsSync(join(dir, ".complete"))) return dir
  mkdirSync(cacheRoot(), { recursive: true })
  const tmp = `${dir}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  await make(tmp)
  await run("sh", ["-c", 'touch "$1/.complete"', "sh", tmp])
  try {
    renameSync(tmp, dir)
  } catch {
    await rm(tmp, { recursive: true, force: true }) // another run renamed its own first
  }
  return dir
}

/** Pi (the version the dev dependencies pin) installed into a prefix of its own, once per cache: its `pi` command. */
export const installedPi = async (): Promise<{ readonly piPrefix: string; readonly piBin: string }> => {
  const piPrefix = await cached(`pi-${PI_VERSION}-node${nodeMajor}`, async (dir) => {
    await npm(["install", "--prefix", dir, "--prefer-offline", `@earendil-works/pi-coding-agent@${PI_VERSION}`], tmpdir())
  })
  return { piPrefix, piBin: join(piPrefix, "node_modules", ".bin", "pi") }
}

/** `npm pack` of the current build (it must be built) into `dest`: the tarball's path. */
export const packTarball = async (dest: string): Promise<string> =>
  join(dest, (await npm(["pack", "--ignore-scripts", "--pack-destination", dest], repoRoot)).trim().split("\n").at(-1)!)

/** Packs the current build (it must be built) and makes both installs under `base`. */
export const preparePackagedInstall = async (base: string): Promise<PackagedInstall> => {
  const pkgPrefix = join(base, "pkg")
  const packed = await packTarball(base)
  const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { dependencies: Record<string, string> }
  const depsKey = createHash("sha256").update(JSON.stringify(manifest.dependencies)).digest("hex").slice(0, 16)
  const [{ piPrefix }, depsPrefix] = await Promise.all([
    installedPi(),
    cached(`package-deps-${depsKey}-node${nodeMajor}`, async (dir) => {
      await npm(["install", "--prefix", dir, "--prefer-offline", "--omit=dev", packed], base)
    })
  ])
  // A copy of the prefix holding an earlier tarball with the same dependencies; npm replaces the package with this one.
  const copied = await run("cp", ["-a", depsPrefix, pkgPrefix])
  if (copied.code !== 0) throw new Error(`cp -a ${depsPrefix} ${pkgPrefix} failed: ${copied.stderr}`)
  await rm(join(pkgPrefix, ".complete"), { force: true })
  await npm(["install", "--prefix", pkgPrefix, "--prefer-offline", "--omit=dev", packed], base)
  return {
    piPrefix,
    piBin: join(piPrefix, "node_modules", ".bin", "pi"),
    pkgPrefix,
    installed: join(pkgPrefix, "node_modules", "pi-project-memory"),
    pm: join(pkgPrefix, "node_modules", ".bin", "pm")
  }
}

/**
 * The environment of a user's shell: this Node first, the given Pi on PATH when asked, and none of the `pi`
 * commands that npm and npx put on PATH from the checkout's node_modules/.bin, nor the `npm_*` variables they set
 * (npx's `npm_config_loglevel=error` would silence the warnings of an npm that Pi runs, and `npm_config_userconfig`
 * would read this machine's settings instead of the home's).
 */
export const userEnv = (
  install: { readonly piBin: string },
  dirs: { readonly agentDir: string; readonly home: string },
  withPi: boolean,
  extra: NodeJS.ProcessEnv = {}
): NodeJS.ProcessEnv => {
  const { NODE_OPTIONS: _n, ...all } = process.env
  const rest = Object.fromEntries(Object.entries(all).filter(([name]) => !/^npm_/i.test(name)))
  const system = (process.env["PATH"] ?? "").split(delimiter).filter((d) => d !== "" && !existsSync(join(d, "pi")))
  const path = [dirname(process.execPath), ...(withPi ? [dirname(install.piBin)] : []), ...system]
  return { ...rest, HOME: dirs.home, PI_CODING_AGENT_DIR: dirs.agentDir, PI_OFFLINE: "1", PATH: path.join(delimiter), ...extra }
}
