/** `/memory`: status, on, off, open. Formatting only; the work is MemorySession's. */
import type { ExtensionCommandContext, ExtensionContext } from "@earendil-works/pi-coding-agent"
import * as Effect from "effect/Effect"
import type { BackgroundSession } from "../layers/background/BackgroundSession.ts"
import type { UndoResult } from "../layers/Journal.ts"
import type { MemorySession, SessionStatus } from "../layers/MemorySession.ts"
import { BRANCH_RECALL_BUDGET } from "../layers/MemorySession.ts"
import { backgroundStatusLines, dreamReport, extractReport } from "./background.ts"

type Run = <A>(f: (s: typeof MemorySession.Service) => Effect.Effect<A, unknown>) => Promise<A | undefined>
type RunBackground = <A>(f: (s: typeof BackgroundSession.Service) => Effect.Effect<A, unknown>) => Promise<A | undefined>

const SUBCOMMANDS = [
  { value: "status", label: "status", description: "Memory directory, topics, recall budget, model usage" },
  { value: "on", label: "on", description: "Turn project memory on (all projects)" },
  { value: "off", label: "off", description: "Turn project memory off (all projects)" },
  { value: "open", label: "open", description: "Show the memory directory's path" },
  { value: "extract", label: "extract", description: "Extract memories from this conversation now" },
  { value: "dream", label: "dream", description: "Consolidate the memory directory now, whatever the schedule says" },
  { value: "undo", label: "undo", description: "Undo the newest change to memory (or: undo TASK; pm log lists them)" }
]

export const formatStatus = (s: SessionStatus, background?: ReadonlyArray<string>): string => {
  if (!s.active || s.location === undefined) return `Project memory is inactive: ${s.reason ?? "unknown reason"}.`
  const u = s.usage
  return [
    `Memory directory: ${s.location.memoryDir}`,
    `Project root:     ${s.location.projectRoot}`,
    `Topics:           ${s.topics}`,
    `Index:            ${s.indexLines} lines, ${s.indexChars} characters`,
    `Recall budget:    ${s.budgetUsed.toLocaleString("en-US")} of ${BRANCH_RECALL_BUDGET.toLocaleString("en-US")} units used on this branch`,
    `Selector usage:   ${u.requests} requests, ${u.input} input / ${u.output} output tokens, cache ${u.cacheRead} read / ${u.cacheWrite} written, $${u.cost.toFixed(4)}`,
    `Last dream:       ${s.lastDreamAt === null ? "never" : new Date(s.lastDreamAt).toISOString()}`,
    ...(background ?? [`Background tasks: extraction and dream are not available yet`])
  ].join("\n")
}

/** What `/memory undo` reports: the task, what came back, what was left alone and why. */
export const undoReport = (r: UndoResult): string =>
  [
    `Undid ${r.task}: ${r.restored.length} file(s) restored${r.refused.length > 0 ? `, ${r.refused.length} left alone` : ""}.`,
    ...r.refused.map((f) => `- ${f.file}: ${f.reason}`)
  ].join("\n")

export const memoryCommand = (run: Run, hold: (ctx: ExtensionContext) => void, runBackground?: RunBackground) => ({
  description: "Project memory: status | on | off | open | extract | dream | undo",
  getArgumentCompletions: (prefix: string) => {
    const matches = SUBCOMMANDS.filter((c) => c.value.startsWith(prefix.trim()))
    return matches.length > 0 ? matches : null
  },
  handler: async (args: string, ctx: ExtensionCommandContext) => {
    hold(ctx)
    const sub = args.trim().split(/\s+/)[0] || "status"
    switch (sub) {
      case "status": {
        const status = await run((s) => s.status)
        const background = runBackground === undefined ? undefined : await runBackground((b) => b.status)
        if (status !== undefined) ctx.ui.notify(formatStatus(status, background && backgroundStatusLines(background)), "info")
        return
      }
      case "extract": {
        const record = runBackground === undefined ? undefined : await runBackground((b) => b.extractNow)
        ctx.ui.notify(record === undefined ? "Project memory: extraction is unavailable." : extractReport(record), "info")
        return
      }
      case "dream": {
        const record = runBackground === undefined ? undefined : await runBackground((b) => b.dreamNow)
        ctx.ui.notify(record === undefined ? "Project memory: the dream is unavailable." : dreamReport(record), "info")
        return
      }
      case "on":
      case "off": {
        // A failed save was already reported as a warning by `run`: claiming success would be false.
        const saved = await run((s) => Effect.as(s.setEnabled(sub === "on"), true))
        if (saved !== true) return
        // Background tasks of the old setting stop at once.
        await runBackground?.((b) => b.invalidate(`/memory ${sub}`))
        ctx.ui.notify(`Project memory is ${sub} (saved in config.json for every project).`, "info")
        return
      }
      case "open": {
        const status = await run((s) => s.status)
        ctx.ui.notify(status?.location ? status.location.memoryDir : `Project memory is inactive: ${status?.reason ?? "unknown"}.`, "info")
        return
      }
      case "undo": {
        const task = args.trim().split(/\s+/)[1]
        const result = await run((s) => s.undo(task))
        if (result !== undefined) ctx.ui.notify(undoReport(result), result.refused.length === 0 ? "info" : "warning")
        return
      }
      default:
        ctx.ui.notify(`Unknown /memory subcommand "${sub}". Use status, on, off, open, extract, dream or undo.`, "warning")
    }
  }
})
