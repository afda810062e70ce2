/**
 * `pm on|off [PART] [--project]`, `pm remember TEXT`, `pm context`: the switches of config.json, a person's explicit
 * save, and what memory adds to a request of this project.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { resolve } from "node:path"
import { ConfigService } from "../layers/project/ConfigService.ts"
import { MemoryBrowse } from "../layers/memory/MemoryBrowse.ts"
import { MemoryStore } from "../layers/memory/MemoryStore.ts"
import { ProjectLocator } from "../layers/project/ProjectLocator.ts"
import { historyDirOf } from "../src/history/commits.ts"
import { describeSwitches, type Feature, switchesFor, switchPath } from "../src/project/config.ts"
import { historyPath, historySetting } from "../src/project/historySwitch.ts"
import { type ContextPart, formatContext, memorySections, summarizeContext, systemParts, wrapSection } from "../src/session/memoryContext.ts"
import { DATE_SECTION, todayText } from "../src/session/today.ts"
import type { contextOptions, Parsed, rememberOptions, switchOptions } from "./commandOptions.ts"
import { inspect, locate, waitOf } from "./locate.ts"
import { EXIT_PROBLEMS, fail, printError, printJson, printLine, setExit } from "./output.ts"

const setSwitch = (on: boolean) => ({ cwd, json, part, project }: Parsed<typeof switchOptions>) =>
  Effect.gen(function*() {
    const config = yield* ConfigService
    const chosen = Option.getOrElse(part, () => "memory" as const)
    if (chosen === "history") return yield* setHistory(on, { cwd, json, project })
    const what = chosen as "memory" | Feature
    const root = project ? yield* (yield* ProjectLocator).projectRootOf(resolve(cwd)) : undefined
    yield* config.setKey(switchPath(what, root), on)
    const { config: cfg, warnings } = yield* config.load
    for (const w of warnings) process.stderr.write(`pm: warning: ${w.message}\n`)
    const here = root ?? (yield* (yield* ProjectLocator).projectRootOf(resolve(cwd)).pipe(Effect.orElseSucceed(() => undefined)))
    const now = switchesFor(cfg, here)
    if (json) return yield* printJson({ key: switchPath(what, root), value: on, configPath: config.configPath, projectRoot: here ?? null, switches: now })
    const name = what === "memory" ? "Project memory" : what[0]!.toUpperCase() + what.slice(1)
    yield* printLine(`${name} is ${on ? "on" : "off"} (saved in ${config.configPath}${root === undefined ? " for every project" : ` for ${root} only`}).`)
    yield* printLine(`In force for ${here ?? "this directory"}: ${describeSwitches(now)}.`)
    if (now[what].on !== on) {
      yield* printLine(
        what !== "memory" && !now.memory.on
          ? `It stays off here while memory is off (pm on${now.memory.from === "project" ? " --project" : ""}).`
          : `This project keeps its own setting (pm ${on ? "on" : "off"}${what === "memory" ? "" : ` ${what}`} --project to change it).`
      )
    }
  }).pipe(Effect.catchAll((e) => fail(e.message)))

/**
 * `pm on|off history [--project]`: the switch in config.json, then this project's history made, resumed or paused at
 * once (other projects follow at their next change).
 */
const setHistory = (on: boolean, { cwd, json, project }: { cwd: string; json: boolean; project: boolean }) =>
  Effect.gen(function*() {
    const config = yield* ConfigService
    const locator = yield* ProjectLocator
    const root = project ? yield* locator.projectRootOf(resolve(cwd)) : undefined
    yield* config.setKey(historyPath(root), on)
    const location = yield* locator.locate(resolve(cwd))
    const { config: cfg } = yield* config.load
    const inForce = historySetting(cfg, location.projectRoot) === true
    const where = historyDirOf(location.memoryRootDir)
    if (json) return yield* printJson({ key: historyPath(root), value: on, configPath: config.configPath, projectRoot: location.projectRoot, history: inForce, gitDir: where })
    yield* printLine(`Memory history is ${on ? "on" : "off"} (saved in ${config.configPath}${root === undefined ? " for every project" : ` for ${root} only`}).`)
    yield* printLine(
      inForce
        ? `Each change to this project's memory is now one commit in ${where} (\`git --git-dir=${where} log\` shows them).`
        : `This project's memory is not committed${on ? " (it keeps its own setting: pm on history --project)" : ""}; an existing history is kept, paused.`
    )
  })

export const on = setSwitch(true)
export const off = setSwitch(false)

export const remember = ({ allowRisky, cwd, json, text, type, wait }: Parsed<typeof rememberOptions>) =>
  Effect.gen(function*() {
    // Without a usable config.json the memory directory is not known (autoMemoryDirectory may name another).
    const closed = (yield* (yield* ConfigService).load).config.closed
    if (closed !== undefined) return yield* fail(`nothing was saved: ${closed}, so the memory directory is not known; fix the file first`)
    const location = yield* locate(cwd)
    const result = yield* (yield* MemoryBrowse).remember({
      memoryDir: location.memoryDir,
      rootDir: location.memoryRootDir,
      text: text.join(" "),
      type,
      allowRisky,
      session: null,
      ...waitOf(wait)
    })
    const { config: cfg } = yield* (yield* ConfigService).load
    const switches = switchesFor(cfg, location.projectRoot)
    if (json) return yield* printJson({ ...result, memoryDir: location.memoryDir })
    yield* printLine(`Saved ${result.files.join(", ")} in ${location.memoryDir}.`)
    yield* printLine(`Task ${result.task}: \`pm undo\` takes it back.`)
    if (result.note !== undefined) yield* printLine(`Note: ${result.note}`)
    if (result.windowNote !== undefined) yield* printLine(`Note: ${result.windowNote}`)
    if (!switches.memory.on) yield* printLine("Note: project memory is switched off here, so sessions do not load it until it is on (pm on).")
  }).pipe(
    Effect.catchAll((e) =>
      e._tag === "RememberRefused" ? Effect.zipRight(printError(e.message), setExit(EXIT_PROBLEMS)) : fail(e.message)
    )
  )

/** What a session of this project would add to its next request, read without writing anything. */
export const context = ({ cwd, json }: Parsed<typeof contextOptions>) =>
  Effect.gen(function*() {
    const location = yield* inspect(cwd)
    const { config: cfg } = yield* (yield* ConfigService).load
    const switches = switchesFor(cfg, location.projectRoot)
    const parts: Array<ContextPart> = []
    if (switches.memory.on) {
      const index = yield* (yield* MemoryStore).peekIndex(location.memoryDir)
      const sections = memorySections(location.memoryDir, index.text)
      parts.push(...systemParts(sections), { name: DATE_SECTION, where: "system prompt", text: wrapSection(DATE_SECTION, todayText(yield* Clock.currentTimeMillis)) })
    }
    const summary = summarizeContext(parts)
    if (json) return yield* printJson({ projectRoot: location.projectRoot, memoryDir: location.memoryDir, switches, ...summary })
    if (!switches.memory.on) return yield* printLine(`Project memory adds nothing to requests here: it is switched off (${describeSwitches(switches)}).`)
    yield* printLine(
      formatContext(summary, [
        switches.recall.on
          ? "Recall: each message is also sent to the selector, and what it picks joins the message; `pm recall QUERY` shows it for one message."
          : "Recall is switched off: no topic is selected or added to messages.",
        "Inside Pi, /memory context also shows the last recall of the session."
      ])
    )
  }).pipe(Effect.catchAll((e) => fail(e.message)))
