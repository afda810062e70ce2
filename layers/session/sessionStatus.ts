/**
 * What `/memory status` and `/memory context` show: the session's state, the switches as config.json says now
 * (with what in it cannot be used), the index's size, the recall budget used on this branch, the usage, the last
 * consolidation, and the sections and last recall the next request carries. Reads only; changes nothing.
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { decodeBackgroundConfig } from "../../src/background/config.ts"
import { trimIndex } from "../../src/memory/memoryIndex.ts"
import { switchesFor } from "../../src/project/config.ts"
import { type ContextPart, systemParts, wrapSection } from "../../src/session/memoryContext.ts"
import { DATE_SECTION } from "../../src/session/today.ts"
import { MemoryStore } from "../memory/MemoryStore.ts"
import { ModelRegistry } from "../model/ModelRegistry.ts"
import { ConfigService } from "../project/ConfigService.ts"
import { ProjectLocator } from "../project/ProjectLocator.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { StateStore } from "../storage/StateStore.ts"
import { Host } from "./Host.ts"
import type { PromptSections } from "./promptSections.ts"
import { describeHistoryStatus, historyStatusOf } from "../history/syncStatus.ts"
import type { MemoryContext, SessionStatus } from "./sessionShape.ts"
import type { SessionState, Snapshot } from "./sessionState.ts"

export const makeSessionStatus = (state: SessionState, sections: PromptSections) =>
  Effect.gen(function* () {
    const host = yield* Host
    const fs = yield* FileSystem
    const config = yield* ConfigService
    const locator = yield* ProjectLocator
    const store = yield* MemoryStore
    const registry = yield* ModelRegistry
    const stateStore = yield* StateStore
    const { active, branchState, generation, inactiveReason, lastRecall, snapshot, usable } = state

    /** The project root of this session: the active location's, else the one git gives (nothing is made). */
    const projectRoot = Effect.gen(function* () {
      const a = yield* Ref.get(active)
      if (a !== undefined) return a.location.projectRoot
      return yield* locator.projectRootOf(yield* host.cwd).pipe(Effect.orElseSucceed(() => undefined))
    })

    const status = Effect.gen(function* () {
      const a = yield* Ref.get(active)
      const root = yield* projectRoot
      const loaded = yield* config.load
      const switches = switchesFor(loaded.config, root)
      const background = yield* fs.readRegularFile(config.configPath, 1 << 20).pipe(
        Effect.map((r) => decodeBackgroundConfig(config.configPath, Buffer.from(r.bytes).toString("utf8")).warnings),
        Effect.orElseSucceed((): ReadonlyArray<string> => [])
      )
      const configProblems = [...loaded.warnings.map((w) => w.message), ...background]
      const usage = yield* registry.totals
      const state = yield* Ref.get(branchState)
      const base = {
        active: a !== undefined,
        reason: yield* Ref.get(inactiveReason),
        location: a?.location,
        budgetUsed: state.budgetUsed,
        recalled: state.history,
        usage,
        generation: yield* Ref.get(generation),
        switches,
        projectRoot: root,
        configProblems
      }
      if (a === undefined) return { ...base, topics: 0, indexLines: 0, indexChars: 0, lastDreamAt: null } satisfies SessionStatus
      const { topics } = yield* store.scanTopics(a.location.memoryDir)
      const index = yield* store.readIndexFile(a.location.memoryDir).pipe(Effect.map(trimIndex), Effect.orElseSucceed(() => trimIndex("")))
      const lastDreamAt = yield* stateStore.read({ rootDir: a.location.memoryRootDir, legacyFile: a.location.legacyStatePath }).pipe(
        Effect.map((snap) => snap.state.lastDreamAt),
        Effect.orElseSucceed(() => null)
      )
      const history = yield* historyStatusOf(fs, { memoryRootDir: a.location.memoryRootDir, memoryDir: a.location.memoryDir })
      const historyLines = describeHistoryStatus(history, Date.now())
      return { ...base, topics: topics.length, indexLines: index.lines, indexChars: index.chars, lastDreamAt, historyLines } satisfies SessionStatus
    })

    const context = Effect.gen(function* () {
      const a = yield* usable
      const switches = (yield* status).switches
      if (a === undefined) {
        const reason = (yield* Ref.get(inactiveReason)) ?? ((yield* Ref.get(active)) !== undefined ? "the project is not trusted" : undefined)
        return { active: false, reason, parts: [], recallOn: false, ...(switches === undefined ? {} : { switches }) } satisfies MemoryContext
      }
      // The snapshot the next request reuses, or the one it would build now.
      const snap: Snapshot = (yield* Ref.get(snapshot)) ?? (yield* sections.buildSnapshot(a))
      const parts: Array<ContextPart> = [
        ...systemParts(snap),
        { name: DATE_SECTION, where: "system prompt", text: wrapSection(DATE_SECTION, yield* sections.today) }
      ]
      // Said once, with the first request after the change; then it stays in the conversation.
      const notice = snap.noticeSent === true ? undefined : yield* sections.changedNotice(a, snap)
      if (notice !== undefined) parts.push({ name: "auto_memory_notice", where: "message", text: wrapSection("auto_memory_notice", notice) })
      const last = yield* Ref.get(lastRecall)
      if (last !== undefined) {
        const oneLine = last.query.replace(/\s+/g, " ")
        parts.push({ name: "recall", where: "message", text: last.text, note: `the last recall, for "${oneLine.length > 60 ? `${oneLine.slice(0, 59)}…` : oneLine}": ${last.selected.join(", ")}` })
      }
      return { active: true, reason: undefined, parts, recallOn: a.switches.recall.on, switches: a.switches } satisfies MemoryContext
    })

    return { projectRoot, status, context }
  })
