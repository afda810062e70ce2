/**
 * Remember: a person's explicit save. One new topic file from the given text (src/writes/remember.ts names and
 * formats it) and its MEMORY.md line, written through the writer with the checks a background write passes
 * (credentials, size, header) and journaled like one, so `pm undo` takes it back. The file is named under the
 * locks of both background writers. Refused text (a credential, too large, nothing given) is RememberRefused and
 * writes nothing; a busy lock or a failed write is ForgetFailed, saying what was saved.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import type { MemoryType } from "../../src/memory/frontmatter.ts"
import { buildBackfillIndex, indexLine } from "../../src/memory/memoryIndex.ts"
import { INDEX_FILE } from "../../src/storage/layout.ts"
import { rememberedTopic } from "../../src/writes/remember.ts"
import { LockService } from "../storage/LockService.ts"
import { holdingBackgroundLocks, type PersonWait } from "../writes/MemoryUndo.ts"
import { checkDir, rawIndex } from "./browseReads.ts"
import { ForgetFailed, lockFailureAsForgetFailed, type MemoryChangeServices } from "./topicForget.ts"

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
  readonly session: string | null
}

export interface RememberResult {
  /** The new topic file, relative to the memory directory. */
  readonly file: string
  /** Every file written: the topic and MEMORY.md. */
  readonly files: ReadonlyArray<string>
  /** The journal task: `pm undo` removes it again. */
  readonly task: string
}

export const makeRemember = ({ fs, store, writer, journal, locks }: MemoryChangeServices) =>
  Effect.fn("MemoryBrowse.remember")(function*(request: RememberRequest) {
    const { memoryDir } = request
    yield* checkDir(fs, memoryDir)
    const failed = (outcome: string) => (e: Error) => new ForgetFailed({ outcome, cause: e })
    const body = Effect.gen(function*() {
      // Named under the lock: a background writer may have added a file of the same name meanwhile.
      const present = yield* fs.readDirectory(memoryDir).pipe(Effect.orElseSucceed(() => []))
      const made = rememberedTopic(request.text, request.type ?? "project", new Set(present.map((e) => e.name.toLowerCase())))
      if (made._tag === "Refused") return yield* new RememberRefused({ reason: made.reason })
      const { topic } = made
      const task = `remember-${randomUUID()}`
      const journaled = journal.forWriter({ rootDir: request.rootDir }, { task, kind: "remember", session: request.session, model: null })
      const writeTask = yield* writer.openTask({ memoryDir, cwd: memoryDir, journal: journaled })
      yield* writeTask.write(topic.filename, topic.content).pipe(Effect.mapError(failed("nothing was saved")))
      const index = yield* rawIndex(fs, memoryDir)
      const line = indexLine({ filename: topic.filename, title: topic.name, description: topic.hook })
      let next: string
      if (index.exists) {
        yield* writeTask.recordRead(INDEX_FILE, { kind: "text", truncated: false }, { content: index.text, mtimeMs: index.mtimeMs })
        next = `${index.text}${index.text === "" || index.text.endsWith("\n") ? "" : "\n"}${line}\n`
      } else {
        // No index yet: the one the first read would make from the other topics, with this line first.
        const { topics } = yield* store.scanTopics(memoryDir)
        const others = topics.filter((t) => t.filename !== topic.filename)
        next = `${line}\n${buildBackfillIndex(others.map((t) => ({ filename: t.filename, title: t.name ?? t.filename, description: t.description })))}`
      }
      yield* writeTask.write(INDEX_FILE, next).pipe(Effect.mapError(failed(`${topic.filename} was saved but the index was not updated`)))
      return { file: topic.filename, files: [topic.filename, INDEX_FILE], task } satisfies RememberResult
    })
    return yield* holdingBackgroundLocks(request.rootDir, body, request).pipe(
      Effect.provideService(LockService, locks),
      Effect.mapError(lockFailureAsForgetFailed)
    )
  })
