/** `/memory`: status, on, off, open, list, show, search, forget, recalled, remember, review, context. Formatting only; the work is the layers'. */
import type { ExtensionCommandContext, ExtensionContext } from "@earendil-works/pi-coding-agent"
import * as Effect from "effect/Effect"
import type { BackgroundSession } from "../layers/background/BackgroundSession.ts"
import { branchNotices } from "../layers/background/ChangeNotices.ts"
import type { UndoResult } from "../layers/writes/journalUndo.ts"
import { describeUndo } from "../layers/writes/MemoryUndo.ts"
import { describeSwitches, FEATURES, type Feature } from "../src/project/config.ts"
import { formatContext, summarizeContext } from "../src/session/memoryContext.ts"
import type { ListedTopic } from "../layers/memory/browseReads.ts"
import type { MemoryBrowse } from "../layers/memory/MemoryBrowse.ts"
import { binaryNote } from "../src/memory/binaryText.ts"
import type { MemorySession } from "../layers/session/MemorySession.ts"
import type { SessionStatus } from "../layers/session/sessionShape.ts"
import { BRANCH_RECALL_BUDGET } from "../layers/session/MemorySession.ts"
import { backgroundStatusLines, dreamReport, extractReport } from "./background.ts"
import { MEMORY_COMMAND_DESCRIPTION, memoryHelp } from "./commandInfo.ts"
import { say } from "./say.ts"
import { memoryCompletions } from "./completions.ts"
import { reviewCommand } from "./review.ts"
import { describeSource } from "../layers/memory/topicSource.ts"
import { grouped } from "../src/memory/counts.ts"

export { say } from "./say.ts"

type Run = <A>(f: (s: typeof MemorySession.Service) => Effect.Effect<A, unknown>) => Promise<A | undefined>
type RunBrowse = <A>(f: (b: typeof MemoryBrowse.Service) => Effect.Effect<A, unknown>) => Promise<{ readonly ok: A } | { readonly error: string }>
type RunBackground = <A>(f: (s: typeof BackgroundSession.Service) => Effect.Effect<A, unknown>) => Promise<A | undefined>

/** Pi's trust of the project now; undefined when the context cannot tell (a stale one). */
const trustOf = (ctx: ExtensionContext): boolean | undefined => {
  try {
    return ctx.isProjectTrusted()
  } catch {
    return undefined
  }
}

const days = (n: number): string => (n === 0 ? "today" : `${n}d`)

/** One topic a line, in aligned columns: file, [type, age, index], description; then how many more there are. */
export const formatList = (topics: ReadonlyArray<ListedTopic>, total = topics.length): string => {
  if (topics.length === 0) return "No memory topics yet."
  const more = total > topics.length ? `\nThe ${topics.length} newest of ${total} topics: \`pm list --offset ${topics.length}\` lists the others.` : ""
  const rows = topics.map((t) => [t.filename, `[${t.type ?? "-"}, ${days(t.ageDays)}${t.linked ? "" : ", not in MEMORY.md"}]`, t.description ?? "(no description)"] as const)
  const widths = [0, 1].map((i) => Math.max(...rows.map((r) => [...r[i]!].length)))
  const pad = (text: string, width: number) => text + " ".repeat(Math.max(0, width - [...text].length))
  return rows.map((r) => `${pad(r[0], widths[0]!)}  ${pad(r[1], widths[1]!)}  ${r[2]}`).join("\n") + more
}

export const formatRecalled = (s: SessionStatus): string => {
  const turns = (s.recalled ?? []).filter((t) => t.selected.length > 0)
  const left = Math.max(0, BRANCH_RECALL_BUDGET - s.budgetUsed)
  const budget = `Budget: ${grouped(s.budgetUsed)} of ${grouped(BRANCH_RECALL_BUDGET)} characters used on this branch, ${grouped(left)} left.`
  if (turns.length === 0) return `Nothing recalled on this branch yet.\n${budget}`
  const oneLine = (q: string) => (q.length > 80 ? `${q.slice(0, 79)}…` : q).replace(/\s+/g, " ")
  return [...turns.map((t) => `"${oneLine(t.query)}" -> ${t.selected.join(", ")}`), budget].join("\n")
}

/** Splits `/memory` arguments: words, with "double quotes" for a name holding spaces. */
export const splitArgs = (args: string): ReadonlyArray<string> =>
  [...args.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? "")

/** The trust line of `/memory status`: without Pi's trust, memory is there but injects and recalls nothing. */
export const trustStatusLine = (trusted: boolean): string =>
  trusted
    ? "Trust:            trusted by Pi"
    : "Trust:            NOT trusted by Pi: no memory is injected or recalled, and memory files are off limits to the agent. " +
      "To trust the project: /trust, then restart pi (for one run: pi --approve)"

export const formatStatus = (s: SessionStatus, background?: ReadonlyArray<string>, sandbox?: string, trusted?: boolean): string => {
  const trust = trusted === undefined ? [] : [trustStatusLine(trusted)]
  if (!s.active || s.location === undefined) {
    return [
      `Project memory is inactive: ${s.reason ?? "unknown reason"}.`,
      ...trust,
      ...(s.switches === undefined ? [] : [`Switches:         ${describeSwitches(s.switches)}`]),
      ...(s.configProblems ?? []).map((p) => `Config problem:   ${p}`)
    ].join("\n")
  }
  const u = s.usage
  return [
    ...trust,
    `Memory directory: ${s.location.memoryDir}`,
    `Project root:     ${s.location.projectRoot}`,
    `Topics:           ${s.topics}`,
    `Index:            ${s.indexLines} line${s.indexLines === 1 ? "" : "s"}, ${s.indexChars} characters`,
    `Recall budget:    ${grouped(s.budgetUsed)} of ${grouped(BRANCH_RECALL_BUDGET)} characters used on this branch`,
    `Selector usage:   ${u.requests} requests, ${u.input} input / ${u.output} output tokens, cache ${u.cacheRead} read / ${u.cacheWrite} written, $${u.cost.toFixed(4)}`,
    `Last dream:       ${s.lastDreamAt === null ? "never" : new Date(s.lastDreamAt).toISOString()}`,
    ...(s.historyLines ?? []).map((l) => l.replace(/^([A-Za-z ]+): /, (_, label: string) => `${label}:`.padEnd(18))),
    ...(s.switches === undefined ? [] : [`Switches:         ${describeSwitches(s.switches)}`]),
    ...(s.configProblems ?? []).map((p) => `Config problem:   ${p}`),
    ...(sandbox === undefined ? [] : [`Sandbox:          ${sandbox.replace(/^sandbox: /, "")}`]),
    // Last: the background lines end with the list of recent runs.
    ...(background ?? [`Background tasks: extraction and dream are not available yet`])
  ].join("\n")
}

/** `on|off [extraction|dream|recall] [--project]`: which switch, at which level; a string is a usage problem. */
export const parseSwitch = (
  words: ReadonlyArray<string>
): { readonly what: "memory" | Feature; readonly scope: "global" | "project" } | string => {
  let what: "memory" | Feature = "memory"
  let scope: "global" | "project" = "global"
  for (const w of words) {
    if (w === "--project") scope = "project"
    else if ((FEATURES as ReadonlyArray<string>).includes(w) && what === "memory") what = w as Feature
    else if (w === "memory" && what === "memory") continue
    else return `Usage: /memory on|off [extraction|dream|recall] [--project] ("${w}" is not one of them)`
  }
  return { what, scope }
}

/** What a switch command saved, and what is in force for this project now. */
export const switchReport = (what: "memory" | Feature, on: boolean, root: string | undefined, status: SessionStatus | undefined): string => {
  const name = what === "memory" ? "Project memory" : what[0]!.toUpperCase() + what.slice(1)
  const where = root === undefined ? "saved in config.json for every project" : `saved in config.json for ${root} only`
  const now = status?.switches
  const effective = now === undefined ? undefined : now[what === "memory" ? "memory" : what]
  const differs = effective !== undefined && effective.on !== on
  return [
    `${name} is ${on ? "on" : "off"} (${where}).`,
    ...(differs
      ? [
        what !== "memory" && now?.memory.on === false
          ? `Here it stays off while memory is off (/memory on${now.memory.from === "project" ? " --project" : ""}).`
          : effective!.from === "project"
          ? `This project keeps its own setting, so here it stays ${effective!.on ? "on" : "off"} (/memory ${on ? "on" : "off"}${what === "memory" ? "" : ` ${what}`} --project to change it).`
          : `Here it stays ${effective!.on ? "on" : "off"}.`
      ]
      : []),
    ...(now === undefined ? [] : [`In force here: ${describeSwitches(now)}.`])
  ].join("\n")
}

const TYPES = ["user", "feedback", "project", "reference"] as const

/** `remember [--allow-risky] [--type TYPE] TEXT`; a string is a usage problem. */
export const parseRemember = (
  raw: string
): { readonly text: string; readonly type: (typeof TYPES)[number]; readonly allowRisky: boolean } | string => {
  const risky = /^--allow-risky(?:\s+|$)/.exec(raw)
  const args = risky === null ? raw : raw.slice(risky[0].length)
  const m = /^--type(?:=|\s+)(\S+)\s*([\s\S]*)$/.exec(args)
  const type = m === null ? "project" : m[1]!
  const text = m === null ? args : m[2]!
  if (!(TYPES as ReadonlyArray<string>).includes(type)) return `Usage: /memory remember [--type user|feedback|project|reference] TEXT ("${type}" is not a memory type)`
  if (text.trim() === "") return "Usage: /memory remember [--type user|feedback|project|reference] TEXT"
  return { text, type: type as (typeof TYPES)[number], allowRisky: risky !== null }
}

/** What `/memory undo` reports: the task, what came back, what was left alone and why. */
export const undoReport = (r: UndoResult): string => describeUndo(r).join("\n")

export const memoryCommand = (run: Run, hold: (ctx: ExtensionContext) => void, runBackground?: RunBackground, runBrowse?: RunBrowse) => ({
  description: MEMORY_COMMAND_DESCRIPTION,
  getArgumentCompletions: (prefix: string) =>
    memoryCompletions(prefix, async () => {
      if (runBrowse === undefined) return undefined
      const status = await run((s) => s.status)
      if (status?.location === undefined) return undefined
      const names = await runBrowse((b) => b.names(status.location!.memoryDir))
      return "ok" in names ? names.ok : undefined
    }),
  handler: async (args: string, ctx: ExtensionCommandContext) => {
    hold(ctx)
    const sub = args.trim().split(/\s+/)[0] || "status"
    const rest = splitArgs(args.trim()).slice(1)
    /** The memory directory of an active session, or says why there is none. */
    const located = async () => {
      const status = await run((s) => s.status)
      if (status?.location === undefined) {
        say(ctx, `Project memory is inactive: ${status?.reason ?? "unknown"}.`, "warning")
        return undefined
      }
      return status.location
    }
    const browse = async <A>(f: (b: typeof MemoryBrowse.Service) => Effect.Effect<A, unknown>): Promise<A | undefined> => {
      if (runBrowse === undefined) {
        say(ctx, "Project memory: browsing is unavailable.", "warning")
        return undefined
      }
      const r = await runBrowse(f)
      if ("ok" in r) return r.ok
      say(ctx, `Project memory: ${r.error}`, "warning")
      return undefined
    }
    switch (sub) {
      case "list": {
        const location = await located()
        const listing = location && (await browse((b) => b.list(location.memoryDir)))
        if (listing !== undefined) say(ctx, formatList(listing.topics, listing.total))
        return
      }
      case "show": {
        if (rest.length !== 1) return say(ctx, "Usage: /memory show NAME (a file name, with or without .md, or a frontmatter name)", "warning")
        const location = await located()
        const topic = location && (await browse((b) => b.show(location.memoryDir, rest[0]!, Date.now(), location.memoryRootDir)))
        if (topic === undefined) return
        const head = `${topic.filename} [${topic.type ?? "-"}, changed ${topic.mtime}${topic.linked ? "" : ", not in MEMORY.md"}]`
        const body = topic.binary ? binaryNote(topic.filename, topic.sizeBytes) : topic.content.replace(/\n$/, "")
        const source = `Source: ${describeSource(topic.source)}`
        say(ctx, [head, source, ...(topic.staleness === null ? [] : [topic.staleness]), "", body].join("\n"))
        return
      }
      case "search": {
        const query = args.trim().slice(sub.length).trim()
        if (query === "") return say(ctx, "Usage: /memory search WORDS", "warning")
        const location = await located()
        const hits = location && (await browse((b) => b.search(location.memoryDir, query)))
        if (hits === undefined) return
        say(ctx, hits.length === 0 ? `No topic matches "${query}".` : hits.map((h) => `${h.filename}${h.line > 0 ? `:${h.line}` : ""}  ${h.text}`).join("\n"))
        return
      }
      case "forget": {
        if (rest.length === 0) return say(ctx, "Usage: /memory forget NAME... (quote a name with spaces)", "warning")
        const location = await located()
        const result = location &&
          (await browse((b) => b.forget({ memoryDir: location.memoryDir, rootDir: location.memoryRootDir, names: rest, session: ctx.sessionManager.getSessionId() })))
        if (result === undefined) return
        const lines = `${result.indexLinesRemoved} index line${result.indexLinesRemoved === 1 ? "" : "s"}`
        say(ctx, `Forgot ${result.forgotten.join(", ")}; ${lines} removed. /memory undo brings it back.${result.note === undefined ? "" : `\nNote: ${result.note}`}`)
        return
      }
      case "recalled": {
        const status = await run((s) => s.status)
        if (status !== undefined) say(ctx, formatRecalled(status))
        return
      }
      case "status": {
        const status = await run((s) => s.status)
        const background = runBackground === undefined ? undefined : await runBackground((b) => b.status)
        // Loaded on demand: the sandbox's module is no part of session start.
        const sandbox = await import("../layers/background/tools/sandboxed.ts").then((m) => m.sandboxStatusLine(), (e: unknown) => `sandbox: unknown (${String(e)})`)
        if (status !== undefined) say(ctx, formatStatus(status, background && backgroundStatusLines(background), sandbox, trustOf(ctx)))
        return
      }
      case "extract": {
        const record = runBackground === undefined ? undefined : await runBackground((b) => b.extractNow)
        say(ctx, record === undefined ? "Project memory: extraction is unavailable." : extractReport(record), record?.outcome === "failed" ? "warning" : "info")
        return
      }
      case "dream": {
        const record = runBackground === undefined ? undefined : await runBackground((b) => b.dreamNow)
        say(ctx, record === undefined ? "Project memory: the dream is unavailable." : dreamReport(record), record?.outcome === "failed" ? "warning" : "info")
        return
      }
      case "on":
      case "off": {
        const parsed = parseSwitch(rest)
        if (typeof parsed === "string") return say(ctx, parsed, "warning")
        const on = sub === "on"
        // A failed save was already reported as a warning by `run`: claiming success would be false.
        const saved = await run((s) => Effect.map(s.setSwitch(parsed.what, on, parsed.scope), (root) => ({ root })))
        if (saved === undefined) return
        // Background tasks of the old setting stop at once (a part switched on needs nothing stopped).
        if (parsed.what === "memory" || !on) await runBackground?.((b) => b.invalidate(`/memory ${sub}`))
        const status = await run((s) => s.status)
        say(ctx, switchReport(parsed.what, on, saved.root, status))
        return
      }
      case "remember": {
        const parsed = parseRemember(args.trim().slice(sub.length).trim())
        if (typeof parsed === "string") return say(ctx, parsed, "warning")
        const location = await located()
        const result = location &&
          (await browse((b) =>
            b.remember({
              memoryDir: location.memoryDir,
              rootDir: location.memoryRootDir,
              text: parsed.text,
              type: parsed.type,
              allowRisky: parsed.allowRisky,
              session: ctx.sessionManager.getSessionId()
            })
          ))
        if (result === undefined) return
        say(ctx, `Project memory: saved ${result.files.join(", ")} (task ${result.task}; /memory undo takes it back).${result.note === undefined ? "" : `\nNote: ${result.note}`}${result.windowNote === undefined ? "" : `\nNote: ${result.windowNote}`}`)
        return
      }
      case "review": {
        const location = await located()
        const said = location && (await reviewCommand(rest, location, ctx.sessionManager.getSessionId(), browse))
        if (said !== undefined) say(ctx, said.text, said.level)
        return
      }
      case "context": {
        const c = await run((s) => s.context)
        if (c === undefined) return
        if (!c.active) return say(ctx, `Project memory adds nothing to the next request: ${c.reason ?? "it is inactive"}.`)
        const notices = branchNotices(ctx.sessionManager.buildSessionProjection().entries as never)
        const parts = [
          ...c.parts,
          ...notices.map((text) => ({ name: "change notice", where: "message" as const, text, note: "a background change, part of every request on this branch" }))
        ]
        const notes = [
          c.recallOn
            ? "Recall: each message is also sent to the selector; what it picks joins the message (at most 5 topics, 4,096 bytes each)."
            : "Recall is switched off: no topic is selected or added to messages.",
          ...(c.parts.some((p) => p.name === "recall") ? [] : ["No recall was added to a message in this session yet."])
        ]
        say(ctx, formatContext(summarizeContext(parts), notes))
        return
      }
      case "open": {
        const status = await run((s) => s.status)
        say(ctx, status?.location ? status.location.memoryDir : `Project memory is inactive: ${status?.reason ?? "unknown"}.`)
        return
      }
      case "undo": {
        const task = args.trim().split(/\s+/)[1]
        const result = await run((s) => s.undo(task))
        if (result !== undefined) say(ctx, undoReport(result), result.refused.length === 0 ? "info" : "warning")
        return
      }
      case "help":
        say(ctx, memoryHelp())
        return
      default:
        say(ctx, `Unknown /memory subcommand "${sub}". Use status, on, off, open, extract, dream, undo, list, show, search, forget, recalled, remember, review, context or help.`, "warning")
    }
  }
})
