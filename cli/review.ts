/**
 * `pm review [approve ID | drop ID]`: the background writes held for the person's review because their words came
 * from outside text (a file, a command's output, a page) or read as an instruction to do something risky. Without an
 * action it lists them, each with its id, file, source and reason, and the held content; `approve ID` saves one as
 * memory (journaled: `pm undo` takes it back), `drop ID` discards it. An unknown id exits 1.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { MemoryBrowse } from "../layers/memory/MemoryBrowse.ts"
import type { HeldItem } from "../src/writes/held.ts"
import type { Parsed, reviewOptions } from "./commandOptions.ts"
import { inspectWith, locateWith, waitOf } from "./locate.ts"
import { EXIT_PROBLEMS, fail, printError, printJson, printLine, setExit } from "./output.ts"

/** One held write as a person reads it: what, from where, why, then its content indented. */
export const heldLines = (item: HeldItem): ReadonlyArray<string> => [
  `${item.id}  ${item.file}  (held ${item.at} from a ${item.task === "dream" ? "dream" : "extraction"})`,
  `  Source: ${item.source}`,
  `  Why:    ${item.reason}`,
  ...item.content.replace(/\n$/, "").split("\n").map((l) => `  | ${l}`)
]

export const review = ({ action, cwd, id, json, memoryDir, wait }: Parsed<typeof reviewOptions>) =>
  Effect.gen(function*() {
    const browse = yield* MemoryBrowse
    if (Option.isNone(action)) {
      if (Option.isSome(id)) return yield* fail("give approve ID or drop ID; without an action, pm review lists the held writes")
      const location = yield* inspectWith(cwd, memoryDir)
      const items = yield* browse.held(location.memoryRootDir)
      if (json) return yield* printJson(items)
      if (items.length === 0) return yield* printLine("No background write is held for review.")
      yield* printLine(`${items.length} background write${items.length === 1 ? " is" : "s are"} held for review: not memory, never recalled, until approved.`)
      for (const item of items) {
        yield* printLine()
        for (const line of heldLines(item)) yield* printLine(line)
      }
      yield* printLine()
      return yield* printLine("`pm review approve ID` saves one as memory (`pm undo` takes it back); `pm review drop ID` discards it.")
    }
    if (Option.isNone(id)) return yield* fail(`pm review ${action.value} needs the held write's ID (pm review lists them)`)
    if (action.value === "drop") {
      const location = yield* inspectWith(cwd, memoryDir)
      const item = yield* browse.drop(location.memoryRootDir, id.value)
      if (json) return yield* printJson({ dropped: item })
      return yield* printLine(`Dropped ${item.id} (${item.file}); memory was not changed.`)
    }
    const location = yield* locateWith(cwd, memoryDir)
    const result = yield* browse.approve({
      memoryDir: location.memoryDir,
      rootDir: location.memoryRootDir,
      id: id.value,
      session: null,
      ...waitOf(wait)
    })
    if (json) return yield* printJson({ ...result, memoryDir: location.memoryDir })
    yield* printLine(`Approved ${result.item.id}: saved ${result.files.join(", ")} in ${location.memoryDir}.`)
    yield* printLine(`Task ${result.task}: \`pm undo\` takes it back.`)
  }).pipe(
    Effect.catchAll((e) =>
      "_tag" in e && e._tag === "ReviewRefused" ? Effect.zipRight(printError(e.message), setExit(EXIT_PROBLEMS)) : fail(e.message)
    )
  )
