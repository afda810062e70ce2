/**
 * The background `write`: Pi's own write tool (its schema and output) behind the protected-path check, publishing
 * through the task's writer handle after the content checks of ./protection.ts and the provenance check of
 * ./provenanceGuard.ts (a write of outside text is held for the person's review, not saved). The writer creates missing folders
 * inside memory itself and journals the bytes it replaces; nothing is ever created elsewhere.
 */
import type { ToolContext } from "./toolContext.ts"
import { refuseContent } from "./protection.ts"
import { type ToolBody, viaPi } from "./taskTool.ts"

export const makeWriteTool = ({ pi, cwd, memoryDir, writer, runtime, paths, records, changed, provenance }: ToolContext) => {
  const definition = pi.createWriteToolDefinition(cwd, {
    operations: {
      // The writer creates missing folders inside memory itself; nothing is ever created elsewhere.
      mkdir: async () => undefined,
      writeFile: async (absolutePath, content) => {
        await refuseContent(memoryDir, absolutePath, content)
        // Where it came from, judged in code; a write of outside text is held for review and fails here.
        const source = await provenance?.judge(absolutePath, content)
        // Journaled by the writer (its task handle carries the journal), from the bytes it replaces.
        const result = await runtime.run(writer.write(absolutePath, content, source)).catch(records.noteFailure)
        await changed({ op: "write", path: result.path })
      }
    }
  })
  const execute: ToolBody = async (id, args, signal) => (await paths.refusePath(args["path"])) ?? viaPi(definition)(id, args, signal)
  return { definition, execute }
}
