/**
 * One dream, when due (or by hand), start to finish: the checks before it (memory active, the task still valid, a
 * session directory to read), the decision (after a turn: time first, then the scan; by hand: a fresh scan, no
 * thresholds), the model from config.json, one attempt under DreamAttempt's rules around the Dream task, its usage,
 * its changes as session notices, and its record. It never fails: failures are part of the record. Also the dream's
 * eligibility as `/memory status` shows it. When it runs is scheduling.ts's.
 */
import type { Api, Model, Usage } from "@earendil-works/pi-ai"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { eligibleAt } from "../../src/background/dreamSchedule.ts"
import type { RunRecord } from "../../src/background/runs.ts"
import { addUsage, zeroUsage } from "../../src/model/usage.ts"
import { ModelRegistry } from "../model/ModelRegistry.ts"
import { ProjectLocator } from "../project/ProjectLocator.ts"
import { Host } from "../session/Host.ts"
import { TaskInvalid } from "../writes/writeErrors.ts"
import { changeRecorder } from "./ChangeNotices.ts"
import { Dream } from "./Dream.ts"
import { DreamAttempt, type DreamCheckRequest } from "./DreamAttempt.ts"
import { dreamRecord, reasonOf, stoppedRecord } from "./runRecords.ts"
import type { RunLog } from "./runLog.ts"
import { type Active, type BackgroundHostShape, safe, type SessionState } from "./sessionState.ts"
import type { TaskValidity } from "./taskValidity.ts"

export const makeDreamRun = (
  state: SessionState,
  bgHost: BackgroundHostShape,
  parts: { readonly validity: TaskValidity; readonly runLog: RunLog }
) =>
  Effect.gen(function*() {
    const host = yield* Host
    const locator = yield* ProjectLocator
    const registry = yield* ModelRegistry
    const dreamService = yield* Dream
    const attempt = yield* DreamAttempt
    const { validity } = parts.validity
    const { saveRun } = parts.runLog

    const statePathsOf = (a: Active) => ({ rootDir: a.location.memoryRootDir, legacyFile: a.location.legacyStatePath })

    const dreamCheckRequest = (a: Active) =>
      Effect.gen(function*() {
        const where = bgHost.sessionDir === undefined ? undefined : yield* safe(bgHost.sessionDir, undefined)
        if (where === undefined || where.dir === "") return undefined
        const roots = new Map<string, boolean>()
        // In a directory shared by several projects, a session counts when its cwd lies in this project.
        const belongsToProject = (cwd: string | undefined) =>
          Effect.gen(function*() {
            if (cwd === undefined) return false
            const known = roots.get(cwd)
            if (known !== undefined) return known
            const located = yield* locator.locate(cwd).pipe(Effect.option)
            const ours = Option.isSome(located) && located.value.projectRoot === a.location.projectRoot
            roots.set(cwd, ours)
            return ours
          })
        return {
          paths: statePathsOf(a),
          sessionDir: where.dir,
          currentSessionId: yield* safe(host.sessionId, undefined),
          thresholds: a.background.dreamThresholds,
          ...(where.shared ? { belongsToProject } : {})
        } satisfies DreamCheckRequest
      })

    /**
     * One dream, when due (or by hand), start to finish. Returns the record when there was a run or a skip worth
     * keeping, undefined when not due. Never fails: failures are part of the record.
     */
    const dreamOnce = (trigger: "turn" | "manual"): Effect.Effect<RunRecord | undefined> =>
      Effect.gen(function*() {
        const base = { kind: "dream" as const, trigger, filesChanged: [], turns: 0, usage: zeroUsage }
        const a = yield* Ref.get(state.active)
        const startedIn = yield* Ref.get(state.generation)
        if (a === undefined) return trigger === "manual" ? ({ ...base, at: Date.now(), outcome: "skipped", detail: "project memory is inactive" } satisfies RunRecord) : undefined
        const invalid = yield* Effect.flip(validity(startedIn, "dream")).pipe(Effect.option)
        if (Option.isSome(invalid)) return trigger === "manual" ? ({ ...base, at: Date.now(), outcome: "skipped", detail: invalid.value.reason } satisfies RunRecord) : undefined
        const request = yield* dreamCheckRequest(a)
        if (request === undefined) {
          return trigger === "manual" ? ({ ...base, at: Date.now(), outcome: "skipped", detail: "this session keeps no session files" } satisfies RunRecord) : undefined
        }
        // By hand: a fresh scan for the prompt's session list, no thresholds. After a turn: time first, then the scan.
        const decided = trigger === "manual"
          ? yield* attempt.sessionsNow(request).pipe(Effect.map((sessions) => ({ sessions, expectedVersion: undefined })), Effect.either)
          : yield* attempt.check(request).pipe(
            Effect.map((c) => (c._tag === "Due" ? { sessions: c.sessions, expectedVersion: c.stateVersion } : undefined)),
            Effect.either
          )
        if (decided._tag === "Left") {
          const record = { ...base, at: Date.now(), outcome: "failed", detail: decided.left.reason } satisfies RunRecord
          yield* saveRun(a, record)
          return record
        }
        if (decided.right === undefined) return undefined
        const { sessions, expectedVersion } = decided.right
        const usage = yield* Ref.make(zeroUsage)
        const cwd = yield* host.cwd
        const sessionId = yield* safe(host.sessionId, "no-session")
        const onUsage = (u: Usage | undefined) =>
          Ref.update(usage, (t) => addUsage(t, u)).pipe(Effect.zipRight(Ref.update(state.totals, (t) => addUsage(t, u))))
        const onChange = changeRecorder(host, "dream", [a.canonicalMemoryDir, a.location.memoryDir])
        const model = yield* registry.resolve(a.background.dream.model).pipe(Effect.either)
        if (model._tag === "Left") {
          const record = { ...base, at: Date.now(), outcome: "failed", detail: `dream.model: ${reasonOf(model.left)}` } satisfies RunRecord
          yield* saveRun(a, record)
          return record
        }
        const run = attempt.run({
          paths: request.paths,
          sessions,
          ...(expectedVersion !== undefined ? { expectedVersion } : {}),
          task: (ids, held) =>
            dreamService.consolidate({
              location: a.location,
              cwd,
              sessionDir: request.sessionDir,
              sessionIds: ids,
              model: model.right as Model<Api>,
              taskSessionId: `${sessionId}-memory-dream`,
              sessionId,
              maxTurns: a.background.dream.maxTurns,
              maxTokens: a.background.dream.maxTokens,
              requestTimeoutMs: a.background.dream.requestTimeoutSeconds * 1000,
              // Before each model and tool call and each publish: still valid, and dream.lock still ours. A lost lock
              // also ends the task at once (the lock service interrupts it).
              check: validity(startedIn, "dream").pipe(
                Effect.zipRight(held.pipe(Effect.mapError((e) => new TaskInvalid({ reason: `dream.lock was lost (${e.reason})` }))))
              ),
              onChange,
              onUsage,
              onStart: bgHost.setStatus("dream", "memory: dreaming")
            })
        })
        const recordStopped = Ref.get(usage).pipe(Effect.flatMap((spent) => saveRun(a, stoppedRecord(base, "interrupted", spent))))
        const exit = yield* run.pipe(Effect.ensuring(bgHost.setStatus("dream", undefined)), Effect.onInterrupt(() => recordStopped), Effect.exit)
        const spent = yield* Ref.get(usage)
        const record = dreamRecord(exit, base, spent, a.canonicalMemoryDir)
        if (!(Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause))) yield* saveRun(a, record)
        return record
      })

    /** The last dream attempt on record and when the time condition is met again (memory inactive: undefined). */
    const dreamStatus = Effect.gen(function*() {
      const a = yield* Ref.get(state.active)
      if (a === undefined) return undefined
      const last = yield* attempt.lastDreamAt(statePathsOf(a)).pipe(Effect.orElseSucceed(() => null))
      const t = a.background.dreamThresholds
      return { lastDreamAt: last, eligibleAt: eligibleAt(last, t), minSessions: t.minSessions }
    })

    return { dreamOnce, dreamStatus }
  })

export type DreamRun = Effect.Effect.Success<ReturnType<typeof makeDreamRun>>
