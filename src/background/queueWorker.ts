/**
 * The background worker's rules (pure). A one-shot Pi run (print or json mode) ends with its answer: it does not wait
 * for its own extraction but hands it to the project's queue at once and starts a detached `pm extract --worker`,
 * unless the environment turns the worker off (PM_QUEUE_WORKER=0). With the worker off, a one-shot run waits for its
 * extraction as any session does. The worker runs the queue in passes until a pass leaves no job it has not tried,
 * within QUEUE_WORKER_MAX_MS (src/limits.ts). Then it checks the dream as a settled turn would, so a person who only
 * ever runs one-shot sessions still has memory consolidated: the run that starts it names Pi's session folder for the
 * project (where the dream counts and reads sessions) and the Pi it runs in (so the worker uses that Pi, on PATH or
 * not), in the worker's environment.
 */
import { QUEUE_WORKER_LOG_MAX_BYTES, QUEUE_WORKER_MAX_MS } from "../limits.ts"

/** The environment variable that turns the worker off ("0"); anything else, or nothing, leaves it on. */
export const QUEUE_WORKER_ENV = "PM_QUEUE_WORKER"

/** Where the worker writes what it does, in the memory root (beside queue/, never in it). */
export const QUEUE_WORKER_LOG = "queue-worker.log"

/** What the lock files say holds them while the worker runs the queue. */
export const QUEUE_WORKER_KIND = "a background worker (pm extract --worker)"

export const queueWorkerOn = (env: Readonly<Record<string, string | undefined>>): boolean => env[QUEUE_WORKER_ENV] !== "0"

/** A run that ends with its answer: Pi's print and json modes. */
export const isOneShot = (mode: string | undefined): boolean => mode === "print" || mode === "json"

/** Whether a session in `mode` hands its extraction to the queue and a worker instead of running it itself. */
export const handsOffAtOnce = (mode: string | undefined, env: Readonly<Record<string, string | undefined>>): boolean =>
  isOneShot(mode) && queueWorkerOn(env)

/**
 * Whether the worker starts another pass: the last one ran to its end (not stopped, not busy), the time bound is
 * not reached, and a job waits that no pass of this worker has tried (one queued while it ran; a job it tried and
 * kept is left for a later drain, so no pass repeats forever).
 */
export const anotherPass = (p: {
  readonly stopped: boolean
  readonly startedAt: number
  readonly now: number
  readonly waiting: ReadonlyArray<string>
  readonly tried: ReadonlySet<string>
}): boolean => !p.stopped && p.now - p.startedAt < QUEUE_WORKER_MAX_MS && p.waiting.some((n) => !p.tried.has(n))

/** How a new worker opens its log of `size` bytes (undefined: none yet): added to, or started afresh past the bound. */
export const workerLogFlag = (size: number | undefined): "a" | "w" =>
  size !== undefined && size > QUEUE_WORKER_LOG_MAX_BYTES ? "w" : "a"

/** The environment a one-shot run hands its worker: the Pi script it runs in and its session folder, when known. */
export const WORKER_PI_SCRIPT_ENV = "PM_WORKER_PI_SCRIPT"
export const WORKER_SESSION_DIR_ENV = "PM_WORKER_SESSION_DIR"
/** "1" when the session folder is not the one Pi picks for this cwd by default (it may hold other projects'). */
export const WORKER_SESSION_SHARED_ENV = "PM_WORKER_SESSION_SHARED"

export interface WorkerHandOver {
  readonly piScript?: string | undefined
  readonly sessionFolder?: { readonly dir: string; readonly shared: boolean } | undefined
}

/** The variables that carry `h` to the worker (only those known). */
export const workerEnv = (h: WorkerHandOver): Record<string, string> => ({
  ...(h.piScript !== undefined && h.piScript !== "" ? { [WORKER_PI_SCRIPT_ENV]: h.piScript } : {}),
  ...(h.sessionFolder !== undefined && h.sessionFolder.dir !== ""
    ? { [WORKER_SESSION_DIR_ENV]: h.sessionFolder.dir, [WORKER_SESSION_SHARED_ENV]: h.sessionFolder.shared ? "1" : "0" }
    : {})
})

/** What the worker was handed, read back from its environment. */
export const workerHandOver = (env: Readonly<Record<string, string | undefined>>): WorkerHandOver => {
  const script = env[WORKER_PI_SCRIPT_ENV]
  const dir = env[WORKER_SESSION_DIR_ENV]
  return {
    piScript: script === undefined || script === "" ? undefined : script,
    sessionFolder: dir === undefined || dir === "" ? undefined : { dir, shared: env[WORKER_SESSION_SHARED_ENV] !== "0" }
  }
}
