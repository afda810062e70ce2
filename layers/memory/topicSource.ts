/**
 * Where a topic's current content came from, as `pm show` and `/memory show` tell it: the journal's newest change of
 * that file whose `after` is the sha256 of the bytes on disk now, and the source it recorded (src/writes/journal.ts).
 * A file whose bytes no journaled change produced (edited by hand, written by the main agent, or journaled before the
 * journal was pruned) has no recorded source. Reads only.
 */
import * as Effect from "effect/Effect"
import { sha256Hex } from "../../src/writes/journal.ts"
import type { JournalShape } from "../writes/Journal.ts"

export interface TopicSource {
  /** `user`, `assistant`, `tool: …`, `model`, `dream`, `person`, `approved: …`; null when the change kept none. */
  readonly source: string | null
  /** The change's task, its kind (extract, dream, remember, approve…) and when it was recorded. */
  readonly task: string
  readonly kind: string
  readonly at: string
}

/** Older changes without a source still say who wrote them. */
const kindSource: Readonly<Record<string, string>> = { remember: "person", dream: "dream" }

export const topicSource = (
  journal: JournalShape,
  rootDir: string,
  file: string,
  bytes: Uint8Array
): Effect.Effect<TopicSource | null> =>
  journal.read({ rootDir }).pipe(
    Effect.map((listing) => {
      const sha = sha256Hex(bytes)
      for (const task of listing.entries) {
        for (let i = task.changes.length - 1; i >= 0; i--) {
          const c = task.changes[i]!
          if (c.file !== file || c.status !== "done" || c.after !== sha) continue
          return { source: c.source ?? kindSource[task.kind] ?? null, task: task.task, kind: task.kind, at: task.at }
        }
      }
      return null
    }),
    Effect.orElseSucceed(() => null)
  )

/** One line for a person: where the topic's content came from, or that it was not recorded. */
export const describeSource = (found: TopicSource | null): string =>
  found === null
    ? "not recorded (no journaled change wrote these bytes: edited by hand or by the main agent, or older than the journal)"
    : `${found.source ?? "not recorded"} (${found.kind}, task ${found.task}, ${found.at})`
