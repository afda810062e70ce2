/**
 * The part of a task's tool set that one request offers the model: in a fork, only the task's tools the parent
 * declares. A call of any other tool, one of the task's own included, returns the "not available" error.
 */
import type { TaskToolSet } from "./TaskTools.ts"

export const offeredTools = (set: TaskToolSet, names: ReadonlyArray<string>): TaskToolSet => {
  const tools = set.tools.filter((t) => names.includes(t.name))
  return { ...set, tools, byName: (name) => tools.find((t) => t.name === name) }
}
