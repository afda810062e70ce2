/**
 * Retention of the change journal: the policy is pure (`planPrune`, src/writes/journal.ts: whole tasks, from the
 * whole journal); this applies it. Lines of the tasks dropped go first (the journal rewritten whole), their blobs
 * after, so a crash in between leaves only unreferenced files; `state.json` then records the content kept and the
 * journal's size.
 *
 * Recording never reads the journal to decide this: `afterAppend` prunes only when the content kept passes its cap or
 * the file has grown by half since it was last pruned, and never fails the change that was recorded. Every function
 * here expects the caller to hold `journal.lock` except `prune`, which takes it.
 */
import * as Effect from "effect/Effect"
import { decodeJournal, groupByTask } from "../../src/writes/journal.ts"
import { JOURNAL_MAX_CONTENT_BYTES, JOURNAL_PRUNE_MIN_BYTES, JOURNAL_PRUNE_TO_BYTES, planPrune } from "../../src/writes/journalPrune.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { JournalFailed, JournalWriteError } from "./journalErrors.ts"
import type { JournalPaths, JournalStore } from "./journalStore.ts"

export interface PruneResult {
  readonly kept: number
  readonly dropped: number
  readonly deletedBlobs: number
  readonly keptBytes: number
}

export interface JournalPruning {
  /** The retention policy, from the whole journal, down to `maxBytes` of content; the caller holds `journal.lock`. */
  readonly pruneLocked: (paths: JournalPaths, now: number, maxBytes: number) => Effect.Effect<PruneResult, JournalFailed>
  /**
   * After an append (the caller holds `journal.lock`): counts the content added, and prunes when the content passed
   * its cap (down to JOURNAL_PRUNE_TO_BYTES) or the journal grew by half since its last pruning. Never fails a change.
   */
  readonly afterAppend: (paths: JournalPaths, size: number, added: number) => Effect.Effect<void>
  /** Prunes now, taking `journal.lock`. */
  readonly prune: (paths: JournalPaths, now?: number) => Effect.Effect<PruneResult, JournalWriteError>
}

export const makeJournalPruning = (fs: FileSystemShape, store: JournalStore): JournalPruning => {
  const { blobPath, blobsDir, failed, journalFile } = store

  const pruneLocked = (paths: JournalPaths, now: number, maxBytes: number) =>
    Effect.gen(function*() {
      yield* store.sweepLeftovers(paths)
      const bytes = yield* store.readOptional(journalFile(paths), "read")
      const text = bytes === null ? "" : new TextDecoder().decode(bytes)
      const decoded = decodeJournal(text)
      const tasks = groupByTask(decoded.entries, decoded.outcomes)
      const lastAt = new Map<string, number>()
      for (const e of decoded.entries) lastAt.set(e.task, Date.parse(e.at))
      const sizes = new Map<string, number | undefined>()
      const blobSize = (sha: string): number | undefined => sizes.get(sha)
      for (const t of tasks) {
        for (const c of t.changes) {
          if (c.before === null || sizes.has(c.before)) continue
          const info = yield* fs.stat(blobPath(paths, c.before)).pipe(Effect.option)
          sizes.set(c.before, info._tag === "Some" ? info.value.size : undefined)
        }
      }
      const plan = planPrune(tasks, now, blobSize, { maxBytes, lastAt: (t) => lastAt.get(t.task) ?? Date.parse(t.at) })
      let size = bytes?.length ?? 0
      if (plan.dropped > 0) {
        const kept = new Set(plan.keep.map((t) => t.task))
        const lines = text.split("\n").filter((line) => {
          if (line.trim() === "") return false
          try {
            const value = JSON.parse(line) as { task?: unknown }
            return typeof value.task === "string" && kept.has(value.task)
          } catch {
            return false
          }
        })
        const rewritten = new TextEncoder().encode(lines.map((l) => `${l}\n`).join(""))
        yield* store.writeAtomically(journalFile(paths), rewritten, "prune", true)
        size = rewritten.length
      }
      // Blobs go after the journal no longer names them: a crash in between leaves only unreferenced files.
      const stored = yield* fs.readDirectory(blobsDir(paths)).pipe(
        Effect.map((list) => list.filter((e) => e.kind === "file" && /^[0-9a-f]{64}$/.test(e.name)).map((e) => e.name)),
        Effect.catchIf((e) => e.reason === "NotFound", () => Effect.succeed([] as Array<string>)),
        Effect.mapError(failed("list", blobsDir(paths)))
      )
      const deleteBlobs = stored.filter((b) => !plan.keptBlobs.has(b))
      for (const sha of deleteBlobs) {
        yield* fs.unlink(blobPath(paths, sha)).pipe(
          Effect.catchIf((e) => e.reason === "NotFound", () => Effect.void),
          Effect.mapError(failed("remove", blobPath(paths, sha)))
        )
      }
      yield* store.writeState(paths, { prunedSize: size, contentBytes: plan.keptBytes })
      return { kept: plan.keep.length, dropped: plan.dropped, deletedBlobs: deleteBlobs.length, keptBytes: plan.keptBytes } satisfies PruneResult
    })

  const afterAppend = (paths: JournalPaths, size: number, added: number): Effect.Effect<void> =>
    Effect.gen(function*() {
      const state = yield* store.readState(paths)
      if (state === undefined) return yield* pruneLocked(paths, Date.now(), JOURNAL_MAX_CONTENT_BYTES)
      const contentBytes = state.contentBytes + added
      if (contentBytes > JOURNAL_MAX_CONTENT_BYTES) return yield* pruneLocked(paths, Date.now(), JOURNAL_PRUNE_TO_BYTES)
      if (size > Math.max(JOURNAL_PRUNE_MIN_BYTES, state.prunedSize * 1.5)) return yield* pruneLocked(paths, Date.now(), JOURNAL_MAX_CONTENT_BYTES)
      if (added > 0) yield* store.writeState(paths, { ...state, contentBytes })
    }).pipe(
      Effect.asVoid,
      Effect.catchAll((e) => Effect.logWarning(`journal pruning skipped: ${e.message}`))
    )

  const prune = Effect.fn("Journal.prune")(function*(paths: JournalPaths, now?: number) {
    return yield* store.withJournalLock(paths, pruneLocked(paths, now ?? Date.now(), JOURNAL_MAX_CONTENT_BYTES))
  })

  return { pruneLocked, afterAppend, prune }
}
