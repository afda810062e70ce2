/**
 * The system prompt sections memory adds to a request: the rules and the index, built once into a snapshot that
 * is reused byte for byte (cache-friendly), and today's date (from Effect's Clock, a day at a time, so the section
 * changes at most once a day). When MEMORY.md changed since the snapshot, `fill` returns a notice once, which goes with
 * the request as a message: a changed system prompt is a patch on a model that takes system messages mid-conversation,
 * but the whole prompt sent again (its cached prefix lost) on one that does not. The index file is read again only
 * when its stat says it may have changed. A snapshot of an empty memory (the short rules, no index) is built
 * again once MEMORY.md holds something, so the agent gets the whole rules and the index (Pi sends the changed
 * sections as a patch after the conversation, so its cached prefix stays). Selects no topic (recall does that).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Ref from "effect/Ref"
import { join } from "node:path"
import { trimIndex } from "../../src/memory/memoryIndex.ts"
import { sanitizeMemoryText } from "../../src/safety/sanitize.ts"
import { memorySections, wrapSection } from "../../src/session/memoryContext.ts"
import { indexChangedNotice } from "../../src/session/memoryRules.ts"
import { DATE_SECTION, todayText } from "../../src/session/today.ts"
import { INDEX_FILE } from "../../src/storage/layout.ts"
import { MemoryStore } from "../memory/MemoryStore.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import type { Active, SessionState, Snapshot } from "./sessionState.ts"

export type PromptSections = Effect.Effect.Success<ReturnType<typeof makePromptSections>>

export const makePromptSections = (state: SessionState) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const store = yield* MemoryStore
    const { snapshot } = state

    const indexStampOf = (a: Active) =>
      fs.statMany([join(a.location.memoryDir, INDEX_FILE)]).pipe(
        Effect.map(([stat]) => {
          if (stat === undefined || Either.isLeft(stat)) return "missing"
          const i = stat.right
          return `${i.dev}:${i.ino}:${i.size}:${i.mtimeMs}`
        })
      )

    const buildSnapshot = (a: Active) =>
      Effect.gen(function* () {
        // Stamped before the read: a change racing the read shows up as a new stamp on the next request.
        const indexStamp = yield* indexStampOf(a)
        const index = yield* store.readIndex(a.location.memoryDir)
        return { ...memorySections(a.location.memoryDir, index.text), index: index.text, indexStamp } satisfies Snapshot
      })


    /** The notice after the snapshot when MEMORY.md no longer holds what the snapshot was built from, else undefined. */
    const changedNotice = (a: Active, snap: Snapshot) =>
      Effect.gen(function* () {
        if ((yield* indexStampOf(a)) === snap.indexStamp) return undefined
        const current = yield* store.readIndexFile(a.location.memoryDir).pipe(
          Effect.map((raw) => trimIndex(raw).text),
          Effect.orElseSucceed(() => "")
        )
        return current !== snap.index ? indexChangedNotice(sanitizeMemoryText(a.location.memoryDir)) : undefined
      })

    /** The date section's text now. */
    const today = Effect.map(Clock.currentTimeMillis, todayText)

    /**
     * Fills Pi's sections for the next request (edited in place), building the snapshot on first use. Returns the
     * notice that MEMORY.md changed since the snapshot, the first time it is seen for this snapshot (it then stays
     * in the conversation); else undefined.
     */
    const fill = (a: Active, sections: Record<string, string>) =>
      Effect.gen(function* () {
        let snap = yield* Ref.get(snapshot)
        if (snap === undefined) {
          snap = yield* buildSnapshot(a)
          yield* Ref.set(snapshot, snap)
        }
        sections["auto_memory"] = snap.rules
        sections["auto_memory_index"] = snap.indexSection
        // Its own section after the snapshot: a new day changes these few words only, as one patch after the prefix.
        sections[DATE_SECTION] = yield* today
        // The snapshot is reused byte for byte; a changed index gets one notice with the request. The file is read
        // again only when its stat says it may have changed.
        if (snap.noticeSent === true) return undefined
        const notice = yield* changedNotice(a, snap)
        if (notice !== undefined && snap.indexSection === "") {
          snap = yield* buildSnapshot(a)
          yield* Ref.set(snapshot, snap)
          sections["auto_memory"] = snap.rules
          sections["auto_memory_index"] = snap.indexSection
          return undefined
        }
        if (notice === undefined) return undefined
        yield* Ref.set(snapshot, { ...snap, noticeSent: true })
        return wrapSection("auto_memory_notice", notice)
      })

    return { buildSnapshot, changedNotice, fill, today }
  })
