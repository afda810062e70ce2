/**
 * The background `bash`: every command classified by the BashGuard first. A rejected command is refused with the
 * guard's reason; a delete is carried out by ./delete.ts, never by a shell; a read-only one runs in Pi's own bash
 * tool (inside the OS sandbox of ./sandboxed.ts when there is one, or refused without one when the configuration
 * says so), once what it may open has passed the protected-read check. Its full output log moves into the task's
 * own temporary folder, which goes when the task ends.
 */
import { rename } from "node:fs/promises"
import { basename, join } from "node:path"
import type { ProtectionOptions } from "../../../src/safety/protectedPaths.ts"
import type { BashGuardShape } from "../../safety/bashGuardShape.ts"
import { protectedReadReason, protectedRefusal } from "../../safety/ProtectedReads.ts"
import type { DeletePath } from "./delete.ts"
import type { SandboxedTools } from "./sandboxed.ts"
import type { ToolContext } from "./toolContext.ts"
import { errorResult, type ToolBody, viaPi } from "./taskTool.ts"

export const BASH_DEFAULT_TIMEOUT_S = 120
export const BASH_MAX_TIMEOUT_S = 600

export interface BashToolOptions {
  readonly guard: BashGuardShape
  readonly protection: ProtectionOptions
  readonly sandboxed: SandboxedTools
  readonly deletes: DeletePath
  /** The task's temporary folder, where full output logs move. */
  readonly tempDir: string
  /** Logs that could not be moved there: removed when the task ends. */
  readonly logs: Set<string>
}

export const makeBashTool = ({ pi, cwd, memoryDir, runtime }: ToolContext, o: BashToolOptions) => {
  const { protection, sandboxed } = o
  const definition = pi.createBashToolDefinition(cwd, sandboxed.bashOperations && { operations: sandboxed.bashOperations })
  const execute: ToolBody = async (id, args, signal) => {
    const command = typeof args["command"] === "string" ? args["command"] : ""
    const verdict = await runtime.runEffect(o.guard.classify(command, { memoryDir, cwd, reads: { home: protection.home } }))
    if (verdict.verdict === "rejected") return errorResult(`Command refused in a background memory task: ${verdict.reason}`)
    if (verdict.verdict === "read-only") {
      // What the command may open, checked before it runs (a guard without the plan refuses: nothing is unchecked).
      const why = verdict.reads === undefined ? "the guard gave no list of what it reads" : await protectedReadReason(verdict.reads, protection, sandboxed.bashOperations !== undefined)
      if (why !== undefined) return errorResult(protectedRefusal(why))
    }
    if (verdict.verdict === "delete") return o.deletes.execute(verdict)
    if (sandboxed.bashRefusal !== undefined) return errorResult(sandboxed.bashRefusal)
    const requested = typeof args["timeout"] === "number" && args["timeout"] > 0 ? args["timeout"] : BASH_DEFAULT_TIMEOUT_S
    const toRun = verdict.run ?? command
    const result = await viaPi(definition)(id, { command: toRun, timeout: Math.min(requested, BASH_MAX_TIMEOUT_S) }, signal)
    const full = (result.details as { fullOutputPath?: string } | undefined)?.fullOutputPath
    if (typeof full !== "string") return result
    // The full log moves into the task's own folder, which goes when the task ends.
    const moved = join(o.tempDir, basename(full))
    const ok = await rename(full, moved).then(() => true, () => false)
    if (!ok) {
      o.logs.add(full)
      return result
    }
    return {
      ...result,
      content: result.content.map((c) => (c.type === "text" ? { ...c, text: c.text.replaceAll(full, moved) } : c)),
      details: { ...(result.details as object), fullOutputPath: moved }
    }
  }
  return { definition, execute }
}
