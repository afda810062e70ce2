/**
 * The main agent's tool-call guard. In an untrusted project a tool whose path reaches memory (the whole storage
 * root, the configured and the active memory directory, each also canonical) is blocked, known without locating the
 * project, and a failed check blocks whatever could touch memory (fail closed). In a trusted one, a `write` or
 * `edit` into memory that would add a secret is blocked (and a failure of that check never blocks). Changes no file.
 */
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Ref from "effect/Ref"
import { homedir } from "node:os"
import { basename, dirname, join } from "node:path"
import { sanitizeMemoryText } from "../../src/safety/sanitize.ts"
import { couldTouchMemory, guardedToolPath, isWithin, resolveToolPath, uncheckedReason, untrustedReason } from "../../src/safety/toolPath.ts"
import { credentialInWrite } from "../../src/writes/secretsGuard.ts"
import { ConfigService } from "../project/ConfigService.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { Host } from "./Host.ts"
import type { ToolBlock } from "./sessionShape.ts"
import type { Active, SessionState } from "./sessionState.ts"

/** A tool's `path` as the memory file it names (relative to the memory directory), or undefined. */
export type MemoryFileOf = (a: Active, cwd: string, rawPath: unknown) => Effect.Effect<string | undefined>

export const makeToolCallGuard = (state: SessionState, memoryFileOf: MemoryFileOf) =>
  Effect.gen(function* () {
    const host = yield* Host
    const fs = yield* FileSystem
    const config = yield* ConfigService
    const { active, prefetches, usable } = state

    /**
     * What an untrusted project's agent may not open, known without locating the project (no git, nothing created),
     * so the block holds with memory switched off or failed to activate: the whole storage root (every project's
     * memory, config.json, shared state), the configured memory directory and the active one, each also canonical.
     */
    const protectedDirs = Effect.gen(function* () {
      const dirs = new Set<string>([config.storageRoot])
      const a = yield* Ref.get(active)
      if (a !== undefined) {
        dirs.add(a.location.memoryDir)
        dirs.add(a.canonicalMemoryDir)
      }
      const configured = (yield* config.load).config.autoMemoryDirectory
      if (configured !== undefined) dirs.add(configured)
      for (const dir of [...dirs]) dirs.add(yield* canonical(dir))
      return [...dirs]
    })

    /** realpath of the longest existing prefix, plus the rest: a file about to be created is judged by its folder. */
    const canonical = (path: string): Effect.Effect<string> =>
      fs.realpath(path).pipe(
        Effect.catchAll(() => {
          const parent = dirname(path)
          return parent === path ? Effect.succeed(path) : Effect.map(canonical(parent), (p) => join(p, basename(path)))
        })
      )

    /**
     * The credential guard for the main agent's `write` and `edit` into memory: blocked, with the kind and line, when
     * the file would hold a secret it did not hold before. Never blocks on its own failure (the write is not memory's).
     */
    const credentialBlock = (toolName: string, input: Record<string, unknown>) =>
      Effect.gen(function* () {
        if (toolName !== "write" && toolName !== "edit") return undefined
        const a = yield* usable
        if (a === undefined) return undefined
        const file = yield* memoryFileOf(a, yield* host.cwd, input["path"])
        if (file === undefined) return undefined
        const current = toolName === "edit"
          ? yield* fs.readRegularFile(join(a.location.memoryDir, file), 16 << 20).pipe(
            Effect.map((r) => Buffer.from(r.bytes).toString("utf8")),
            Effect.orElseSucceed(() => undefined)
          )
          : undefined
        const reason = credentialInWrite(toolName, input, current, sanitizeMemoryText(file))
        return reason === undefined ? undefined : ({ block: true, reason } satisfies ToolBlock)
      }).pipe(Effect.catchAllCause(() => Effect.succeed(undefined)))

    const toolCall = (toolName: string, input: Record<string, unknown>) =>
      Effect.gen(function* () {
        const raw = guardedToolPath(toolName, input)
        if (raw === undefined) return undefined
        if (yield* host.isTrusted) return yield* credentialBlock(toolName, input)
        const abs = resolveToolPath(raw, yield* host.cwd, homedir())
        if (abs === undefined) return undefined
        const real = yield* canonical(abs)
        const dirs = yield* protectedDirs
        if (!dirs.some((dir) => isWithin(dir, abs) || isWithin(dir, real))) return undefined
        yield* FiberSet.clear(prefetches)
        return { block: true, reason: untrustedReason(toolName, sanitizeMemoryText(raw)) } satisfies ToolBlock
      }).pipe(
        // Fail closed: when the check itself fails, whatever could touch memory is blocked, with the reason.
        Effect.catchAllCause(() =>
          Effect.succeed(
            couldTouchMemory(toolName, input, config.storageRoot) ? ({ block: true, reason: uncheckedReason(toolName) } satisfies ToolBlock) : undefined
          )
        )
      )

    return { toolCall }
  })
