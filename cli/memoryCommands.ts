/** `pm list`, `pm show`, `pm search`, `pm forget`: a person's view of the memory, over MemoryBrowse. */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { resolve } from "node:path"
import { MemoryBrowse } from "../layers/memory/MemoryBrowse.ts"
import { binaryNote } from "../src/memory/binaryText.ts"
import type { forgetOptions, listOptions, Parsed, searchOptions, showOptions } from "./commandOptions.ts"
import { existsSync } from "node:fs"
import { inspect, inspectWith, locateWith, waitOf } from "./locate.ts"
import { describeSource } from "../layers/memory/topicSource.ts"
import { age, daysAgo, EXIT_PROBLEMS, fail, printError, printJson, printLine, setExit, table } from "./output.ts"
import { grouped } from "../src/memory/counts.ts"

/**
 * For list, show and search the browse service reports a missing or unreadable `--memory-dir` itself. The project's
 * own directory is located without writing, as every reading command does: when it does not exist yet (Pi makes it
 * on its first session in the project) it reads as empty, and nothing is created.
 */
const memoryDirOf = (cwd: string, override: Option.Option<string>) =>
  Option.isSome(override)
    ? Effect.succeed({ dir: resolve(override.value), notYet: false })
    : inspect(cwd).pipe(Effect.map((l) => ({ dir: l.memoryDir, notYet: !existsSync(l.memoryDir) })))

const NOT_YET = "not created yet: Pi makes it on its first session in this project"

/** Which topics a page of `pm list` shows, of how many, and how to see the next ones. */
export const pageLine = (total: number, offset: number, shown: number): string => {
  const count = `${grouped(total)} topic${total === 1 ? "" : "s"}`
  if (shown === total) return `${count}, newest first.`
  if (shown === 0) return `${count}; none from number ${grouped((offset + 1))} on (the oldest is number ${grouped(total)}).`
  const last = offset + shown
  const next = last < total ? ` \`pm list --offset ${last}\` shows the next ones; \`--limit 0\` shows every one.` : ""
  return `${count}, newest first: numbers ${grouped((offset + 1))} to ${grouped(last)} shown.${next}`
}

/** Any failure is a one-line error with exit 2, except a refused name: exit 1 (DECISIONS D9). */
const run = <E extends { readonly _tag?: string; readonly message: string }, R>(effect: Effect.Effect<void, E, R>) =>
  effect.pipe(
    Effect.catchAll((e) =>
      e._tag === "TopicRefused" ? Effect.zipRight(printError(e.message), setExit(EXIT_PROBLEMS)) : fail(e.message)
    )
  )

export const list = ({ cwd, json, memoryDir, limit, offset }: Parsed<typeof listOptions>) =>
  run(
    Effect.gen(function*() {
      if (limit < 0 || offset < 0) return yield* fail("--limit and --offset take a number of topics, 0 or more")
      const { dir, notYet } = yield* memoryDirOf(cwd, memoryDir)
      if (notYet) {
        if (json) return yield* printJson({ memoryDir: dir, indexExists: false, total: 0, offset, topics: [], skipped: [] })
        yield* printLine(`Memory: ${dir} (${NOT_YET})`)
        return yield* printLine("No topics yet.")
      }
      const listing = yield* (yield* MemoryBrowse).list(dir, Date.now(), { offset, limit })
      if (json) return yield* printJson(listing)
      const now = Date.now()
      yield* printLine(`Memory: ${dir}${listing.indexExists ? "" : " (no MEMORY.md)"}`)
      if (listing.total === 0) return yield* printLine("No topics yet.")
      yield* printLine(pageLine(listing.total, listing.offset, listing.topics.length))
      if (listing.topics.length === 0) return
      yield* printLine()
      yield* printLine(
        table(
          ["AGE", "TYPE", "INDEX", "FILE", "DESCRIPTION"],
          listing.topics.map((t) => [
            age(Date.parse(t.mtime), now),
            t.type ?? "-",
            t.linked ? "linked" : "missing",
            t.filename,
            t.description ?? "(no description)"
          ])
        )
      )
      const unlinked = listing.topics.filter((t) => !t.linked).length
      if (unlinked > 0) {
        yield* printLine()
        yield* printLine(`${unlinked} topic${unlinked === 1 ? " is" : "s are"} not linked from MEMORY.md (\`pm lint\` says more).`)
      }
    })
  )

export const show = ({ cwd, json, memoryDir, name }: Parsed<typeof showOptions>) =>
  run(
    Effect.gen(function*() {
      const { dir, notYet } = yield* memoryDirOf(cwd, memoryDir)
      if (notYet) return yield* Effect.zipRight(printError(`no topic ${JSON.stringify(name)}: the memory directory ${dir} is ${NOT_YET}`), setExit(EXIT_PROBLEMS))
      // The journal of this memory directory tells where the topic's content came from.
      const rootDir = yield* inspectWith(cwd, memoryDir).pipe(Effect.map((l) => l.memoryRootDir), Effect.orElseSucceed(() => undefined))
      const topic = yield* (yield* MemoryBrowse).show(dir, name, Date.now(), rootDir)
      if (json) return yield* printJson(topic)
      yield* printLine(`File:    ${topic.path}`)
      yield* printLine(`Type:    ${topic.type ?? "-"}`)
      yield* printLine(`Changed: ${topic.mtime} (${daysAgo(topic.ageDays)}${topic.stale ? ", stale" : ""})`)
      yield* printLine(`Index:   ${topic.linked ? "linked from MEMORY.md" : "not linked from MEMORY.md"}`)
      yield* printLine(`Source:  ${describeSource(topic.source)}`)
      if (topic.staleness !== null) yield* printLine(`Note:    ${topic.staleness}`)
      yield* printLine()
      if (topic.binary) {
        yield* printLine(binaryNote(topic.filename, topic.sizeBytes))
        return yield* setExit(EXIT_PROBLEMS)
      }
      yield* Effect.sync(() => process.stdout.write(topic.content.endsWith("\n") ? topic.content : `${topic.content}\n`))
      if (topic.truncated) yield* printLine("(cut short: the file is larger than show reads)")
    })
  )

export const search = ({ cwd, json, memoryDir, query: words }: Parsed<typeof searchOptions>) =>
  run(
    Effect.gen(function*() {
      const query = words.join(" ")
      const { dir, notYet } = yield* memoryDirOf(cwd, memoryDir)
      const hits = notYet ? [] : yield* (yield* MemoryBrowse).search(dir, query)
      if (json) return yield* printJson(hits)
      if (hits.length === 0) return yield* printLine(`No topic matches ${JSON.stringify(query)}.`)
      yield* printLine(table(["SCORE", "FILE", "MATCH"], hits.map((h) => [String(h.score), h.line > 0 ? `${h.filename}:${h.line}` : h.filename, h.text])))
    })
  )

export const forget = ({ cwd, json, names, wait, memoryDir }: Parsed<typeof forgetOptions>) =>
  run(
    Effect.gen(function*() {
      const option = names.find((n) => n.startsWith("-"))
      if (option !== undefined) return yield* fail(`Unknown option ${option}`)
      const location = yield* locateWith(cwd, memoryDir)
      const result = yield* (yield* MemoryBrowse).forget({
        memoryDir: location.memoryDir,
        rootDir: location.memoryRootDir,
        names,
        session: null,
        ...waitOf(wait)
      })
      if (json) return yield* printJson(result)
      yield* printLine(`Forgot ${result.forgotten.join(", ")}; ${result.indexLinesRemoved} index line${result.indexLinesRemoved === 1 ? "" : "s"} removed.`)
      yield* printLine("`pm undo` brings it back.")
      if (result.note !== undefined) yield* printLine(`Note: ${result.note}`)
    })
  )
