/**
 * Review of the background writes held for the person (`pm review`, `/memory review`; src/writes/held.ts): list
 * them, approve one, or drop one. Approving publishes the held content to its topic file through the writer, adds
 * the topic's MEMORY.md line when the index does not link it yet, journals both as one whole task (`approve`, with
 * the source `approved: <where it came from>`), so `pm undo` takes it back, and only then removes the held item. It
 * holds the background writers' locks, as remember does. Dropping removes the held item and changes no memory.
 * An id that names no held item is ReviewRefused.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { randomUUID } from "node:crypto"
import { join } from "node:path"
import { parseFrontmatter } from "../../src/memory/frontmatter.ts"
import { appendIndexLine } from "../../src/memory/indexBytes.ts"
import { indexLine } from "../../src/memory/memoryIndex.ts"
import { indexLinkedFiles } from "../../src/memory/topicNames.ts"
import { INDEX_FILE } from "../../src/storage/layout.ts"
import type { HeldItem } from "../../src/writes/held.ts"
import { LockService } from "../storage/LockService.ts"
import { makeHeldStore } from "../writes/heldStore.ts"
import { Journal } from "../writes/Journal.ts"
import { BACKGROUND_LOCKS } from "../writes/journalRecover.ts"
import { holdingBackgroundLocks, type PersonWait } from "../writes/MemoryUndo.ts"
import type { WriteJournal } from "../writes/writeJournal.ts"
import { checkDir } from "./browseReads.ts"
import { indexForRewrite } from "./indexRewrite.ts"
import { decode } from "./readText.ts"
import { ForgetFailed, lockFailureAsForgetFailed, type MemoryChangeServices, wholeFailureAsForgetFailed } from "./topicForget.ts"

/** The id names no held write (never held, or already approved or dropped): nothing changed. */
export class ReviewRefused extends Data.TaggedError("ReviewRefused")<{ readonly id: string }> {
  override get message(): string {
    return `no held write ${JSON.stringify(this.id)}: \`pm review\` lists the ones waiting`
  }
}

export interface ApproveRequest extends PersonWait {
  readonly memoryDir: string
  /** `memory-roots/<hash>/`: the held writes, the journal and the locks live there. */
  readonly rootDir: string
  readonly id: string
  readonly session: string | null
}

export interface ApproveResult {
  readonly item: HeldItem
  /** Every file written: the topic, and MEMORY.md when its line was added. */
  readonly files: ReadonlyArray<string>
  /** The journal task: `pm undo` takes it back. */
  readonly task: string
}

export const makeReview = ({ fs, writer, journal, locks }: MemoryChangeServices) => {
  const held = makeHeldStore(fs)

  const list = (rootDir: string) => held.list(rootDir)

  const drop = Effect.fn("MemoryBrowse.drop")(function*(rootDir: string, id: string) {
    const item = yield* held.find(rootDir, id)
    if (item === undefined) return yield* new ReviewRefused({ id })
    yield* held.remove(rootDir, id).pipe(Effect.mapError((e) => new ForgetFailed({ outcome: "nothing was dropped", cause: e })))
    return item
  })

  const approve = Effect.fn("MemoryBrowse.approve")(function*(request: ApproveRequest) {
    const { memoryDir, rootDir } = request
    yield* checkDir(fs, memoryDir)
    const item = yield* held.find(rootDir, request.id)
    if (item === undefined) return yield* new ReviewRefused({ id: request.id })
    const failed = (e: Error) => new ForgetFailed({ outcome: "nothing was saved", cause: e })
    const task = `approve-${randomUUID()}`
    const body = (journaled: WriteJournal) => Effect.gen(function*() {
      const index = yield* indexForRewrite(fs, memoryDir)
      const writeTask = yield* writer.openTask({ memoryDir, cwd: memoryDir, journal: journaled })
      // The topic as it is now is what the approval replaces (its baseline), if it exists.
      const current = yield* fs.readRegularFile(join(memoryDir, item.file)).pipe(Effect.option)
      if (current._tag === "Some") {
        yield* writeTask.recordRead(item.file, { kind: "text", truncated: false }, { bytes: current.value.bytes, mtimeMs: current.value.info.mtimeMs })
      }
      yield* writeTask.write(item.file, item.content, `approved: ${item.source}`).pipe(Effect.mapError(failed))
      const files = [item.file]
      const indexText = index.exists ? decode(index.bytes) : ""
      if (!indexLinkedFiles(indexText).has(item.file)) {
        const header = parseFrontmatter(item.content)
        const line = indexLine({ filename: item.file, title: header.name ?? item.file, description: header.description })
        if (index.exists) yield* writeTask.recordRead(INDEX_FILE, { kind: "text", truncated: false }, { bytes: index.bytes, mtimeMs: index.mtimeMs })
        yield* writeTask.write(INDEX_FILE, index.exists ? appendIndexLine(index.bytes, line) : `${line}\n`).pipe(Effect.mapError(failed))
        files.push(INDEX_FILE)
      }
      return { item, files, task } satisfies ApproveResult
    })
    const meta = { task, kind: "approve", session: request.session, model: null }
    const whole = journal.whole({ paths: { rootDir, memoryDir }, meta, locks: BACKGROUND_LOCKS }, body, Exit.isSuccess).pipe(
      Effect.mapError(wholeFailureAsForgetFailed("nothing was saved"))
    )
    const result = yield* holdingBackgroundLocks({ rootDir, memoryDir }, whole, request).pipe(
      Effect.provideService(LockService, locks),
      Effect.provideService(Journal, journal),
      Effect.mapError(lockFailureAsForgetFailed)
    )
    // Saved and journaled: the held copy goes. Were this to fail, approving it again would only rewrite the same bytes.
    yield* held.remove(rootDir, item.id).pipe(Effect.ignore)
    return result
  })

  return { list, approve, drop }
}
