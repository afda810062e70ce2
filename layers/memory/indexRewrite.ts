/**
 * MEMORY.md read whole, as bytes, for a command that rewrites it (forget, remember): never a cut copy. A file larger
 * than MEMORY_REWRITE_MAX_BYTES (or one that grew past it while it was read) is IndexTooLarge, a refusal with its
 * reason, before the command changes anything. A missing index is `exists: false`; one that cannot be read is
 * IndexUnreadable (a rewrite from nothing would drop it).
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { MEMORY_REWRITE_MAX_BYTES } from "../../src/limits.ts"
import { rewriteRefusal } from "../../src/memory/indexBytes.ts"
import { INDEX_FILE } from "../../src/storage/layout.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { FsReason } from "../storage/FsError.ts"
import { describeReason } from "./readText.ts"

/** MEMORY.md is larger than a command rewrites: nothing was changed. */
export class IndexTooLarge extends Data.TaggedError("IndexTooLarge")<{
  readonly size: number
  readonly limit: number
}> {
  override get message(): string {
    return rewriteRefusal(INDEX_FILE, this.size, this.limit) ?? `${INDEX_FILE} is too large to rewrite; nothing was changed.`
  }
}

/** MEMORY.md exists but cannot be read: nothing was changed. */
export class IndexUnreadable extends Data.TaggedError("IndexUnreadable")<{
  readonly reason: FsReason
}> {
  override get message(): string {
    return `${INDEX_FILE} cannot be read (${describeReason(this.reason)}), so the command cannot change it; nothing was changed.`
  }
}

export interface IndexBytes {
  readonly exists: boolean
  /** The whole file. */
  readonly bytes: Uint8Array
  readonly mtimeMs: number
}

/** The whole index as bytes, or a refusal; `limit` is MEMORY_REWRITE_MAX_BYTES but for tests. */
export const indexForRewrite = (
  fs: FileSystemShape,
  memoryDir: string,
  limit: number = MEMORY_REWRITE_MAX_BYTES
): Effect.Effect<IndexBytes, IndexTooLarge | IndexUnreadable> =>
  // One byte past the limit: a file that holds more is refused, whatever its size said when it was opened.
  fs.readRegularFile(join(memoryDir, INDEX_FILE), limit + 1).pipe(
    Effect.map((r) => ({ exists: true, bytes: r.bytes, mtimeMs: r.info.mtimeMs, size: Math.max(r.info.size, r.bytes.length) })),
    Effect.catchIf((e) => e.reason === "NotFound", () => Effect.succeed(undefined)),
    Effect.mapError((e) => new IndexUnreadable({ reason: e.reason })),
    Effect.flatMap((read) =>
      read === undefined
        ? Effect.succeed<IndexBytes>({ exists: false, bytes: new Uint8Array(), mtimeMs: 0 })
        : read.bytes.length > limit
        ? Effect.fail(new IndexTooLarge({ size: read.size, limit }))
        : Effect.succeed<IndexBytes>({ exists: true, bytes: read.bytes, mtimeMs: read.mtimeMs })
    )
  )
