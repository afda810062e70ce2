/**
 * What a task's writes and edits leave for its run record: the messages of changes that failed for a reason of the
 * system (full disk, read-only, I/O; in publishing or in the writer's journaling), and per file why its last write
 * or edit failed. Only notes: it never retries, refuses or publishes anything, and the journal of the bytes a change
 * replaces is the writer's (its task handle carries it).
 */
import { homedir } from "node:os"
import { resolveToolPath } from "../../../src/safety/toolPath.ts"
import { memoryLabel } from "./protection.ts"
import type { BackgroundToolName, ToolResult, UnsavedChange } from "./taskTool.ts"

/** Writer failures that are the system's, not a refusal of the model's request (a stale read, a path outside memory). */
const SYSTEM_FAILURES = new Set(["PublishFailed", "JournalFailed", "LockFailed"])

export interface ChangeRecords {
  /** Rethrows a failed change, noting it first when the system failed. */
  readonly noteFailure: (e: unknown) => never
  /** Notes a write's or edit's outcome per file (other tools pass through); returns the result unchanged. */
  readonly noteChangeAttempt: (name: BackgroundToolName, args: Record<string, unknown>, result: ToolResult) => ToolResult
  /** The messages of writes and edits that failed for a reason of the system, in order. */
  readonly writeFailures: () => ReadonlyArray<string>
  /** Files whose last `write` or `edit` failed, with the error's first line. */
  readonly unsaved: () => ReadonlyArray<UnsavedChange>
}

export const makeChangeRecords = (cwd: string, memoryDir: string): ChangeRecords => {
  const writeFailures: Array<string> = []
  /** Per file, why its last write or edit failed; a later success of either clears it. */
  const failedChanges = new Map<string, string>()
  return {
    noteFailure: (e) => {
      if (SYSTEM_FAILURES.has((e as { tag?: string }).tag ?? "")) writeFailures.push((e as Error).message)
      throw e
    },
    noteChangeAttempt: (name, args, result) => {
      if (name !== "write" && name !== "edit") return result
      const absolute = resolveToolPath(String(args["path"]), cwd, homedir())
      const file = absolute === undefined ? String(args["path"]) : memoryLabel(memoryDir, absolute)
      if (result.isError !== true) failedChanges.delete(file)
      else {
        const first = result.content.map((c) => (c.type === "text" ? c.text : "")).join("").trim().split("\n")[0] ?? ""
        failedChanges.set(file, first.length > 200 ? `${first.slice(0, 199)}…` : first)
      }
      return result
    },
    writeFailures: () => [...writeFailures],
    unsaved: () => [...failedChanges].map(([file, reason]) => ({ file, reason }))
  }
}
