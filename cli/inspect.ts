/**
 * The handlers of `pm project`, `scan`, `lint` and `bash-check` (their command lines are in cli/commandLine.ts;
 * `recall`'s handler is in cli/recall.ts, apart, since it loads the recall services). Each translates its options
 * into service calls and prints; nothing else.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { SCAN_MAX_TOPICS } from "../src/limits.ts"
import type { ProjectLocation } from "../src/storage/layout.ts"
import { MemoryStore } from "../layers/memory/MemoryStore.ts"
import type { bashCheckOptions, lintOptions, Parsed, projectOptions, scanOptions } from "./commandOptions.ts"
import { inspectWith, memoryDirOf, orFail } from "./locate.ts"
import { age, EXIT_PROBLEMS, fail, printJson, printLine, setExit, table } from "./output.ts"

export const project = ({ cwd, json, memoryDir }: Parsed<typeof projectOptions>) =>
  orFail(
    Effect.gen(function* () {
      // Inspection only: nothing is created for a project that has no memory yet.
      const l: ProjectLocation = yield* inspectWith(cwd, memoryDir)
      const out = {
        projectRoot: l.projectRoot,
        projectKey: l.projectKey,
        projectDir: l.projectDir,
        memoryDir: l.memoryDir,
        memoryRootHash: l.memoryRootHash,
        storageRoot: l.storageRoot
      }
      if (json) return yield* printJson(out)
      yield* printLine(table(["", ""], Object.entries(out).map(([k, v]) => [k, v])).split("\n").slice(1).join("\n"))
    })
  )

export const scan = ({ cwd, json, memoryDir }: Parsed<typeof scanOptions>) =>
  orFail(
    Effect.gen(function* () {
      const dir = yield* memoryDirOf(cwd, memoryDir)
      const store = yield* MemoryStore
      // The index first: reading it may backfill a missing one from the topics.
      const index = yield* store.readIndex(dir)
      const scanned = yield* store.scanTopics(dir)
      // The documented output: the 200 newest topics, the older ones listed as skipped (`pm list` pages through all).
      const topics = scanned.topics.slice(0, SCAN_MAX_TOPICS)
      const older = scanned.topics.slice(SCAN_MAX_TOPICS).map((t) => ({ filename: t.filename, reason: `older than the ${SCAN_MAX_TOPICS} newest topics` }))
      const skipped = older.length === 0 ? scanned.skipped : [...scanned.skipped, ...older].sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0))
      if (json) {
        return yield* printJson({
          memoryDir: dir,
          index: { exists: index.exists, lines: index.lines, chars: index.chars, truncated: index.truncated },
          topics: topics.map((t) => ({
            filename: t.filename,
            name: t.name ?? null,
            description: t.description ?? null,
            type: t.type ?? null,
            mtime: new Date(t.fileMtimeMs).toISOString()
          })),
          skipped
        })
      }
      const now = Date.now()
      yield* printLine(`Memory: ${dir}`)
      yield* printLine(
        `Index:  ${index.exists ? `MEMORY.md, ${index.lines} line${index.lines === 1 ? "" : "s"}, ${index.chars} characters${index.truncated ? " (truncated when loaded)" : ""}${index.backfilled ? " (created from the topics just now)" : ""}` : "no MEMORY.md"}`
      )
      yield* printLine(
        `Topics: ${topics.length}${skipped.length > 0 ? `, ${skipped.length} skipped` : ""}${older.length > 0 ? ` (${scanned.topics.length} in all: \`pm list\` pages through every one)` : ""}`
      )
      if (topics.length > 0) {
        yield* printLine()
        yield* printLine(
          table(
            ["AGE", "TYPE", "FILE", "DESCRIPTION"],
            topics.map((t) => [age(t.fileMtimeMs, now), t.type ?? "-", t.filename, t.description ?? "(no description)"])
          )
        )
      }
      if (skipped.length > 0) {
        yield* printLine()
        yield* printLine(table(["SKIPPED", "REASON"], skipped.map((s) => [s.filename, s.reason])))
      }
    })
  )

export const lint = ({ cwd, json, memoryDir, files }: Parsed<typeof lintOptions>) =>
  orFail(
    Effect.gen(function* () {
      // @effect/cli hands an unknown option to the FILE arguments; it is bad usage, not a file to lint.
      const option = files.find((f) => f.startsWith("-"))
      if (option !== undefined) return yield* fail(`unknown option ${option} (name a file starting with - as ./${option})`)
      const dir = yield* memoryDirOf(cwd, memoryDir)
      // A FILE names a file from the current directory (or an absolute path); one not found there is looked up
      // in the memory directory, as before.
      const named = files.map((f) => (existsSync(resolve(f)) ? resolve(f) : f))
      const results = yield* (yield* MemoryStore).lint(dir, named)
      const withProblems = results.filter((r) => r.problems.length > 0)
      if (withProblems.length > 0) yield* setExit(EXIT_PROBLEMS)
      if (json) return yield* printJson(withProblems)
      if (withProblems.length === 0) return yield* printLine(`No problems in ${results.length} file${results.length === 1 ? "" : "s"}.`)
      for (const r of withProblems) {
        yield* printLine(r.file)
        for (const p of r.problems) yield* printLine(`  ${p.code}: ${p.message}`)
      }
    })
  )

export const bashCheck = ({ cwd, json, memoryDir, command }: Parsed<typeof bashCheckOptions>) =>
  orFail(
    Effect.gen(function* () {
      const dir = yield* memoryDirOf(cwd, memoryDir)
      // The guard's module (and the bash parser it loads) is imported only for this command.
      const { bashCheck: check } = yield* Effect.promise(() => import("./bashCheck.ts"))
      const code = yield* check({ cwd, json, memoryDir: dir, command: Option.getOrUndefined(command), stdin: process.stdin })
      // Which floor is under the verdict: the OS sandbox, the guard alone, or a refused shell (cli/sandboxMode.ts).
      const { printSandboxModeNote } = yield* Effect.promise(() => import("./sandboxMode.ts"))
      if (code !== 2) yield* printSandboxModeNote(!json && Option.isSome(command))
      yield* setExit(code)
    })
  )
