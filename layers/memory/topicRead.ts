/**
 * Reading one topic for recall: at most `RECALL_MAX_BYTES` plus one byte of the file, cut to its recall window
 * (src/memory/topicWindow.ts) and returned with its mtime. A file that cannot be read fails with TopicReadError;
 * a FIFO or a directory fails at once and never blocks. It reads a topic and changes nothing.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { RECALL_MAX_BYTES } from "../../src/limits.ts"
import { recallWindow, type RecallWindow } from "../../src/memory/topicWindow.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { FsError } from "../storage/FsError.ts"
import { describeReason } from "./readText.ts"

/** A topic chosen for recall could not be read; `cause` is the FileSystem's failure. */
export class TopicReadError extends Data.TaggedError("TopicReadError")<{
  readonly filename: string
  readonly cause: FsError
}> {
  /** The cause in the read path's words. */
  get reason(): string {
    return describeReason(this.cause.reason)
  }
  override get message(): string {
    return `cannot read ${this.filename}: ${this.reason}`
  }
}

export interface RecallRead {
  readonly filename: string
  readonly path: string
  readonly window: RecallWindow
  readonly mtimeMs: number
}

export const makeTopicRead = (fs: FileSystemShape) =>
  // Runs on every recall: untraced, since a traced function (a span and a captured call-site stack) costs tens of
  // microseconds per call.
  Effect.fnUntraced(function* (memoryDir: string, filename: string) {
    const path = join(memoryDir, filename)
    // A batch of one: the file is read synchronously in this effect (a recall reads at most five small files).
    const read = yield* fs.readHeads([path], RECALL_MAX_BYTES + 1).pipe(
      Effect.flatMap(([each]) => each!),
      Effect.mapError((e) => new TopicReadError({ filename, cause: e }))
    )
    return { filename, path, window: recallWindow(read.bytes, read.partial), mtimeMs: read.info.mtimeMs } satisfies RecallRead
  })
