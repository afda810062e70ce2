/**
 * The check on where a background write came from (src/writes/provenance.ts), run by `write` and `edit` on the final
 * content after the content checks and before the writer sees it. It judges the write against the evidence the task
 * was given (the conversation) and the tool results the task itself read (noted here as they come back; a read of a
 * memory file is memory already, not outside text). A write judged saved goes on with its source, which the writer
 * journals; a write judged held is kept in `memory-roots/<hash>/held/` for the person's review (at most
 * HELD_MAX_ITEMS; past that it is refused) and the tool fails with a message saying nothing was saved. A held write
 * to MEMORY.md is refused outright: an index line alone is nothing to review.
 */
import * as Effect from "effect/Effect"
import { readFile } from "node:fs/promises"
import { homedir } from "node:os"
import { HELD_MAX_ITEMS } from "../../../src/limits.ts"
import { isWithin, resolveToolPath } from "../../../src/safety/toolPath.ts"
import { heldFullMessage, heldIdOf, heldToolMessage } from "../../../src/writes/held.ts"
import { type Evidence, judgeWrite } from "../../../src/writes/provenance.ts"
import { toolLabel } from "../../../src/background/evidence.ts"
import type { HeldStore } from "../../writes/heldStore.ts"
import { memoryLabel } from "./protection.ts"
import type { ToolResult } from "./taskTool.ts"
import type { ToolRuntime } from "./toolRuntime.ts"

/** What a task's writes are judged against, and where its held writes go. */
export interface ProvenanceSpec {
  readonly task: "extract" | "dream"
  /** The conversation the task was given, as labelled text (src/background/evidence.ts). */
  readonly evidence: ReadonlyArray<Evidence>
  /** `memory-roots/<hash>/`: held writes live in its `held/` folder. */
  readonly rootDir: string
  readonly session: string | null
}

export interface ProvenanceGuard {
  /** Notes the text of a tool result this task received, for the writes that follow. */
  readonly noteResult: (tool: string, args: Record<string, unknown>, result: ToolResult) => void
  /** The source to journal for a write of `content` to `absolutePath`; throws (the tool's refusal) when held. */
  readonly judge: (absolutePath: string, content: string) => Promise<string | undefined>
}

const textOf = (result: ToolResult): string =>
  result.content.map((c) => (c.type === "text" ? c.text : "")).filter((t) => t !== "").join("\n")

export const makeProvenanceGuard = (
  spec: ProvenanceSpec,
  context: { readonly cwd: string; readonly memoryDir: string; readonly runtime: ToolRuntime; readonly held: HeldStore; readonly now?: () => Date }
): ProvenanceGuard => {
  const seen: Array<Evidence> = []
  const now = context.now ?? (() => new Date())
  return {
    noteResult: (tool, args, result) => {
      if (result.isError === true || tool === "write" || tool === "edit") return
      const path = typeof args["path"] === "string" ? resolveToolPath(args["path"], context.cwd, homedir()) : undefined
      if (tool === "read" && path !== undefined && isWithin(context.memoryDir, path)) return
      const text = textOf(result)
      if (text !== "") seen.push({ kind: "tool", label: toolLabel(tool, args), text })
    },
    judge: async (absolutePath, content) => {
      if (!isWithin(context.memoryDir, absolutePath)) return undefined
      const file = memoryLabel(context.memoryDir, absolutePath)
      const before = await readFile(absolutePath, "utf8").catch(() => "")
      const judgement = judgeWrite({ file, before, after: content, task: spec.task }, [...spec.evidence, ...seen])
      if (judgement._tag === "Save") return judgement.source
      if (file === "MEMORY.md") throw new Error(`MEMORY.md was not changed: ${judgement.reason}.`)
      const at = now().toISOString()
      const id = heldIdOf(file, content, at)
      const outcome = await context.runtime.run(
        context.held.add(spec.rootDir, { v: 1, id, file, content, source: judgement.source, reason: judgement.reason, at, task: spec.task, session: spec.session }).pipe(
          Effect.catchAll(() => Effect.succeed("failed" as const))
        )
      )
      throw new Error(
        outcome === "held"
          ? heldToolMessage(file, judgement.reason, id)
          : outcome === "full"
          ? heldFullMessage(file, judgement.reason, HELD_MAX_ITEMS)
          : `${file} was not saved: ${judgement.reason}. It could not be kept for review either, so it is refused. Do not retry it.`
      )
    }
  }
}
