/**
 * The run records of a session, kept in the project's `background-runs.json` (src/background/runHistory.ts): read at
 * session start, and added to after every run. Other sessions of the project add theirs, so a save re-reads the file
 * and merges before it writes, under a temporary name of its own renamed into place, one save at a time in this
 * process. A file that cannot be read is an empty history; a write that fails leaves the old file. Each save then
 * hands the record to the notices (sessionNotices.ts).
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { randomUUID } from "node:crypto"
import { join } from "node:path"
import { addRun, mergeRunHistories, parseRunHistory, type RunHistory, serializeRunHistory } from "../../src/background/runHistory.ts"
import { type RunRecord, RUNS_FILE } from "../../src/background/runs.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import type { SessionNotices } from "./sessionNotices.ts"
import type { Active, SessionState } from "./sessionState.ts"

export const makeRunLog = (state: SessionState, notices: SessionNotices) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem
    /** One save of background-runs.json at a time in this process (extraction and dream finish side by side). */
    const saving = yield* Effect.makeSemaphore(1)

    const runsPath = (a: Active) => join(a.location.projectDir, RUNS_FILE)

    const readHistory = (a: Active): Effect.Effect<RunHistory> =>
      fs.readRegularFile(runsPath(a), 1 << 20).pipe(
        Effect.map((r) => parseRunHistory(Buffer.from(r.bytes).toString("utf8"))),
        Effect.orElseSucceed((): RunHistory => [])
      )

    /**
     * Adds the run to the project's history (re-read first: other sessions of the project add theirs) and writes it
     * under a temporary name of its own, then renames it into place; then tells the person when a failure starts or
     * ends (a run asked for by hand reports itself, so it only moves the state). Not `announce`: the caller tells.
     */
    const saveRun = (a: Active, record: RunRecord, announce = true) =>
      Effect.gen(function*() {
        yield* saving.withPermits(1)(Effect.gen(function*() {
          const next = addRun(mergeRunHistories(yield* readHistory(a), yield* Ref.get(state.history)), record)
          yield* Ref.set(state.history, next)
          const path = runsPath(a)
          const temp = `${path}.${process.pid}.${randomUUID()}.tmp`
          yield* fs.writeFile(temp, serializeRunHistory(next)).pipe(
            Effect.zipRight(fs.rename(temp, path)),
            Effect.catchAll(() => fs.unlink(temp).pipe(Effect.ignore))
          )
        }))
        if (announce) yield* notices.afterSave(record, [a.location.memoryDir, a.canonicalMemoryDir])
      })

    return { readHistory, saveRun }
  })

export type RunLog = Effect.Effect.Success<ReturnType<typeof makeRunLog>>
