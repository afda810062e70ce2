/**
 * Task-level codemode: Pi's own codemode tool, registered through a minimal extension API of ours, whose scripts can
 * call only the task's six tools (each call goes through the same guarded executors) and whose `store()` lives in an
 * in-memory session of the task's own. It adds no tool of its own beyond `codemode` and checks only its `code`
 * argument; everything a script does is checked by the tool it calls. Each tool a script calls returns its result
 * redacted by the gate (./guardedCall.ts); what the script returns is redacted again, since a script can decode a
 * value (hex, say) that the detector did not recognise in its encoded form.
 */
import type { PiToolkitShape } from "../PiToolkit.ts"
import { redactResult } from "./guardedCall.ts"
import { checkToolArguments } from "./toolArguments.ts"
import { type CodemodeSettings, errorResult, type TaskTool, type ToolResult } from "./taskTool.ts"
import type { Tool } from "@earendil-works/pi-ai"

/** The tools the model is offered: the six and `codemode` ("on"), or `codemode` alone ("only"). */
export const withCodemode = async (
  pi: PiToolkitShape,
  cwd: string,
  six: ReadonlyArray<TaskTool>,
  settings: CodemodeSettings
): Promise<ReadonlyArray<TaskTool>> => {
  const sessionManager = pi.SessionManager.inMemory(cwd)
  let definition: { description: string; parameters: unknown; execute: (...a: Array<any>) => Promise<unknown> } | undefined
  const api = {
    registerTool: (def: typeof definition) => void (definition = def),
    appendEntry: (customType: string, data: unknown) => void sessionManager.appendCustomEntry(customType, data),
    getAllTools: () => six.map((t) => ({ name: t.name, description: t.declaration.description, parameters: t.declaration.parameters, promptGuidelines: [] })),
    getSettings: () => ({})
  }
  await pi.createCodemodeExtension({ mode: settings.mode, ...(settings.inlineBudget === undefined ? {} : { inlineBudget: settings.inlineBudget }), models: false })(api as never)
  if (definition === undefined) throw new Error("codemode did not register its tool")
  const def = definition
  let nested = 0
  const agentTools = six.map((t) => ({ name: t.name, label: t.name, description: t.declaration.description, parameters: t.declaration.parameters, execute: t.execute }))
  const codemode: TaskTool = {
    name: "codemode",
    declaration: { name: "codemode", description: def.description, parameters: def.parameters as Tool["parameters"] },
    execute: async (id, raw, signal) => {
      const checked = checkToolArguments("codemode", raw)
      if (checked._tag === "Invalid") return errorResult(checked.message)
      const args = checked.args
      return redactResult(await def.execute(id, args, signal, undefined, {
        cwd,
        tools: agentTools,
        sessionManager,
        modelRegistry: undefined,
        executeTool: async (name: string, toolArgs: unknown, o?: { signal?: AbortSignal }) => {
          const toolCall = { type: "toolCall", id: `${id}/${++nested}`, name, arguments: toolArgs }
          const tool = six.find((t) => t.name === name)
          const result = tool === undefined
            ? errorResult(`The tool "${name}" is not available in this background memory task.`)
            : await tool.execute(toolCall.id, (toolArgs ?? {}) as Record<string, unknown>, o?.signal ?? signal)
          return { toolCall, result, isError: result.isError === true }
        }
      }) as ToolResult)
    }
  }
  return settings.mode === "only" ? [codemode] : [...six, codemode]
}
