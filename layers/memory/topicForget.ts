/**
 * Forget: delete the named topics and their MEMORY.md lines, all or nothing. Every name must denote a topic
 * (resolved under the locks, as a background writer may have renamed or removed one meanwhile), or nothing changes.
 * It holds `extract.lock` and `dream.lock`, the locks background writers hold while they change memory, deletes
 * through MemoryWriter's safe delete path and rewrites the index through a writer task; the writer journals each
 * change under the forget's task id, so `pm undo` brings it all back. It is one whole task (journalRecover.ts): a
 * failure part way rolls back what was done, and a forget killed part way is rolled back by the next command that
 * changes memory. A busy lock, the journal or the writer failing is ForgetFailed, carrying the failure as its cause.
 *
 * The index is read whole as bytes (indexRewrite.ts) before anything changes, and only the lines that link the
 * forgotten topics leave it: every other byte stays (src/memory/indexBytes.ts). An index too large to rewrite, or one
 * that cannot be read, refuses the forget before a topic is touched.
 */
import type * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { randomUUID } from "node:crypto"
import { removeIndexLinkLines } from "../../src/memory/indexBytes.ts"
import { undoWindowNote } from "../../src/writes/journalPrune.ts"
import { INDEX_FILE } from "../../src/storage/layout.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import { LockService } from "../storage/LockService.ts"
import { LockFailed, LockLost } from "../storage/lockInterface.ts"
import { Journal } from "../writes/Journal.ts"
import { BACKGROUND_LOCKS, TaskUnfinished } from "../writes/journalRecover.ts"
import { holdingBackgroundLocks, MemoryBusy, PERSON_LOCK_WAIT_MS, type PersonWait, RecoveryFailed } from "../writes/MemoryUndo.ts"
import type { MemoryWriter } from "../writes/MemoryWriter.ts"
import type { WriteJournal } from "../writes/writeJournal.ts"
import { checkDir, resolveName, TopicRefused } from "./browseReads.ts"
import { indexForRewrite } from "./indexRewrite.ts"
import type { MemoryStore } from "./MemoryStore.ts"
import type { Topic } from "./topicScan.ts"

/** How long `forget` waits for a background writer to finish. */
export const FORGET_LOCK_WAIT_MS = PERSON_LOCK_WAIT_MS

/**
 * Forget (or remember) could not finish: the lock stayed busy, or the journal or the writer failed; `cause` is that
 * failure. Nothing was lost.
 */
export class ForgetFailed extends Data.TaggedError("ForgetFailed")<{
  /** What had already happened to memory when it failed, when something had or had not ("nothing was saved"). */
  readonly outcome?: string
  readonly cause: Error
}> {
  get reason(): string {
    return this.outcome === undefined ? this.cause.message : `${this.outcome}: ${this.cause.message}`
  }
  override get message(): string {
    return `forget failed: ${this.reason}`
  }
}

export interface ForgetResult {
  readonly forgotten: ReadonlyArray<string>
  readonly indexLinesRemoved: number
  /** The journal task: `pm undo` restores the files. */
  readonly task: string
  /** What the person should know about undoing it (an index larger than the journal keeps), when anything. */
  readonly note?: string
}

export interface ForgetRequest extends PersonWait {
  readonly memoryDir: string
  /** `memory-roots/<hash>/`: the journal and the locks live there. */
  readonly rootDir: string
  readonly names: ReadonlyArray<string>
  readonly session: string | null
}

/** The services a change of memory by a person goes through (forget and remember). */
export interface MemoryChangeServices {
  readonly fs: FileSystemShape
  readonly store: Context.Tag.Service<MemoryStore>
  readonly writer: Context.Tag.Service<MemoryWriter>
  readonly journal: Context.Tag.Service<Journal>
  readonly locks: Context.Tag.Service<LockService>
}

/** A lock that could not be held, or was lost, or an earlier change not rolled back, as ForgetFailed; any other as it is. */
export const lockFailureAsForgetFailed = <E>(e: E): Exclude<E, LockFailed | LockLost | MemoryBusy | RecoveryFailed> | ForgetFailed =>
  e instanceof LockFailed || e instanceof LockLost || e instanceof MemoryBusy || e instanceof RecoveryFailed
    ? new ForgetFailed({ cause: e })
    : (e as Exclude<E, LockFailed | LockLost | MemoryBusy | RecoveryFailed>)

/**
 * The failure of a whole task (journalRecover.ts) as ForgetFailed: rolled back, `none` says what memory is ("nothing
 * was forgotten"); not rolled back now, that the next change of memory rolls it back.
 */
export const wholeFailureAsForgetFailed = (none: string) => <E>(e: E): Exclude<E, ForgetFailed | TaskUnfinished> | ForgetFailed =>
  e instanceof TaskUnfinished
    ? new ForgetFailed({ outcome: e.rolledBack ? none : "memory was left part changed, and the next change of memory rolls it back", cause: e })
    : e instanceof ForgetFailed
    ? new ForgetFailed({ outcome: none, cause: e.cause })
    : (e as Exclude<E, ForgetFailed | TaskUnfinished>)

export const makeForget = ({ fs, store, writer, journal, locks }: MemoryChangeServices) =>
  Effect.fn("MemoryBrowse.forget")(function*(request: ForgetRequest) {
    const { memoryDir } = request
    yield* checkDir(fs, memoryDir)
    if (request.names.length === 0) return yield* new TopicRefused({ name: "", problem: "unknown", reason: "name at least one topic to forget" })
    const task = `forget-${randomUUID()}`
    const body = (journaled: WriteJournal) => Effect.gen(function*() {
      // Resolved under the lock: a background writer may have renamed or removed a topic meanwhile.
      const { topics } = yield* store.scanTopics(memoryDir)
      const chosen: Array<Topic> = []
      for (const name of request.names) {
        const topic = yield* resolveName(name, topics)
        if (!chosen.includes(topic)) chosen.push(topic)
      }
      // Read whole before anything changes: an index too large to rewrite refuses the forget here.
      const index = yield* indexForRewrite(fs, memoryDir)
      const next = removeIndexLinkLines(index.bytes, chosen.map((t) => t.filename))
      for (const t of chosen) {
        yield* writer.remove(t.filename, { memoryDir, cwd: memoryDir, byPerson: true, journal: journaled }).pipe(
          Effect.mapError((e) => new ForgetFailed({ cause: e }))
        )
      }
      if (index.exists && next.removed > 0) {
        const writeTask = yield* writer.openTask({ memoryDir, cwd: memoryDir, journal: journaled })
        yield* writeTask.recordRead(INDEX_FILE, { kind: "text", truncated: false }, { bytes: index.bytes, mtimeMs: index.mtimeMs })
        yield* writeTask.write(INDEX_FILE, next.bytes).pipe(Effect.mapError((e) => new ForgetFailed({ cause: e })))
      }
      const note = next.removed > 0 ? undoWindowNote(INDEX_FILE, index.bytes.length) : undefined
      return { forgotten: chosen.map((t) => t.filename), indexLinesRemoved: next.removed, task, ...(note === undefined ? {} : { note }) } satisfies ForgetResult
    })
    // Whole or absent: the deletes and the index's rewrite are kept together or rolled back together.
    const meta = { task, kind: "forget", session: request.session, model: null }
    const whole = journal.whole({ paths: { rootDir: request.rootDir, memoryDir }, meta, locks: BACKGROUND_LOCKS }, body, Exit.isSuccess).pipe(
      Effect.mapError(wholeFailureAsForgetFailed("nothing was forgotten"))
    )
    // The locks of both background writers, as undo takes them: no task publishes into memory meanwhile.
    return yield* holdingBackgroundLocks({ rootDir: request.rootDir, memoryDir }, whole, request).pipe(
      Effect.provideService(LockService, locks),
      Effect.provideService(Journal, journal),
      Effect.mapError(lockFailureAsForgetFailed)
    )
  })
