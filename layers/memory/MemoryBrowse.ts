/**
 * MemoryBrowse: list, show, search and forget topics of one memory directory, as `pm` and `/memory` offer them.
 * Reads go through MemoryStore and FileSystem and never create anything (no index backfill). `forget` deletes
 * through MemoryWriter's safe delete path and rewrites the index through a writer task, holding `extract.lock` and
 * `dream.lock` (the locks background writers hold while they change memory); the writer journals each change, from
 * the bytes it removes or replaces, under the forget's task id, so `pm undo` brings it all back.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { randomUUID } from "node:crypto"
import { join } from "node:path"
import {
  indexLinkedFiles,
  type NameResolution,
  removeIndexLinks,
  resolveTopicName,
  type SearchHit,
  searchDocuments
} from "../../src/memory/memoryQuery.ts"
import { buildBackfillIndex, indexLine } from "../../src/memory/memoryIndex.ts"
import { rememberedTopic } from "../../src/writes/remember.ts"
import { isBinaryContent } from "../../src/memory/binaryText.ts"
import { ageInDays, stalenessNote } from "../../src/memory/staleness.ts"
import { INDEX_FILE, locksDirOf } from "../../src/storage/layout.ts"
import type { MemoryType } from "../../src/memory/frontmatter.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { FsReason, fsReasonText } from "../storage/FsError.ts"
import { Journal } from "../writes/Journal.ts"
import { LockService } from "../storage/LockService.ts"
import { LockFailed, LockLost } from "../storage/lockInterface.ts"
import { holdingBackgroundLocks, MemoryBusy, PERSON_LOCK_WAIT_MS, type PersonWait } from "../writes/MemoryUndo.ts"
import { MemoryStore, type Topic } from "./MemoryStore.ts"
import { MemoryWriter } from "../writes/MemoryWriter.ts"

/** Largest topic file `show` and `search` read whole. */
const READ_MAX_BYTES = 4 * 1024 * 1024
/** How long `forget` waits for a background writer to finish. */
export const FORGET_LOCK_WAIT_MS = PERSON_LOCK_WAIT_MS

/** The memory directory is missing or cannot be read: an error of the command, not an empty memory. */
export class MemoryDirUnreadable extends Schema.TaggedError<MemoryDirUnreadable>()("MemoryDirUnreadable", {
  path: Schema.String,
  reason: FsReason
}) {
  override get message(): string {
    return this.reason === "NotFound"
      ? `memory directory ${this.path} does not exist`
      : this.reason === "NotADirectory" || this.reason === "NotAFile"
      ? `memory directory ${this.path} is not a directory`
      : `memory directory ${this.path} cannot be read (${this.reason})`
  }
}

/** A name given to show or forget that denotes no topic (or one outside memory). */
export class TopicRefused extends Schema.TaggedError<TopicRefused>()("TopicRefused", {
  name: Schema.String,
  problem: Schema.Literal("outside-memory", "index", "unknown"),
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** Forget could not finish: the lock stayed busy, or the journal or the writer failed. Nothing was lost. */
export class ForgetFailed extends Schema.TaggedError<ForgetFailed>()("ForgetFailed", {
  reason: Schema.String
}) {
  override get message(): string {
    return `forget failed: ${this.reason}`
  }
}

export interface ListedTopic {
  readonly filename: string
  readonly name: string | null
  readonly type: MemoryType | null
  readonly description: string | null
  readonly mtime: string
  readonly ageDays: number
  readonly linked: boolean
  readonly headerProblem: string | null
}

export interface Listing {
  readonly memoryDir: string
  readonly indexExists: boolean
  readonly topics: ReadonlyArray<ListedTopic>
  readonly skipped: ReadonlyArray<{ readonly filename: string; readonly reason: string }>
}

export interface ShownTopic extends ListedTopic {
  readonly path: string
  readonly stale: boolean
  readonly staleness: string | null
  /** The text; empty for a file that is not text (`binary`). */
  readonly content: string
  readonly truncated: boolean
  /** Not text (NUL bytes, not UTF-8, control characters): its content is not shown. */
  readonly binary: boolean
  /** The file's size in bytes. */
  readonly sizeBytes: number
}

export interface ForgetResult {
  readonly forgotten: ReadonlyArray<string>
  readonly indexLinesRemoved: number
  /** The journal task: `pm undo` restores the files. */
  readonly task: string
}

export interface ForgetRequest extends PersonWait {
  readonly memoryDir: string
  /** `memory-roots/<hash>/`: the journal and the locks live there. */
  readonly rootDir: string
  readonly names: ReadonlyArray<string>
  readonly session: string | null
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

/** `remember` refused the text (a credential, too large, nothing given): nothing was written. */
export class RememberRefused extends Schema.TaggedError<RememberRefused>()("RememberRefused", {
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

export interface MemoryBrowseShape {
  readonly list: (memoryDir: string, nowMs?: number) => Effect.Effect<Listing, MemoryDirUnreadable>
  readonly show: (memoryDir: string, name: string, nowMs?: number) => Effect.Effect<ShownTopic, MemoryDirUnreadable | TopicRefused>
  readonly search: (memoryDir: string, query: string) => Effect.Effect<ReadonlyArray<SearchHit>, MemoryDirUnreadable>
  /** Every name must denote a topic, or nothing changes. */
  readonly forget: (request: ForgetRequest) => Effect.Effect<ForgetResult, MemoryDirUnreadable | TopicRefused | ForgetFailed>
  /**
   * A person's explicit save: one new topic file from `text` and its MEMORY.md line, through the writer with the
   * checks a background write passes (credentials, size, header), journaled like one (`pm undo` takes it back).
   */
  readonly remember: (request: RememberRequest) => Effect.Effect<RememberResult, MemoryDirUnreadable | RememberRefused | ForgetFailed>
  /** Topic file names, for completions; empty when the directory cannot be read. */
  readonly names: (memoryDir: string) => Effect.Effect<ReadonlyArray<string>>
}

const decoder = new TextDecoder()

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

  const checkDir = (memoryDir: string): Effect.Effect<void, MemoryDirUnreadable> =>
    fs.stat(memoryDir).pipe(
      Effect.mapError((e) => new MemoryDirUnreadable({ path: memoryDir, reason: e.reason })),
      Effect.flatMap((info) =>
        info.kind === "directory"
          ? fs.readDirectory(memoryDir).pipe(
            Effect.asVoid,
            Effect.mapError((e) => new MemoryDirUnreadable({ path: memoryDir, reason: e.reason }))
          )
          : Effect.fail(new MemoryDirUnreadable({ path: memoryDir, reason: "NotADirectory" }))
      )
    )

  /** The index as it is on disk ("" when missing); never backfilled here. */
  const rawIndex = (memoryDir: string) =>
    fs.readRegularFile(join(memoryDir, INDEX_FILE), 1 << 20).pipe(
      Effect.map((r) => ({ exists: true, text: decoder.decode(r.bytes), mtimeMs: r.info.mtimeMs, bytes: r.bytes })),
      Effect.orElseSucceed(() => ({ exists: false, text: "", mtimeMs: 0, bytes: new Uint8Array() }))
    )

  const describe = (t: Topic, linked: ReadonlySet<string>, nowMs: number): ListedTopic => ({
    filename: t.filename,
    name: t.name ?? null,
    type: t.type ?? null,
    description: t.description ?? null,
    mtime: new Date(t.fileMtimeMs).toISOString(),
    ageDays: ageInDays(t.fileMtimeMs, nowMs),
    linked: linked.has(t.filename),
    headerProblem: t.headerProblem ?? null
  })

  const list = Effect.fn("MemoryBrowse.list")(function*(memoryDir: string, nowMs: number = Date.now()) {
    yield* checkDir(memoryDir)
    const index = yield* rawIndex(memoryDir)
    const linked = indexLinkedFiles(index.text)
    const { topics, skipped } = yield* store.scanTopics(memoryDir)
    return {
      memoryDir,
      indexExists: index.exists,
      topics: topics.map((t) => describe(t, linked, nowMs)),
      skipped
    } satisfies Listing
  })

  const resolveName = (name: string, topics: ReadonlyArray<Topic>) => {
    const r: NameResolution = resolveTopicName(name, topics)
    return r._tag === "Found"
      ? Effect.succeed(topics.find((t) => t.filename === r.filename)!)
      : Effect.fail(new TopicRefused({ name: r.name, problem: r.problem, reason: r.reason }))
  }

  const show = Effect.fn("MemoryBrowse.show")(function*(memoryDir: string, name: string, nowMs: number = Date.now()) {
    yield* checkDir(memoryDir)
    const { topics } = yield* store.scanTopics(memoryDir)
    const topic = yield* resolveName(name, topics)
    const read = yield* fs.readRegularFile(topic.path, READ_MAX_BYTES).pipe(
      Effect.mapError(() => new TopicRefused({ name, problem: "unknown", reason: `${topic.filename} cannot be read` }))
    )
    const linked = indexLinkedFiles((yield* rawIndex(memoryDir)).text)
    const note = stalenessNote(topic.fileMtimeMs, nowMs)
    const binary = isBinaryContent(read.bytes)
    return {
      ...describe(topic, linked, nowMs),
      path: topic.path,
      stale: note !== undefined,
      staleness: note ?? null,
      content: binary ? "" : decoder.decode(read.bytes),
      truncated: read.partial,
      binary,
      sizeBytes: read.info.size
    } satisfies ShownTopic
  })

  const search = Effect.fn("MemoryBrowse.search")(function*(memoryDir: string, query: string) {
    yield* checkDir(memoryDir)
    const { topics } = yield* store.scanTopics(memoryDir)
    const documents = yield* Effect.forEach(topics, (t) =>
      fs.readRegularFile(t.path, READ_MAX_BYTES).pipe(
        Effect.map((r) => ({ filename: t.filename, name: t.name, description: t.description, content: decoder.decode(r.bytes) })),
        Effect.orElseSucceed(() => ({ filename: t.filename, name: t.name, description: t.description, content: "" }))
      ), { concurrency: 8 })
    return searchDocuments(query, documents)
  })

  const forget = Effect.fn("MemoryBrowse.forget")(function*(request: ForgetRequest) {
    const { memoryDir } = request
    yield* checkDir(memoryDir)
    if (request.names.length === 0) return yield* new TopicRefused({ name: "", problem: "unknown", reason: "name at least one topic to forget" })
    const body = Effect.gen(function*() {
      // Resolved under the lock: a background writer may have renamed or removed a topic meanwhile.
      const { topics } = yield* store.scanTopics(memoryDir)
      const chosen: Array<Topic> = []
      for (const name of request.names) {
        const topic = yield* resolveName(name, topics)
        if (!chosen.includes(topic)) chosen.push(topic)
      }
      const index = yield* rawIndex(memoryDir)
      const next = removeIndexLinks(index.text, chosen.map((t) => t.filename))
      const task = `forget-${randomUUID()}`
      const journaled = journal.forWriter({ rootDir: request.rootDir }, { task, kind: "forget", session: request.session, model: null })
      for (const t of chosen) {
        yield* writer.remove(t.filename, { memoryDir, cwd: memoryDir, byPerson: true, journal: journaled }).pipe(
          Effect.mapError((e) => new ForgetFailed({ reason: e.message }))
        )
      }
      if (index.exists && next.removed > 0) {
        const writeTask = yield* writer.openTask({ memoryDir, cwd: memoryDir, journal: journaled })
        yield* writeTask.recordRead(INDEX_FILE, { kind: "text", truncated: false }, { content: index.text, mtimeMs: index.mtimeMs })
        yield* writeTask.write(INDEX_FILE, next.text).pipe(
          Effect.mapError((e) => new ForgetFailed({ reason: `the topics are gone but the index was not updated: ${e.message}` }))
        )
      }
      return { forgotten: chosen.map((t) => t.filename), indexLinesRemoved: next.removed, task } satisfies ForgetResult
    })
    // The locks of both background writers, as undo takes them: no task publishes into memory meanwhile.
    return yield* holdingBackgroundLocks(request.rootDir, body, request).pipe(
      Effect.provideService(LockService, locks),
      Effect.mapError((e) =>
        e instanceof LockFailed || e instanceof LockLost
          ? new ForgetFailed({ reason: e.message })
          : e instanceof MemoryBusy
          ? new ForgetFailed({ reason: e.message })
          : e
      )
    )
  })

  const remember = Effect.fn("MemoryBrowse.remember")(function*(request: RememberRequest) {
    const { memoryDir } = request
    yield* checkDir(memoryDir)
    const failed = (what: string) => (e: { readonly message: string }) => new ForgetFailed({ reason: `${what}: ${e.message}` })
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
      const index = yield* rawIndex(memoryDir)
      const line = indexLine({ filename: topic.filename, title: topic.name, description: topic.description })
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
      Effect.mapError((e) =>
        e instanceof LockFailed || e instanceof LockLost || e instanceof MemoryBusy ? new ForgetFailed({ reason: e.message }) : e
      )
    )
  })

  const names = (memoryDir: string) =>
    store.scanTopics(memoryDir).pipe(Effect.map((r) => r.topics.map((t) => t.filename)))

  return { list, show, search, forget, remember, names } as MemoryBrowseShape
})

export class MemoryBrowse extends Context.Tag("MemoryBrowse")<MemoryBrowse, MemoryBrowseShape>() {
  /** The service's one constructor (its layer's, and the extension graph's). */
  static readonly make = makeMemoryBrowse
  static readonly layer: Layer.Layer<MemoryBrowse, never, FileSystem | MemoryStore | MemoryWriter | Journal | LockService> =
    Layer.effect(MemoryBrowse, MemoryBrowse.make)
}
