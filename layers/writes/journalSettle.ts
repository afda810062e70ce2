/**
 * What the journal's undo and recovery both read of memory: the file a journal path names (refused when it is not a
 * memory file), its current sha256, and the settling of pending intents from the files themselves. The caller of
 * `settlePending` holds `journal.lock`: every journaled publish holds it from its intent to its outcome, so an intent
 * still pending then belongs to a writer that was killed (or could not append its outcome), never to one under way.
 */
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { checkFileName, checkSegments, segmentsInside } from "../../src/storage/containment.ts"
import { type ChangeOutcome, type DecodedJournal, encodeOutcome, sha256Hex } from "../../src/writes/journal.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { JournalFailed } from "./journalErrors.ts"
import type { JournalPaths, JournalStore } from "./journalStore.ts"

/** The memory file for a journal path, or a reason it must not be touched. */
export const memoryFile = (memoryDir: string, file: string): { readonly path: string } | { readonly refused: string } => {
  const path = join(memoryDir, file)
  const segments = segmentsInside(memoryDir, path)
  if (segments === undefined || segments.length === 0) return { refused: "it is not inside the memory directory" }
  const violation = checkSegments(segments, file) ?? checkFileName(segments[segments.length - 1]!, file)
  return violation === undefined ? { path } : { refused: violation.message }
}

/** What undo did with one file. */
export interface UndoneFile {
  readonly file: string
  /** restored: previous bytes back; deleted: the task had created it; unchanged: already at its previous bytes; left: not touched. */
  readonly outcome: "restored" | "deleted" | "unchanged" | "left"
  readonly reason?: string
}

export type CurrentHash = { readonly sha: string | null } | { readonly refused: string }

export interface JournalSettling {
  /** The sha256 of a memory file now: null when missing; a reason when it is not a regular file inside memory. */
  readonly currentOf: (memoryDir: string, file: string) => Effect.Effect<CurrentHash, JournalFailed>
  /**
   * Settles every pending intent from the file itself: `done` when the file holds its new bytes, `failed` when it holds
   * its old ones, `unknown` otherwise. Recorded as outcome lines, so the answer does not change when the file does.
   */
  readonly settlePending: (paths: JournalPaths, memoryDir: string, decoded: DecodedJournal) => Effect.Effect<DecodedJournal, JournalFailed>
}

export const makeJournalSettling = (fs: FileSystemShape, store: JournalStore): JournalSettling => {
  const currentOf = (memoryDir: string, file: string): Effect.Effect<CurrentHash, JournalFailed> =>
    Effect.gen(function*() {
      const where = memoryFile(memoryDir, file)
      if ("refused" in where) return where
      const info = yield* fs.lstat(where.path).pipe(Effect.option)
      if (info._tag === "Some" && info.value.kind !== "file") return { refused: `it is now a ${info.value.kind}, not a regular file` }
      const bytes = yield* store.readOptional(where.path, "read")
      return { sha: bytes === null ? null : sha256Hex(bytes) }
    })

  const settlePending = (paths: JournalPaths, memoryDir: string, decoded: DecodedJournal) =>
    Effect.gen(function*() {
      const pending = decoded.entries.filter((e) => e.id !== undefined && !decoded.outcomes.has(e.id))
      if (pending.length === 0) return decoded
      const outcomes = new Map(decoded.outcomes)
      for (const e of pending) {
        let outcome: ChangeOutcome = "unknown"
        for (const c of e.changes) {
          const now = yield* currentOf(memoryDir, c.file)
          outcome = "refused" in now ? "unknown" : now.sha === c.after ? "done" : now.sha === c.before ? "failed" : "unknown"
        }
        yield* store.appendLine(paths, encodeOutcome({ v: 1, id: e.id!, task: e.task, outcome, recovered: true }))
        outcomes.set(e.id!, outcome)
      }
      return { ...decoded, outcomes } satisfies DecodedJournal
    })

  return { currentOf, settlePending }
}
