/**
 * The background `edit`: Pi's own edit tool (its schema, matching and diff output) behind the protected-path check,
 * publishing through the task's writer handle after the content checks of ./protection.ts and the provenance check
 * of ./provenanceGuard.ts. Exact replacements go
 * through the writer's edit (which may re-apply them to a file changed since the read); anything Pi matched loosely
 * is published as a whole-file write under the same baseline rules.
 */
import { access, readFile } from "node:fs/promises"
import { homedir } from "node:os"
import { resolveToolPath } from "../../../src/safety/toolPath.ts"
import { applyEdits, type Replacement } from "../../../src/writes/readBaseline.ts"
import type { ToolContext } from "./toolContext.ts"
import { refuseContent } from "./protection.ts"
import { type ToolBody, viaPi } from "./taskTool.ts"

export const makeEditTool = ({ pi, cwd, memoryDir, writer, runtime, paths, records, changed, provenance }: ToolContext) => {
  /** What Pi's edit read, per file: to tell an exact replacement (the writer's edit) from a fuzzy one. */
  const editSeen = new Map<string, string>()
  const pendingEdits = new Map<string, ReadonlyArray<Replacement>>()
  const definition = pi.createEditToolDefinition(cwd, {
    operations: {
      access: (absolutePath) => access(absolutePath),
      readFile: async (absolutePath) => {
        const bytes = await readFile(absolutePath)
        editSeen.set(absolutePath, bytes.toString("utf8"))
        return bytes
      },
      writeFile: async (absolutePath, content) => {
        await refuseContent(memoryDir, absolutePath, content)
        // Where it came from, judged in code; an edit that brings in outside text is held for review and fails here.
        const source = await provenance?.judge(absolutePath, content)
        const before = editSeen.get(absolutePath)
        const edits = pendingEdits.get(absolutePath) ?? []
        const exact = before === undefined ? undefined : applyEdits(before, edits)
        // Exact replacements go through the writer's edit (which may re-apply them to a file changed since the read);
        // anything Pi matched loosely is published as a whole-file write under the same baseline rules.
        const result = await (exact?._tag === "Applied" && exact.content === content
          ? runtime.run(writer.edit(absolutePath, edits, source))
          : runtime.run(writer.write(absolutePath, content, source))).catch(records.noteFailure)
        await changed({ op: "edit", path: result.path })
      }
    }
  })
  const execute: ToolBody = async (id, args, signal) => {
    // Before Pi's edit opens anything: its errors would tell whether a guessed text is in a protected file.
    const refused = await paths.refusePath(args["path"])
    if (refused !== undefined) return refused
    const edits = Array.isArray(args["edits"]) ? (args["edits"] as ReadonlyArray<Replacement>) : []
    const absolute = typeof args["path"] === "string" ? resolveToolPath(args["path"], cwd, homedir()) : undefined
    if (absolute !== undefined) pendingEdits.set(absolute, edits)
    try {
      return await viaPi(definition)(id, args, signal)
    } finally {
      if (absolute !== undefined) {
        pendingEdits.delete(absolute)
        editSeen.delete(absolute)
      }
    }
  }
  /** Pi's own repair of common argument mistakes (`edits` sent as a string or one object), run before the check. */
  const prepareArguments = (definition as { prepareArguments?: (args: unknown) => unknown }).prepareArguments
  return { definition, execute, prepareArguments }
}
