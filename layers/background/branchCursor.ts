/**
 * The main session's side that the extraction reads: the parent's request as captured for fork reuse (set at
 * `context_with_system`, grown at `message_end`, dropped on a branch change) and the extractor's cursor on the
 * current branch, persisted as a custom session entry when it advances. A stale host reads as an empty branch and
 * records nothing.
 */
import type { Message } from "@earendil-works/pi-ai"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { CURSOR_ENTRY, cursorOnBranch, type TreeEntry } from "../../src/background/cursor.ts"
import { Host } from "../session/Host.ts"
import { type ModelIdentity, safe, type SessionState } from "./sessionState.ts"

export const makeBranchCursor = (state: SessionState) =>
  Effect.gen(function*() {
    const host = yield* Host

    /** The cursor on the current branch (src/background/cursor.ts): what any branch's extraction covered of it. */
    const branchCursor = Effect.gen(function*() {
      const branch = (yield* safe(host.branch, [])) as ReadonlyArray<TreeEntry>
      const entries = host.entries === undefined ? branch : (yield* safe(host.entries, branch)) as ReadonlyArray<TreeEntry>
      return cursorOnBranch(branch, entries, [yield* Ref.get(state.cursor)])
    })

    const captureRequest = (messages: ReadonlyArray<unknown>, model: ModelIdentity | undefined) =>
      Ref.set(
        state.captured,
        model === undefined ? undefined : { messages: [...(messages as ReadonlyArray<Message>)], model }
      )

    const messageEnded = (message: unknown) =>
      Ref.update(state.captured, (c) => {
        const m = message as Message | undefined
        if (c === undefined || m === undefined) return c
        if (m.role !== "user" && m.role !== "assistant" && m.role !== "toolResult") return c
        // The same message can reach us twice (the capture already holds what was sent): keep one.
        if (c.messages.includes(m)) return c
        return { ...c, messages: [...c.messages, m] }
      })

    /** The cursor moves to `to` and is recorded on the branch (unchanged: nothing is written). */
    const advance = (to: string | undefined) =>
      Effect.gen(function*() {
        if (to === undefined || to === (yield* Ref.get(state.cursor))) return
        yield* Ref.set(state.cursor, to)
        yield* safe(host.appendEntry(CURSOR_ENTRY, { cursor: to }), undefined)
      })

    /** `session_tree`: the cursor as it applies to the new branch; the captured request (the old branch's) is dropped. */
    const branchChanged = Effect.gen(function*() {
      yield* Ref.set(state.captured, undefined)
      yield* Ref.set(state.cursor, yield* branchCursor)
    })

    return { branchCursor, captureRequest, messageEnded, advance, branchChanged }
  })

export type BranchCursor = Effect.Effect.Success<ReturnType<typeof makeBranchCursor>>
