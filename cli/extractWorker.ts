/**
 * `pm extract --worker`: the background worker a one-shot Pi run starts at its end (extension/queueWorker.ts), its
 * output going to the memory root's queue-worker.log. It runs the project's queue as `pm extract` does, but never
 * waits for queue.lock: another process running the queue runs every job, so the worker leaves at once. After each
 * pass it looks at the queue again, having let go of queue.lock: a job queued during the pass by a run whose own
 * worker found the lock busy is run by another pass (src/background/queueWorker.ts `anotherPass`). It stops at
 * QUEUE_WORKER_MAX_MS in any case, between passes or, at the latest, by leaving the process. Last, when the run that
 * started it named Pi's session folder, it checks the dream as a settled turn would, and runs it when due.
 */
import * as Effect from "effect/Effect"
import { readdirSync } from "node:fs"
import { isJobFileName } from "../src/background/queue.ts"
import { anotherPass, QUEUE_WORKER_KIND, workerHandOver } from "../src/background/queueWorker.ts"
import { formatRun } from "../src/background/runs.ts"
import { QUEUE_WORKER_MAX_MS } from "../src/limits.ts"
import { queueDirOf } from "../src/storage/layout.ts"
import type { DrainNowResult } from "../layers/background/sessionDrain.ts"
import { drainProject, dreamIfDue } from "./extractRun.ts"
import { EXIT_PROBLEMS, printLine, setExit } from "./output.ts"

export interface WorkerRequest {
  readonly dir: string
  readonly agentDir: string
  readonly trusted: boolean
  readonly memoryRootDir: string
  readonly projectRoot: string
  /** What a pass did, in sentences, and the exit code it means (cli/extract.ts's report, passed in). */
  readonly report: (result: DrainNowResult, root: string) => { readonly lines: ReadonlyArray<string>; readonly code: number }
}

const jobNames = (memoryRootDir: string): ReadonlyArray<string> => {
  try {
    return readdirSync(queueDirOf(memoryRootDir)).filter(isJobFileName)
  } catch {
    return []
  }
}

const stamped = (line: string) => printLine(`${new Date().toISOString()} ${line}`)

export const runWorker = (r: WorkerRequest) =>
  Effect.gen(function* () {
    const startedAt = Date.now()
    // The bound holds even in the middle of a job: its changes are rolled back by the next holder of extract.lock.
    const bound = setTimeout(() => {
      process.stdout.write(`${new Date().toISOString()} The worker stops: it ran for ${QUEUE_WORKER_MAX_MS / 60_000} min, its bound; what is left stays queued.\n`)
      process.exit(EXIT_PROBLEMS)
    }, QUEUE_WORKER_MAX_MS)
    bound.unref()
    yield* stamped(`The worker ${process.pid} runs the queue of ${r.projectRoot}.`)
    const tried = new Set<string>()
    let code = 0
    let busy = false
    for (;;) {
      const result = yield* drainProject({ dir: r.dir, agentDir: r.agentDir, trusted: r.trusted, waitMs: 0, lockKind: QUEUE_WORKER_KIND })
      if (result._tag === "Busy") {
        yield* stamped(`Another process runs this queue (${result.holder}); it runs every job, so this worker leaves.`)
        busy = true
        break
      }
      const report = r.report(result, r.projectRoot)
      for (const line of report.lines) yield* stamped(line)
      code = report.code
      if (result._tag !== "Drained") break
      for (const run of result.runs) tried.add(run.entry.name)
      const more = anotherPass({ stopped: result.stoppedBecause !== undefined, startedAt, now: Date.now(), waiting: jobNames(r.memoryRootDir), tried })
      if (!more) break
      yield* stamped("Jobs were queued while the worker ran: it runs the queue again.")
    }
    const sessionFolder = workerHandOver(process.env).sessionFolder
    // A worker that left a busy queue leaves the dream to the one running it.
    if (!busy && sessionFolder !== undefined) {
      const dream = yield* dreamIfDue({ dir: r.dir, agentDir: r.agentDir, trusted: r.trusted, sessionFolder }).pipe(Effect.either)
      if (dream._tag === "Left") yield* stamped(`The dream check failed: ${dream.left.message}`)
      else if (dream.right === undefined) yield* stamped("No dream is due.")
      else yield* stamped(formatRun("dream", dream.right))
    }
    clearTimeout(bound)
    yield* stamped(`The worker ${process.pid} ends.`)
    yield* setExit(code)
  })
