/**
 * The index a request reads, backfilled when it is missing. `readIndex` gives MEMORY.md's trimmed window and never
 * fails; only a truly absent index (not a dangling symlink, not a directory of that name) is created from the
 * scanned topics. `backfillIndex` creates it for direct callers, failing with BackfillError. The index is published
 * whole and only if absent, so a racing writer's index is never replaced; an existing one is never changed.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { buildBackfillIndex, trimIndex } from "../../src/memory/memoryIndex.ts"
import { INDEX_FILE } from "../../src/storage/layout.ts"
import { publishFile } from "../storage/AtomicPublish.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { FsError } from "../storage/FsError.ts"
import type { IndexReadError } from "./indexFile.ts"
import { describeReason } from "./readText.ts"
import type { ScanResult, Topic } from "./topicScan.ts"

/** MEMORY.md could not be created, or the one a racing writer created could not be read; `cause` says which. */
export class BackfillError extends Data.TaggedError("BackfillError")<{
  readonly path: string
  readonly cause: FsError | IndexReadError
}> {
  /** The cause in the read path's words. */
  get reason(): string {
    return this.cause._tag === "IndexReadError" ? this.cause.reason : describeReason(this.cause.reason)
  }
  override get message(): string {
    return `cannot create ${this.path}: ${this.reason}`
  }
}

export const makeIndexBackfill = (
  fs: FileSystemShape,
  readIndexFile: (memoryDir: string) => Effect.Effect<string, IndexReadError>,
  scanTopics: (memoryDir: string) => Effect.Effect<ScanResult>
) => {
  /** Publishes the backfilled index unless one exists; `created` says whether this call's file is the one on disk. */
  const publishIndex = (memoryDir: string, topics: ReadonlyArray<Topic>) =>
    Effect.gen(function* () {
      const path = join(memoryDir, INDEX_FILE)
      const content = buildBackfillIndex(topics.map((t) => ({ filename: t.filename, title: t.name ?? t.filename.replace(/\.md$/, ""), description: t.description })))
      if (content === "") return { content: "", created: false }
      const fail = (e: FsError) => new BackfillError({ path, cause: e })
      // Published whole and only if absent (AtomicPublish "create"): the index appears complete or not at all, and a
      // racing writer's index is never replaced.
      const outcome = yield* publishFile(fs, { dir: memoryDir, name: INDEX_FILE, content, mode: "create", durable: true }).pipe(
        Effect.mapError(fail)
      )
      if (outcome._tag === "Published") return { content, created: true }
      const existing = yield* readIndexFile(memoryDir).pipe(Effect.mapError((e) => new BackfillError({ path, cause: e })))
      return { content: existing, created: false }
    })

  const backfillIndex = Effect.fn("MemoryStore.backfillIndex")(function* (memoryDir: string, topics: ReadonlyArray<Topic>) {
    return (yield* publishIndex(memoryDir, topics)).content
  })

  const readIndex = Effect.fn("MemoryStore.readIndex")(function* (memoryDir: string) {
    const existing = yield* readIndexFile(memoryDir).pipe(Effect.either)
    if (existing._tag === "Right") return { ...trimIndex(existing.right), exists: true, backfilled: false }
    const missing = existing.left.reason === describeReason("NotFound")
    const isLink = yield* fs.lstat(join(memoryDir, INDEX_FILE)).pipe(Effect.option)
    if (missing && isLink._tag === "Some" && isLink.value.kind !== "symlink") {
      // Another process published the index between our read and the lstat: read what it wrote.
      const again = yield* readIndexFile(memoryDir).pipe(Effect.option)
      if (again._tag === "Some") return { ...trimIndex(again.value), exists: true, backfilled: false }
    }
    // Only a truly absent index is backfilled: a dangling symlink or a directory named MEMORY.md is left alone.
    if (!missing || isLink._tag === "Some") return { ...trimIndex(""), exists: isLink._tag === "Some", backfilled: false }
    const { topics } = yield* scanTopics(memoryDir)
    const { content, created } = yield* publishIndex(memoryDir, topics).pipe(
      Effect.orElseSucceed(() => ({ content: "", created: false }))
    )
    return { ...trimIndex(content), exists: content !== "", backfilled: created }
  })

  return { backfillIndex, readIndex }
}
