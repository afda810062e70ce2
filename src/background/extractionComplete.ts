/**
 * When an extraction's work is complete after a batch of tool calls, so that no further model call is made: the batch
 * changed memory, every call in it was a `write` or `edit` that succeeded, and the index links every topic the task
 * wrote (a topic it deleted is not asked for). The next call would only tell the model that its writes landed and
 * get a summary line back; the run's record names the changed files itself. A batch that failed, read, ran a command
 * or left a new topic out of the index goes back to the model as usual. Pure.
 */
import { relative, sep } from "node:path"
import { indexLinkedFiles } from "../memory/topicNames.ts"
import { INDEX_FILE } from "../storage/layout.ts"

export interface BatchCall {
  readonly name: string
  readonly isError: boolean
}

export interface MemoryChangeSeen {
  readonly op: "write" | "edit" | "delete"
  /** Absolute path of the changed file. */
  readonly path: string
}

/** Whether a batch could end the task: it changed memory, and every call in it was a `write` or `edit` that landed. */
export const batchMayComplete = (batch: ReadonlyArray<BatchCall>, changedInBatch: number): boolean =>
  batch.length > 0 && changedInBatch > 0 && batch.every((c) => (c.name === "write" || c.name === "edit") && !c.isError)

/**
 * Whether `index` (MEMORY.md as it is now) links every topic the task wrote and still has: `changes` is every change
 * of the task so far, in order, with absolute paths.
 */
export const indexLinksWritten = (changes: ReadonlyArray<MemoryChangeSeen>, memoryDir: string, index: string): boolean => {
  const linked = indexLinkedFiles(index)
  const lastOp = new Map<string, MemoryChangeSeen["op"]>()
  for (const c of changes) lastOp.set(c.path, c.op)
  for (const [path, op] of lastOp) {
    if (op === "delete") continue
    const name = relative(memoryDir, path).split(sep).join("/")
    if (name !== INDEX_FILE && !linked.has(name)) return false
  }
  return true
}
