/**
 * Recording changes in the journal. `forWriter` is MemoryWriter's hook (writeJournal.ts): each publish runs holding
 * `journal.lock`; right before its rename or unlink the writer hands over the bytes it is replacing, which are stored
 * as a blob and named by an intent line, appended and fsynced; after the publish an outcome line (`done`, `failed`,
 * `unknown`) is appended. A writer killed in between leaves a pending intent, which undo settles from the file itself
 * (journalUndo.ts). `record` journals a whole task's changes as done, for callers that publish by other means.
 *
 * What it promises: nothing is published unjournaled (a journal that cannot be written fails the publish as
 * PublishFailed, before its rename); an outcome that cannot be appended leaves the intent pending, never a wrong
 * outcome. It reads nothing of the journal (see journalPrune.ts for when it prunes).
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { randomUUID } from "node:crypto"
import {
  type ChangeOp,
  type ChangeOutcome,
  encodeEntry,
  encodeOutcome,
  type JournalChange,
  type JournalEntry,
  sha256Hex
} from "../../src/writes/journal.ts"
import type { LockFailed, LockLost } from "../storage/lockInterface.ts"
import { PublishFailed } from "../storage/PublishFailed.ts"
import type { JournalBusy, JournalWriteError } from "./journalErrors.ts"
import type { JournalPruning } from "./journalPrune.ts"
import type { JournalPaths, JournalStore } from "./journalStore.ts"
import type { IntendedChange, WriteJournal } from "./writeJournal.ts"

/** Who a task's changes are journaled for. */
export interface TaskMeta {
  readonly task: string
  readonly kind: string
  readonly session: string | null
  readonly model: string | null
  readonly range?: { readonly from: string; readonly to: string } | null
  readonly undoes?: string
  readonly recovers?: string
}

/** One file's change, as bytes; null before = created, null after = deleted. */
export interface FileChange {
  /** Path relative to the memory directory, `/`-separated. */
  readonly file: string
  readonly before: Uint8Array | null
  readonly after: Uint8Array | null
}

export interface RecordInput extends TaskMeta {
  /** Milliseconds since the epoch; defaults to now. */
  readonly at?: number
  readonly changes: ReadonlyArray<FileChange>
}

export interface JournalRecording {
  /** Journals one task's changes as done (no intent). */
  readonly record: (paths: JournalPaths, input: RecordInput) => Effect.Effect<JournalEntry, JournalWriteError>
  /**
   * MemoryWriter's hook: every change published through it is journaled under `meta.task`. With `lockHeld` the caller
   * already holds `journal.lock` for the whole time the hook is used (a recovery), and the hook does not take it.
   */
  readonly forWriter: (paths: JournalPaths, meta: TaskMeta, options?: { readonly lockHeld?: boolean }) => WriteJournal
}

const opOf = (before: Uint8Array | null, after: Uint8Array | null): ChangeOp =>
  before === null ? "create" : after === null ? "delete" : "update"

/** A journal entry of `meta`'s task, stamped now. */
export const entryOf = (meta: TaskMeta, changes: ReadonlyArray<JournalChange>, extra: Partial<JournalEntry> = {}): JournalEntry => ({
  v: 1,
  task: meta.task,
  kind: meta.kind,
  at: new Date(Date.now()).toISOString(),
  session: meta.session,
  model: meta.model,
  ...(meta.range === undefined ? {} : { range: meta.range }),
  ...(meta.undoes === undefined ? {} : { undoes: meta.undoes }),
  ...(meta.recovers === undefined ? {} : { recovers: meta.recovers }),
  ...extra,
  changes
})

/** The change as journaled (hashes for bytes); undefined when nothing changes. */
const changeOf = (c: IntendedChange): JournalChange | undefined => {
  if (c.before === null && c.after === null) return undefined
  const before = c.before === null ? null : sha256Hex(c.before)
  const after = c.after === null ? null : sha256Hex(c.after)
  if (before === after) return undefined
  return {
    file: c.file,
    op: opOf(c.before, c.after),
    before,
    after,
    ...(c.mode === undefined || c.before === null ? {} : { mode: c.mode }),
    ...(c.source === undefined || c.after === null ? {} : { source: c.source })
  }
}

const asPublishFailed = (file: string) => (e: JournalWriteError): PublishFailed =>
  new PublishFailed({ path: file, op: "journal the change to", cause: e })

export const makeJournalRecording = (store: JournalStore, pruning: JournalPruning): JournalRecording => {
  const { appendLine, storeBlob, withJournalLock } = store
  const { afterAppend } = pruning

  const record = Effect.fn("Journal.record")(function*(paths: JournalPaths, input: RecordInput) {
    const changes = input.changes.flatMap((c) => {
      const change = changeOf(c)
      return change === undefined ? [] : [change]
    })
    const entry: JournalEntry = {
      ...entryOf(input, changes),
      ...(input.at === undefined ? {} : { at: new Date(input.at).toISOString() })
    }
    yield* withJournalLock(
      paths,
      Effect.gen(function*() {
        let added = 0
        for (const c of input.changes) if (c.before !== null) added += yield* storeBlob(paths, c.before)
        const size = yield* appendLine(paths, encodeEntry(entry))
        yield* afterAppend(paths, size, added)
      })
    )
    return entry
  })

  const forWriter = (paths: JournalPaths, meta: TaskMeta, options?: { readonly lockHeld?: boolean }): WriteJournal => ({
    around: <A, E>(
      publish: (intend: (change: IntendedChange) => Effect.Effect<void, PublishFailed>) => Effect.Effect<A, E>,
      settle: (exit: Exit.Exit<A, E>) => "done" | "failed" | "unknown"
    ): Effect.Effect<A, E | PublishFailed> => {
      let intent: { readonly id: string; readonly file: string; added: number } | undefined
      const intend = (c: IntendedChange): Effect.Effect<void, PublishFailed> =>
        Effect.gen(function*() {
          const change = changeOf(c)
          if (change === undefined) return
          const added = c.before === null ? 0 : yield* storeBlob(paths, c.before)
          const id = randomUUID()
          yield* appendLine(paths, encodeEntry(entryOf(meta, [change], { id })))
          intent = { id, file: c.file, added }
        }).pipe(Effect.mapError(asPublishFailed(c.file)))
      const body = Effect.gen(function*() {
        const exit = yield* Effect.exit(publish(intend))
        if (intent !== undefined && !Exit.isInterrupted(exit)) {
          const outcome: ChangeOutcome = settle(exit)
          // Not said (a failed append): the intent stays pending, and undo settles it from the file.
          const size = yield* appendLine(paths, encodeOutcome({ v: 1, id: intent.id, task: meta.task, outcome })).pipe(
            Effect.catchAll((e) => Effect.as(Effect.logWarning(`journal outcome not recorded: ${e.message}`), undefined))
          )
          if (size !== undefined) yield* afterAppend(paths, size, intent.added)
        }
        return yield* exit
      })
      return (options?.lockHeld === true ? body : withJournalLock(paths, body)).pipe(
        Effect.catchIf(
          (e): e is JournalBusy | LockFailed | LockLost => typeof e === "object" && e !== null && "_tag" in e &&
            (e._tag === "JournalBusy" || e._tag === "LockFailed" || e._tag === "LockLost"),
          (e) => Effect.fail(asPublishFailed(intent?.file ?? "memory")(e))
        )
      ) as Effect.Effect<A, E | PublishFailed>
    }
  })

  return { record, forWriter }
}
