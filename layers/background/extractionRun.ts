/**
 * One extraction, start to finish, recorded: the checks before it (memory active, the task still valid), the model
 * from config.json, the task over the branch after the cursor (with the parent's request for a fork), its usage into
 * the run's and the session's totals, its changes as session notices, and its record. Returned outcomes advance the
 * cursor; a throw, an interruption, an aborted request or invalidation leaves it, so the same messages are tried
 * again. It never fails: failures are part of the record. When it runs is scheduling.ts's.
 */
import type { Api, Model, Usage } from "@earendil-works/pi-ai"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { homedir } from "node:os"
import type { BranchEntry } from "../../src/background/cursor.ts"
import type { RunRecord } from "../../src/background/runs.ts"
import { addUsage, zeroUsage } from "../../src/model/usage.ts"
import { resolveToolPath } from "../../src/safety/toolPath.ts"
import { ModelRegistry } from "../model/ModelRegistry.ts"
import { Host } from "../session/Host.ts"
import type { BranchCursor } from "./branchCursor.ts"
import { changeRecorder } from "./ChangeNotices.ts"
import { Extractor } from "./Extractor.ts"
import type { ParentRequest } from "./extractorInterface.ts"
import { relative } from "node:path"
import { isWithin } from "../../src/safety/toolPath.ts"
import { extractionRecord, stoppedRecord } from "./runRecords.ts"
import type { RunLog } from "./runLog.ts"
import { type Active, type BackgroundHostShape, safe, type SessionState } from "./sessionState.ts"
import type { TaskValidity } from "./taskValidity.ts"

/**
 * How long an extraction waits for `extract.lock` held by another process before giving up (its messages then stay
 * after the cursor for the next run). At `session_shutdown` a wait for the lock is not waited for: the session hands
 * its messages to the project's queue (handOff.ts).
 */
export const EXTRACT_LOCK_WAIT_MS = 10 * 60_000

/** Whether a raw tool path, as the main agent wrote it in `cwd`, lands inside the active project's memory. */
export const memoryPathTest = (a: Active, cwd: string) => {
  const home = homedir()
  return (raw: string): boolean => {
    const abs = resolveToolPath(raw, cwd, home)
    return abs !== undefined && [a.location.memoryDir, a.canonicalMemoryDir].some((dir) => isWithin(dir, abs) && relative(dir, abs) !== "")
  }
}

export const makeExtractionRun = (
  state: SessionState,
  bgHost: BackgroundHostShape,
  parts: { readonly validity: TaskValidity; readonly branch: BranchCursor; readonly runLog: RunLog }
) =>
  Effect.gen(function*() {
    const host = yield* Host
    const registry = yield* ModelRegistry
    const extractor = yield* Extractor
    const { validity } = parts.validity
    const { branchCursor, advance } = parts.branch
    const { saveRun } = parts.runLog

    /** One extraction, start to finish, recorded. Never fails: failures are part of the record. */
    const extractOnce = (trigger: RunRecord["trigger"]): Effect.Effect<RunRecord> =>
      Effect.gen(function*() {
        const a = yield* Ref.get(state.active)
        const startedIn = yield* Ref.get(state.generation)
        const base = { kind: "extract" as const, trigger, filesChanged: [], turns: 0, usage: zeroUsage }
        if (a === undefined) return { ...base, at: Date.now(), outcome: "skipped", detail: "project memory is inactive" } satisfies RunRecord
        const invalid = yield* Effect.flip(validity(startedIn, "extraction")).pipe(Effect.option)
        if (Option.isSome(invalid)) return { ...base, at: Date.now(), outcome: "skipped", detail: invalid.value.reason } satisfies RunRecord
        const usage = yield* Ref.make(zeroUsage)
        const cwd = yield* host.cwd
        const isMemoryPath = memoryPathTest(a, cwd)
        const sessionId = yield* safe(host.sessionId, "no-session")
        const parent = yield* Ref.get(state.captured)
        const onUsage = (u: Usage | undefined) =>
          Ref.update(usage, (t) => addUsage(t, u)).pipe(Effect.zipRight(Ref.update(state.totals, (t) => addUsage(t, u))))
        const onChange = changeRecorder(host, "extraction", [a.canonicalMemoryDir, a.location.memoryDir])
        const run = Effect.gen(function*() {
          const model = yield* registry.resolve(a.background.extractor.model)
          return yield* extractor.extract({
            location: a.location,
            cwd,
            branch: (yield* safe(host.branch, [])) as ReadonlyArray<BranchEntry>,
            cursor: yield* branchCursor,
            parent: parent === undefined
              ? undefined
              : ({ messages: parent.messages, model: parent.model, sessionId } satisfies ParentRequest),
            model: model as Model<Api>,
            taskSessionId: `${sessionId}-memory-extract`,
            sessionId,
            maxTurns: a.background.extractor.maxTurns,
            skipExternalContext: a.background.extractor.skipExternalContext,
            maxTokens: a.background.extractor.maxTokens,
            requestTimeoutMs: a.background.extractor.requestTimeoutSeconds * 1000,
            isMemoryPath,
            check: validity(startedIn, "extraction"),
            onChange,
            onUsage,
            codemode: yield* safe(bgHost.codemode, undefined),
            lockWaitMs: EXTRACT_LOCK_WAIT_MS,
            onLockWait: (holder) => Effect.all([Ref.set(waited, true), Ref.set(state.holder, holder), state.lockWaiting.open]),
            onStart: Effect.all([Ref.set(waited, false), state.lockWaiting.close, bgHost.setStatus("extract", "memory: extracting")])
          })
        })
        const waited = yield* Ref.make(false)
        // Interrupted from outside (invalidation, shutdown): the record is written on the way out, the cursor stays.
        // Stopped at the session's end while it waited for the lock: the hand-off records what became of it.
        const recordStopped = Effect.all([Ref.get(usage), Ref.get(waited), Ref.get(state.ending)]).pipe(
          Effect.flatMap(([spent, waiting, ending]) =>
            waiting && ending ? Effect.void : saveRun(
              a,
              stoppedRecord(
                base,
                !waiting
                  ? "interrupted"
                  : "interrupted while waiting for extract.lock (another process held it); its messages stay after the cursor for a later run",
                spent
              )
            )
          )
        )
        const exit = yield* run.pipe(
          Effect.ensuring(Effect.zipRight(state.lockWaiting.close, bgHost.setStatus("extract", undefined))),
          Effect.onInterrupt(() => recordStopped),
          Effect.exit
        )
        const spent = yield* Ref.get(usage)
        const record = extractionRecord(exit, base, spent, a.canonicalMemoryDir)
        // Returned outcomes advance the cursor (skips, API errors and the turn limit included); a throw, an
        // interruption, an aborted request or invalidation leaves it, so the same messages are tried again.
        if (
          Exit.isSuccess(exit) && exit.value.status !== "busy" && !(exit.value.status === "ran" && exit.value.stop === "aborted") &&
          (yield* Ref.get(state.generation)) === startedIn
        ) {
          yield* advance(exit.value.advanceTo)
        }
        // "Nothing new" is not a run: the last real one stays on record.
        if (!(Exit.isSuccess(exit) && exit.value.status === "skipped" && exit.value.reason === "nothing-new")) yield* saveRun(a, record)
        return record
      })

    return { extractOnce }
  })

export type ExtractionRun = Effect.Effect.Success<ReturnType<typeof makeExtractionRun>>
