/**
 * What every background tool of one task is built with: the host's tool definitions, the task's cwd, memory folder
 * and writer handle, the fibers its effects run on, the shared protection checks and the change records. A shape
 * only; ./TaskTools.ts makes one per task and each tool's file takes what it needs.
 */
import type { MemoryTask } from "../../writes/memoryTask.ts"
import type { PiToolkitShape } from "../PiToolkit.ts"
import type { ChangeRecords } from "./changeRecords.ts"
import type { PathGuard } from "./protection.ts"
import type { ProvenanceGuard } from "./provenanceGuard.ts"
import type { MemoryChange } from "./taskTool.ts"
import type { ToolRuntime } from "./toolRuntime.ts"

export interface ToolContext {
  readonly pi: PiToolkitShape
  readonly cwd: string
  readonly memoryDir: string
  readonly writer: MemoryTask
  readonly runtime: ToolRuntime
  readonly paths: PathGuard
  readonly records: ChangeRecords
  /** Hands a successful change in memory on (the task's `onChange`), on the task's runtime. */
  readonly changed: (change: MemoryChange) => Promise<void>
  /** Where a write came from, and whether it is held for review (./provenanceGuard.ts); absent: not judged. */
  readonly provenance?: ProvenanceGuard
  /**
   * The text of a file the model already has word for word in its request (a fork's system prompt holds the index),
   * by absolute path; undefined when it has none. A whole read of a file with that text is answered by a pointer.
   */
  readonly knownText?: (absolutePath: string) => string | undefined
}
