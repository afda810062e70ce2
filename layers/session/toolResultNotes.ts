/**
 * What the main agent is told after its own tool calls on memory files: a full read of a topic is recorded in the
 * branch state (and as an entry), an old topic gets a staleness reminder before its content, and a saved file that
 * breaks the memory format gets the lint problems after it. Never fails the tool result (any failure: no patch).
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { dirname, join } from "node:path"
import { lintIndex, lintTopic } from "../../src/memory/lint.ts"
import { stalenessNote } from "../../src/memory/staleness.ts"
import { READ_ENTRY, withRead } from "../../src/recall/recallState.ts"
import { systemReminder } from "../../src/safety/sanitize.ts"
import { INDEX_FILE } from "../../src/storage/layout.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { Host } from "./Host.ts"
import type { ToolResultEvent } from "./sessionShape.ts"
import type { SessionState } from "./sessionState.ts"
import type { MemoryFileOf } from "./toolCallGuard.ts"

export const makeToolResultNotes = (state: SessionState, memoryFileOf: MemoryFileOf) =>
  Effect.gen(function* () {
    const host = yield* Host
    const fs = yield* FileSystem
    const { branchState, usable } = state

    const toolResult = (event: ToolResultEvent) =>
      Effect.gen(function* () {
        if (event.isError || (event.toolName !== "read" && event.toolName !== "write" && event.toolName !== "edit")) return undefined
        const a = yield* usable
        if (a === undefined) return undefined
        const file = yield* memoryFileOf(a, yield* host.cwd, event.input["path"])
        if (file === undefined || !file.endsWith(".md")) return undefined
        const path = join(a.location.memoryDir, file)
        const read = yield* fs.readRegularFile(path, 1 << 20).pipe(Effect.option)
        if (Option.isNone(read)) return undefined
        const content = Buffer.from(read.value.bytes).toString("utf8")
        if (event.toolName === "read") {
          const truncated = (event.details as { truncation?: { truncated?: boolean } } | undefined)?.truncation?.truncated === true
          const offset = typeof event.input["offset"] === "number" ? event.input["offset"] : 1
          const limit = typeof event.input["limit"] === "number" ? event.input["limit"] : undefined
          const lines = content.replace(/\n$/, "").split("\n").length
          const full = !truncated && offset <= 1 && !read.value.partial && (limit === undefined || limit >= lines)
          if (full && file !== INDEX_FILE) {
            yield* Ref.update(branchState, (s) => withRead(s, { filename: file, mtimeMs: read.value.info.mtimeMs }))
            yield* host.appendEntry(READ_ENTRY, { filename: file, mtimeMs: read.value.info.mtimeMs })
          }
          const stale = stalenessNote(read.value.info.mtimeMs, Date.now())
          if (stale === undefined || file === INDEX_FILE) return undefined
          return { content: [{ type: "text", text: systemReminder(stale) }, ...event.content] }
        }
        // The folder's other names tell a continuation (`notes-2.md` beside `notes.md`) from a subject (`python-3.md`).
        const siblings = file === INDEX_FILE
          ? undefined
          : yield* fs.readDirectory(dirname(path)).pipe(
            Effect.map((entries) => entries.map((e) => e.name)),
            Effect.orElseSucceed(() => undefined)
          )
        const problems = file === INDEX_FILE
          ? lintIndex(content)
          : lintTopic({ filename: file, content, ...(siblings !== undefined ? { siblings } : {}) })
        if (problems.length === 0) return undefined
        // Lint messages quote memory text (file names, an unknown type, YAML errors): sanitized like any other.
        const text = systemReminder(
          `The memory file you just saved needs a correction:\n${problems.map((p) => `- ${p.message}`).join("\n")}`
        )
        return { content: [...event.content, { type: "text", text }] }
      }).pipe(Effect.catchAllCause(() => Effect.succeed(undefined)))

    return { toolResult }
  })
