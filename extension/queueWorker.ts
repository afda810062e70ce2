/**
 * Starts the background worker a one-shot run (print or json mode) leaves behind when it queued its extraction:
 * `pm extract --worker` as a detached process (this package's own dist/pm.js, found beside the extension's bundle,
 * run by the same Node), its output in the memory root's queue-worker.log, not waited for. At most one runs the
 * queue at a time: a worker that finds queue.lock busy leaves at once (cli/extract.ts). Nothing starts when the
 * script cannot be found or the process cannot be made; the job then waits in the queue for `pm extract` or the next
 * interactive session.
 */
import { spawn } from "node:child_process"
import { closeSync, existsSync, openSync, statSync, writeSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { QUEUE_WORKER_LOG, type WorkerHandOver, workerEnv, workerLogFlag } from "../src/background/queueWorker.ts"
import type { HandedOff } from "../layers/background/handOff.ts"

/** dist/pm.js as seen from a module at `moduleUrl`: beside it (the built bundle), or in ../dist (the sources). */
export const pmScriptFrom = (moduleUrl: string): string | undefined => {
  const dir = dirname(fileURLToPath(moduleUrl))
  return [join(dir, "pm.js"), join(dir, "..", "dist", "pm.js")].find((p) => existsSync(p))
}

const sizeOf = (path: string): number | undefined => {
  try {
    return statSync(path).size
  } catch {
    return undefined
  }
}

/**
 * Starts the worker for the queue `at` names, handing it this Pi and its session folder (`over`); returns its pid,
 * or undefined when none could start.
 */
export const startQueueWorker = (at: HandedOff, over: WorkerHandOver = {}): number | undefined => {
  const script = pmScriptFrom(import.meta.url)
  if (script === undefined) return undefined
  const logPath = join(at.memoryRootDir, QUEUE_WORKER_LOG)
  let log: number | undefined
  try {
    log = openSync(logPath, workerLogFlag(sizeOf(logPath)), 0o600)
  } catch {
    log = undefined
  }
  try {
    const out = log ?? "ignore"
    const child = spawn(process.execPath, [script, "extract", "--worker", "--cwd", at.cwd], {
      cwd: at.cwd,
      detached: true,
      stdio: ["ignore", out, out],
      env: { ...process.env, ...workerEnv(over), NO_COLOR: "1" }
    })
    // A failure to start is told by this event, after the call: the job stays queued, and the run ends as it would.
    child.on("error", () => undefined)
    child.unref()
    if (log !== undefined && child.pid !== undefined) {
      writeSync(log, `${new Date().toISOString()} worker ${child.pid} started for ${at.cwd}\n`)
    }
    return child.pid
  } catch {
    return undefined
  } finally {
    if (log !== undefined) closeSync(log)
  }
}
