/**
 * MEMORY.md as it is on disk: `readIndexFile` reads it (at most 1 MiB) or fails with IndexReadError, `peekIndex`
 * gives its trimmed window for inspection and never fails. Neither creates, backfills nor changes the index.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { trimIndex, type IndexWindow } from "../../src/memory/memoryIndex.ts"
import { INDEX_FILE } from "../../src/storage/layout.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { FsError } from "../storage/FsError.ts"
import { decode, describeReason } from "./readText.ts"

/** MEMORY.md could not be read; `cause` is the FileSystem's failure. */
export class IndexReadError extends Data.TaggedError("IndexReadError")<{
  readonly path: string
  readonly cause: FsError
}> {
  /** The cause in the read path's words. */
  get reason(): string {
    return describeReason(this.cause.reason)
  }
  override get message(): string {
    return `cannot read ${this.path}: ${this.reason}`
  }
}

export interface IndexSummary extends IndexWindow {
  readonly exists: boolean
  readonly backfilled: boolean
}

/** Index reads are capped: the window is 25,000 units, and leading blank space beyond 1 MiB is not a real index. */
const INDEX_READ_CAP = 1 << 20

export const makeIndexFile = (fs: FileSystemShape) => {
  // Runs on every request: untraced, since a traced function (a span and a captured call-site stack) costs tens of
  // microseconds per call.
  const readIndexFile = Effect.fnUntraced(function* (memoryDir: string) {
    const path = join(memoryDir, INDEX_FILE)
    // A batch of one: read on every request, so one synchronous effect rather than a round trip per system call.
    const read = (yield* fs.readHeads([path], INDEX_READ_CAP))[0]!
    if (read._tag === "Left") return yield* Effect.fail(new IndexReadError({ path, cause: read.left }))
    return decode(read.right.bytes)
  })

  const peekIndex = (memoryDir: string) =>
    readIndexFile(memoryDir).pipe(
      Effect.map((text): IndexSummary => ({ ...trimIndex(text), exists: true, backfilled: false })),
      Effect.orElseSucceed((): IndexSummary => ({ ...trimIndex(""), exists: false, backfilled: false }))
    )

  return { readIndexFile, peekIndex }
}
