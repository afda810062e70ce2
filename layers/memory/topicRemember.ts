/**
 * Remember: a person's explicit save. One new topic file from the given text (src/writes/remember.ts names and
 * formats it) and its MEMORY.md line, written through the writer with the checks a background write passes
 * (credentials, size, header) and journaled like one, so `pm undo` takes it back. The file is named under the
 * locks of both background writers. The topic and its index line are one whole task (journalRecover.ts): kept
 * together or rolled back together, also when the process is killed in between (the next command that changes memory
 * rolls it back), so a retry never finds a half-saved copy. Refused text (a credential, too large, nothing given) is
 * RememberRefused and writes nothing; a busy lock or a failed write is ForgetFailed, saying what was saved.
 *
 * The index is read whole as bytes (indexRewrite.ts) before the topic is written, and the new line's bytes are
 * appended after its last byte (a line end first only when it does not end with one: src/memory/indexBytes.ts), so
 * every byte already there stays. An index too large to rewrite, or one that cannot be read, refuses the remember
 * before anything is written.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { randomUUID } from "node:crypto"
import type { MemoryType } from "../../src/memory/frontmatter.ts"
import { appendIndexLine } from "../../src/memory/indexBytes.ts"
import { buildBackfillIndex, indexLine, lineInWindow, outsideWindowNote } from "../../src/memory/memoryIndex.ts"
import { INDEX_FILE } from "../../src/storage/layout.ts"
import { undoWindowNote } from "../../src/writes/journalPrune.ts"
import { rememberedTopic } from "../../src/writes/remember.ts"
import { LockService } from "../storage/LockService.ts"
import { Journal } from "../writes/Journal.ts"
import { BACKGROUND_LOCKS } from "../writes/journalRecover.ts"
import { holdingBackgroundLocks, type PersonWait } from "../writes/MemoryUndo.ts"
import type { WriteJournal } from "../writes/writeJournal.ts"
import { checkDir } from "./browseReads.ts"
import { indexForRewrite } from "./indexRewrite.ts"
import { decode } from "./readText.ts"
import { ForgetFailed, lockFailureAsForgetFailed, type MemoryChangeServices, wholeFailureAsForgetFailed } from "./topicForget.ts"

/** `remember` refused the text (a credential, too large, nothing given): nothing was written. */
export class RememberRefused extends Data.TaggedError("RememberRefused")<{
  readonly reason: string
}> {
  override get message(): string {
    return this.reason
  }
}

export interface RememberRequest extends PersonWait {
  readonly memoryDir: string
  /** `memory-roots/<hash>/`: the journal and the locks live there. */
  readonly rootDir: string
  readonly text: string
  /** Default "project". */
  readonly type?: MemoryType
  /** Saves a text that reads as an instruction to do a risky act (otherwise refused with the reason). */
  readonly allowRisky?: boolean
  readonly session: string | null
}

export interface RememberResult {
  /** The new topic file, relative to the memory directory. */
  readonly file: string
  /** Every file written: the topic and MEMORY.md. */
  readonly files: ReadonlyArray<string>
  /** The journal task: `pm undo` removes it again. */
  readonly task: string
  /** What the person should know about undoing it (an index larger than the journal keeps), when anything. */
  readonly note?: string
  /** Said when the new index line lies past the part of MEMORY.md a session loads. */
  readonly windowNote?: string
}

export const makeRemember = ({ fs, store, writer, journal, locks }: MemoryChangeServices) =>
  Effect.fn("MemoryBrowse.remember")(function*(request: RememberRequest) {
    const { memoryDir } = request
    yield* checkDir(fs, memoryDir)
    const failed = (outcome: string) => (e: Error) => new ForgetFailed({ outcome, cause: e })
    const task = `remember-${randomUUID()}`
    const body = (journaled: WriteJournal) => Effect.gen(function*() {
      // Named under the lock: a background writer may have added a file of the same name meanwhile.
      const present = yield* fs.readDirectory(memoryDir).pipe(Effect.orElseSucceed(() => []))
      const made = rememberedTopic(request.text, request.type ?? "project", new Set(present.map((e) => e.name.toLowerCase())), request.allowRisky === true)
      if (made._tag === "Refused") return yield* new RememberRefused({ reason: made.reason })
      const { topic } = made
      // Read whole before anything is written: an index too large to rewrite refuses the remember here.
      const index = yield* indexForRewrite(fs, memoryDir)
      const writeTask = yield* writer.openTask({ memoryDir, cwd: memoryDir, journal: journaled })
      // A person's own words: the source the journal keeps, and `pm show` tells.
      yield* writeTask.write(topic.filename, topic.content, "person").pipe(Effect.mapError(failed("nothing was saved")))
      const line = indexLine({ filename: topic.filename, title: topic.name, description: topic.hook })
      let next: string | Uint8Array
      if (index.exists) {
        yield* writeTask.recordRead(INDEX_FILE, { kind: "text", truncated: false }, { bytes: index.bytes, mtimeMs: index.mtimeMs })
        next = appendIndexLine(index.bytes, line)
      } else {
        // No index yet: the one the first read would make from the other topics, with this line first.
        const { topics } = yield* store.scanTopics(memoryDir)
        const others = topics.filter((t) => t.filename !== topic.filename)
        next = `${line}\n${buildBackfillIndex(others.map((t) => ({ filename: t.filename, title: t.name ?? t.filename, description: t.description })))}`
      }
      yield* writeTask.write(INDEX_FILE, next).pipe(Effect.mapError(failed("nothing was saved")))
      const note = undoWindowNote(INDEX_FILE, index.bytes.length)
      // Decoded only to measure the window; the bytes written above are the file's own.
      const windowNote = lineInWindow(typeof next === "string" ? next : decode(next), line) ? undefined : outsideWindowNote(topic.filename)
      return {
        file: topic.filename,
        files: [topic.filename, INDEX_FILE],
        task,
        ...(note === undefined ? {} : { note }),
        ...(windowNote === undefined ? {} : { windowNote })
      } satisfies RememberResult
    })
    // Whole or absent: the topic and its index line are kept together or rolled back together.
    const meta = { task, kind: "remember", session: request.session, model: null }
    const whole = journal.whole({ paths: { rootDir: request.rootDir, memoryDir }, meta, locks: BACKGROUND_LOCKS }, body, Exit.isSuccess).pipe(
      Effect.mapError(wholeFailureAsForgetFailed("nothing was saved"))
    )
    return yield* holdingBackgroundLocks({ rootDir: request.rootDir, memoryDir }, whole, request).pipe(
      Effect.provideService(LockService, locks),
      Effect.provideService(Journal, journal),
      Effect.mapError(lockFailureAsForgetFailed)
    )
  })
