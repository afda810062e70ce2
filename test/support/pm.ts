/**
 * Runs the bundled CLI (`dist/pm.js`) in a child process. The bundle is rebuilt once when any source is newer
 * than it; concurrent test files wait on a lock directory so only one build runs.
 */
import { execFile, execFileSync } from "node:child_process"
import { mkdirSync, rmdirSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { isFresh } from "./build.ts"
import { tempAgent } from "./tmp.ts"

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
export const pmPath = join(repoRoot, "dist", "pm.js")

const sleep = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/** Builds dist/ when missing or older than a source file. Safe to call from every test file. */
export const ensureBuilt = (): void => {
  // The check itself runs under the lock: a build in progress has already touched dist/pm.js.
  const lock = join(repoRoot, "dist", ".test-build.lock")
  mkdirSync(dirname(lock), { recursive: true })
  const deadline = Date.now() + 120_000
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      // A stale lock (a killed run) older than two minutes is taken over.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 120_000) rmdirSync(lock)
      } catch {
        // gone already
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`)
      sleep(100)
    }
  }
  try {
    if (!isFresh()) execFileSync(process.execPath, [join(repoRoot, "scripts", "build.mjs")], { cwd: repoRoot, stdio: "pipe" })
  } finally {
    rmdirSync(lock)
  }
}

export interface PmResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  readonly ms: number
}

export interface PmOptions {
  readonly cwd?: string
  readonly agentDir?: string
  readonly home?: string
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly timeoutMs?: number
}

const childEnv = (options: PmOptions): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" }
  // Never the real agent dir or home: a test that does not name them gets fresh temporary ones.
  const fresh = options.agentDir === undefined || options.home === undefined ? tempAgent() : undefined
  env["PI_CODING_AGENT_DIR"] = options.agentDir ?? fresh!.agentDir
  env["HOME"] = options.home ?? fresh!.home
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k]
    else env[k] = v
  }
  return env
}

/**
 * `node dist/pm.js ...args`, resolving with the exit code and both streams (never rejecting on a non-zero exit). Killed
 * after three minutes by default: a hang, not a slow machine (one `pm doctor` took over 30 s at load 30).
 */
export const runPm = (args: ReadonlyArray<string>, options: PmOptions = {}): Promise<PmResult> =>
  new Promise((resolvePromise, reject) => {
    const started = performance.now()
    execFile(
      process.execPath,
      [pmPath, ...args],
      { cwd: options.cwd ?? repoRoot, env: childEnv(options), timeout: options.timeoutMs ?? 180_000, encoding: "utf8", maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        const ms = performance.now() - started
        if (error && typeof error.code !== "number") return reject(Object.assign(error, { stdout, stderr }))
        resolvePromise({ code: error ? (error.code as number) : 0, stdout, stderr, ms })
      }
    )
  })
