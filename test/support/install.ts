/**
 * The package installed as a user gets it, for tests and benches: `npm pack` of the current build, the tarball
 * installed into a fresh prefix with production dependencies only, and Pi (the version the dev dependencies pin)
 * installed into a prefix of its own. Needs the npm registry or npm's cache.
 */
import { spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
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

/** Packs the current build (it must be built) and makes both installs under `base`. */
export const preparePackagedInstall = async (base: string): Promise<PackagedInstall> => {
  const piPrefix = join(base, "pi")
  const pkgPrefix = join(base, "pkg")
  // The build is current; packing must not run `prepare` again.
  const packed = (await npm(["pack", "--ignore-scripts", "--pack-destination", base], repoRoot)).trim().split("\n").at(-1)!
  await Promise.all([
    npm(["install", "--prefix", piPrefix, "--prefer-offline", `@earendil-works/pi-coding-agent@${PI_VERSION}`], base),
    npm(["install", "--prefix", pkgPrefix, "--prefer-offline", "--omit=dev", join(base, packed)], base)
  ])
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
 * commands that npm and npx put on PATH from the checkout's node_modules/.bin.
 */
export const userEnv = (
  install: PackagedInstall,
  dirs: { readonly agentDir: string; readonly home: string },
  withPi: boolean,
  extra: NodeJS.ProcessEnv = {}
): NodeJS.ProcessEnv => {
  const { NODE_OPTIONS: _n, ...rest } = process.env
  const system = (process.env["PATH"] ?? "").split(delimiter).filter((d) => d !== "" && !existsSync(join(d, "pi")))
  const path = [dirname(process.execPath), ...(withPi ? [dirname(install.piBin)] : []), ...system]
  return { ...rest, HOME: dirs.home, PI_CODING_AGENT_DIR: dirs.agentDir, PI_OFFLINE: "1", PATH: path.join(delimiter), ...extra }
}
