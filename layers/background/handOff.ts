/**
 * The hand-off at a session's end: what the extraction still has to do on this branch (the cursor machine says Run)
 * becomes a job of the project's queue (src/background/queue.ts), and the cursor moves to the end of what was handed
 * over, recorded on the branch as every advance is, so a resumed session does not extract it twice. The person is
 * told in one sentence (one line on stderr in print mode) that the work was deferred and who completes it (the
 * background worker a one-shot run starts, or the next interactive session or `pm extract`), and the run history
 * records it; the result names the queue that holds the job. A job that cannot be stored is told too, and the cursor stays: those messages are then
 * extracted only if this session is resumed. Nothing is handed over while extraction is off, the project is
 * untrusted or memory is inactive: such a session would not have extracted them either.
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { type BranchEntry, decideExtraction } from "../../src/background/cursor.ts"
import { makeJob } from "../../src/background/queue.ts"
import type { RunRecord } from "../../src/background/runs.ts"
import { zeroUsage } from "../../src/model/usage.ts"
import { QUEUE_JOB_MAX_BYTES } from "../../src/limits.ts"
import { ModelRegistry } from "../model/ModelRegistry.ts"
import { Host } from "../session/Host.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import type { BranchCursor } from "./branchCursor.ts"
import { memoryPathTest } from "./extractionRun.ts"
import { makeQueueStore } from "./queueStore.ts"
import type { RunLog } from "./runLog.ts"
import { safe, type SessionState } from "./sessionState.ts"
import type { TaskValidity } from "./taskValidity.ts"

const messages = (n: number) => `${n} message${n === 1 ? "" : "s"}`

/** Where a job was queued: the project's memory root and the folder its session ran in. */
export interface HandedOff {
  readonly memoryRootDir: string
  readonly cwd: string
}

/**
 * What the person reads once the work is queued; `waiting` counts every job of the project now; `worker`: a
 * background worker is started for it (a one-shot run).
 */
export const deferredNotice = (count: number, omitted: number, waiting: number, worker = false): string =>
  `Project memory: the extraction of this session's last ${messages(count)} ` +
  (worker
    ? `was handed to a background worker (pm extract), which saves what it holds after this run ends (${waiting} extraction${waiting === 1 ? "" : "s"} queued now).`
    : `was deferred; the next interactive session of this project or \`pm extract\` completes it (${waiting} extraction${waiting === 1 ? "" : "s"} queued now).`) +
  (omitted > 0 ? ` Its ${messages(omitted)} before those did not fit the queue's bound of ${QUEUE_JOB_MAX_BYTES} bytes and were left out.` : "")

export const makeHandOff = (
  state: SessionState,
  parts: { readonly branch: BranchCursor; readonly runLog: RunLog; readonly validity: TaskValidity }
) =>
  Effect.gen(function*() {
    const host = yield* Host
    const store = makeQueueStore(yield* FileSystem)
    const registry = yield* ModelRegistry

    /**
     * Queues what is left to extract on this branch; `why` says why the session did not extract it itself; `worker`:
     * a background worker will run it. Returns where the job went, when one was queued.
     */
    const handOff = (why: string, worker = false): Effect.Effect<HandedOff | undefined> =>
      Effect.gen(function*() {
        const a = yield* Ref.get(state.active)
        if (a === undefined || !(yield* parts.validity.switchedOn("extraction")) || !(yield* safe(host.isTrusted, false))) return undefined
        const cwd = yield* safe(host.cwd, a.location.projectRoot)
        const branch = (yield* safe(host.branch, [])) as ReadonlyArray<BranchEntry>
        const cursor = yield* parts.branch.branchCursor
        const decision = decideExtraction(branch, cursor, memoryPathTest(a, cwd), { skipExternalContext: a.background.extractor.skipExternalContext })
        if (decision._tag === "Skip") {
          // Nothing of this run's to queue; jobs older runs left still get a worker when one is to run the queue.
          return worker && (yield* store.summary(a.location.memoryRootDir)).count > 0 ? { memoryRootDir: a.location.memoryRootDir, cwd } : undefined
        }
        const base = { kind: "extract" as const, trigger: "exit" as const, filesChanged: [], turns: 0, usage: zeroUsage }
        // The model this session's extraction would have used (config.json's, else the session's own).
        const model = yield* registry.resolve(a.background.extractor.model).pipe(
          Effect.map((m) => `${m.provider}/${m.id}`),
          Effect.orElseSucceed(() => null)
        )
        const made = makeJob({ session: yield* safe(host.sessionId, "no-session"), cwd, queuedAt: Date.now(), reason: why, model, branch, cursor })
        const stored = made._tag === "TooLarge"
          ? `its newest message alone is ${made.bytes} bytes, more than the queue's bound of ${QUEUE_JOB_MAX_BYTES}`
          : yield* store.enqueue(a.location.memoryRootDir, made.job, made.text).pipe(
            Effect.as(undefined),
            Effect.catchAll((e) => Effect.succeed(e.message))
          )
        if (stored !== undefined) {
          const record: RunRecord = {
            ...base,
            at: Date.now(),
            outcome: "failed",
            detail: `${why}; its ${messages(decision.messageCount)} could not be queued (${stored}): they stay in this session, extracted if it is resumed`
          }
          yield* parts.runLog.saveRun(a, record, false)
          yield* safe(host.notify(`Project memory: this session's last ${messages(decision.messageCount)} were not extracted and could not be queued for later: ${stored}. Resuming this session (pi --continue) extracts them.`, "warning"), undefined)
          return undefined
        }
        // Handed over: a resumed session starts after it.
        yield* parts.branch.advance(decision.advanceTo)
        const { job } = made as Extract<typeof made, { readonly _tag: "Job" }>
        const record: RunRecord = {
          ...base,
          at: Date.now(),
          outcome: "queued",
          detail: `${messages(job.messages)} queued for ${worker ? "a background worker (pm extract)" : "the next interactive session of this project or \`pm extract\`"}: ${why}` +
            (job.omitted > 0 ? `; ${messages(job.omitted)} before them did not fit the queue's bound and were left out` : "")
        }
        yield* parts.runLog.saveRun(a, record)
        const waiting = (yield* store.summary(a.location.memoryRootDir)).count
        yield* safe(host.notify(deferredNotice(job.messages, job.omitted, waiting, worker), job.omitted > 0 ? "warning" : "info"), undefined)
        return { memoryRootDir: a.location.memoryRootDir, cwd } satisfies HandedOff
      })

    return { handOff }
  })

export type HandOff = Effect.Effect.Success<ReturnType<typeof makeHandOff>>
