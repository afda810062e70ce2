/**
 * MemoryBrowse: list, show, search and forget topics of one memory directory, as `pm` and `/memory` offer them.
 * Reads go through MemoryStore and FileSystem and never create anything (no index backfill). `forget` deletes
 * through MemoryWriter's safe delete path and rewrites the index through a writer task, holding `extract.lock` and
 * `dream.lock` (the locks background writers hold while they change memory); the writer journals each change, from
 * the bytes it removes or replaces, under the forget's task id, so `pm undo` brings it all back. Forget and remember
 * change MEMORY.md as bytes, read whole (indexRewrite.ts): only their own lines change. This module holds
 * the service and puts its parts together: the reads (browseReads.ts), forget (topicForget.ts), remember
 * (topicRemember.ts) and the review of held background writes (topicReview.ts).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { SearchHit } from "../../src/memory/topicSearch.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { LockService } from "../storage/LockService.ts"
import { Journal } from "../writes/Journal.ts"
import { MemoryWriter } from "../writes/MemoryWriter.ts"
import { type Listing, type ListPage, makeBrowseReads, type MemoryDirUnreadable, type ShownTopic, type TopicRefused } from "./browseReads.ts"
import type { IndexTooLarge, IndexUnreadable } from "./indexRewrite.ts"
import { MemoryStore } from "./MemoryStore.ts"
import type { ForgetFailed, ForgetRequest, ForgetResult } from "./topicForget.ts"
import type { RememberRefused, RememberRequest, RememberResult } from "./topicRemember.ts"
import type { ApproveRequest, ApproveResult, ReviewRefused } from "./topicReview.ts"
import type { HeldItem } from "../../src/writes/held.ts"

export interface MemoryBrowseShape {
  /** A page of the topics, newest first (the 200 newest unless `page` says otherwise), and how many there are. */
  readonly list: (memoryDir: string, nowMs?: number, page?: ListPage) => Effect.Effect<Listing, MemoryDirUnreadable>
  /** With `rootDir` (`memory-roots/<hash>/`), the topic's source as the journal recorded it (layers/memory/topicSource.ts). */
  readonly show: (memoryDir: string, name: string, nowMs?: number, rootDir?: string) => Effect.Effect<ShownTopic, MemoryDirUnreadable | TopicRefused>
  readonly search: (memoryDir: string, query: string) => Effect.Effect<ReadonlyArray<SearchHit>, MemoryDirUnreadable>
  /** Every name must denote a topic, or nothing changes. */
  readonly forget: (
    request: ForgetRequest
  ) => Effect.Effect<ForgetResult, MemoryDirUnreadable | TopicRefused | ForgetFailed | IndexTooLarge | IndexUnreadable>
  /**
   * A person's explicit save: one new topic file from `text` and its MEMORY.md line, through the writer with the
   * checks a background write passes (credentials, size, header), journaled like one (`pm undo` takes it back).
   */
  readonly remember: (
    request: RememberRequest
  ) => Effect.Effect<RememberResult, MemoryDirUnreadable | RememberRefused | ForgetFailed | IndexTooLarge | IndexUnreadable>
  /** The background writes held for review (layers/memory/topicReview.ts), oldest first. */
  readonly held: (rootDir: string) => Effect.Effect<ReadonlyArray<HeldItem>>
  /** Saves a held write as memory (journaled: `pm undo` takes it back) and removes it from review. */
  readonly approve: (
    request: ApproveRequest
  ) => Effect.Effect<ApproveResult, MemoryDirUnreadable | ReviewRefused | ForgetFailed | IndexTooLarge | IndexUnreadable>
  /** Removes a held write from review; memory is not changed. */
  readonly drop: (rootDir: string, id: string) => Effect.Effect<HeldItem, ReviewRefused | ForgetFailed>
  /** Topic file names, for completions; empty when the directory cannot be read. */
  readonly names: (memoryDir: string) => Effect.Effect<ReadonlyArray<string>>
}

export const makeMemoryBrowse: Effect.Effect<
  MemoryBrowseShape,
  never,
  FileSystem | MemoryStore | MemoryWriter | Journal | LockService
> = Effect.gen(function*() {
  const fs = yield* FileSystem
  const store = yield* MemoryStore
  const writer = yield* MemoryWriter
  const journal = yield* Journal
  const locks = yield* LockService
  const { list, show, search, names } = makeBrowseReads(fs, store, journal)
  const services = { fs, store, writer, journal, locks }
  // The changing parts (and the checks a save runs, the credential detector among them) load on their first use: a
  // listing or a search never evaluates them.
  const forget = Effect.cached(Effect.promise(() => import("./topicForget.ts")).pipe(Effect.map((m) => m.makeForget(services))))
  const remember = Effect.cached(Effect.promise(() => import("./topicRemember.ts")).pipe(Effect.map((m) => m.makeRemember(services))))
  const review = Effect.cached(Effect.promise(() => import("./topicReview.ts")).pipe(Effect.map((m) => m.makeReview(services))))
  const [forgetOnce, rememberOnce, reviewOnce] = yield* Effect.all([forget, remember, review])
  return {
    list,
    show,
    search,
    forget: (request) => Effect.flatMap(forgetOnce, (f) => f(request)),
    remember: (request) => Effect.flatMap(rememberOnce, (f) => f(request)),
    held: (rootDir) => Effect.flatMap(reviewOnce, (r) => r.list(rootDir)),
    approve: (request) => Effect.flatMap(reviewOnce, (r) => r.approve(request)),
    drop: (rootDir, id) => Effect.flatMap(reviewOnce, (r) => r.drop(rootDir, id)),
    names
  } satisfies MemoryBrowseShape
})

export class MemoryBrowse extends Context.Tag("MemoryBrowse")<MemoryBrowse, MemoryBrowseShape>() {
  /** The service's one constructor (its layer's, and the extension graph's). */
  static readonly make = makeMemoryBrowse
  static readonly layer: Layer.Layer<MemoryBrowse, never, FileSystem | MemoryStore | MemoryWriter | Journal | LockService> =
    Layer.effect(MemoryBrowse, MemoryBrowse.make)
}
