/**
 * Forget: delete the named topics and their MEMORY.md lines, all or nothing. Every name must denote a topic
 * (resolved under the locks, as a background writer may have renamed or removed one meanwhile), or nothing changes.
 * It holds `extract.lock` and `dream.lock`, the locks background writers hold while they change memory, deletes
 * through MemoryWriter's safe delete path and rewrites the index through a writer task; the writer journals each
 * change under the forget's task id, so `pm undo` brings it all back. A busy lock, the journal or the writer failing
 * is ForgetFailed, carrying the failure as its cause.
 *
 * The index is read whole as bytes (indexRewrite.ts) before anything changes, and only the lines that link the
 * forgotten topics leave it: every other byte stays (src/memory/indexBytes.ts). An index too large to rewrite, or one
 * that cannot be read, refuses the forget before a topic is touched.
 */
import type * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import { removeIndexLinkLines } from "../../src/memory/indexBytes.ts"
import { undoWindowNote } from "../../src/writes/journalPrune.ts"
import { INDEX_FILE } from "../../src/storage/layout.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import { LockService } from "../storage/LockService.ts"
import { LockFailed, LockLost } from "../storage/lockInterface.ts"
import type { Journal } from "../writes/Journal.ts"
import { holdingBackgroundLocks, MemoryBusy, PERSON_LOCK_WAIT_MS, type PersonWait } from "../writes/MemoryUndo.ts"
import type { MemoryWriter } from "../writes/MemoryWriter.ts"
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

/** A lock that could not be held, or was lost, as ForgetFailed; any other failure as it is. */
export const lockFailureAsForgetFailed = <E>(e: E): Exclude<E, LockFailed | LockLost | MemoryBusy> | ForgetFailed =>
  e instanceof LockFailed || e instanceof LockLost || e instanceof MemoryBusy
    ? new ForgetFailed({ cause: e })
    : (e as Exclude<E, LockFailed | LockLost | MemoryBusy>)

export const makeForget = ({ fs, store, writer, journal, locks }: MemoryChangeServices) =>
  Effect.fn("MemoryBrowse.forget")(function*(request: ForgetRequest) {
    const { memoryDir } = request
    yield* checkDir(fs, memoryDir)
    if (request.names.length === 0) return yield* new TopicRefused({ name: "", problem: "unknown", reason: "name at least one topic to forget" })
    const body = Effect.gen(function*() {
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
      const task = `forget-${randomUUID()}`
      const journaled = journal.forWriter({ rootDir: request.rootDir }, { task, kind: "forget", session: request.session, model: null })
      for (const t of chosen) {
        yield* writer.remove(t.filename, { memoryDir, cwd: memoryDir, byPerson: true, journal: journaled }).pipe(
          Effect.mapError((e) => new ForgetFailed({ cause: e }))
        )
      }
      if (index.exists && next.removed > 0) {
        const writeTask = yield* writer.openTask({ memoryDir, cwd: memoryDir, journal: journaled })
        yield* writeTask.recordRead(INDEX_FILE, { kind: "text", truncated: false }, { bytes: index.bytes, mtimeMs: index.mtimeMs })
        yield* writeTask.write(INDEX_FILE, next.bytes).pipe(
          Effect.mapError((e) => new ForgetFailed({ outcome: "the topics are gone but the index was not updated", cause: e }))
        )
      }
      const note = next.removed > 0 ? undoWindowNote(INDEX_FILE, index.bytes.length) : undefined
      return { forgotten: chosen.map((t) => t.filename), indexLinesRemoved: next.removed, task, ...(note === undefined ? {} : { note }) } satisfies ForgetResult
    })
    // The locks of both background writers, as undo takes them: no task publishes into memory meanwhile.
    return yield* holdingBackgroundLocks(request.rootDir, body, request).pipe(
      Effect.provideService(LockService, locks),
      Effect.mapError(lockFailureAsForgetFailed)
    )
  })
